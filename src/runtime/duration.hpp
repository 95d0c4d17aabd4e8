#pragma once
// A wall-clock duration on the command line (--budget): a positive number with an optional unit, s (the default),
// m or h — "90", "90s", "15m", "1.5h" — at most 1000 h.
#include <string>

namespace favorlab {

// Seconds; throws std::invalid_argument "<option>: ..." naming the value for anything else.
double parse_duration_seconds(const std::string& text, const std::string& option = "--budget");

}  // namespace favorlab
