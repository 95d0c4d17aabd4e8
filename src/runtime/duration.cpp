#include "runtime/duration.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "io/input_file.hpp"  // printable

namespace favorlab {

double parse_duration_seconds(const std::string& text, const std::string& option) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument(option + " must be a duration such as 90s, 15m or 1.5h (" + why + "), got '" +
                                 printable(text) + "'");
  };
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) throw bad("empty or starting with a space");
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno == ERANGE || !std::isfinite(value)) throw bad("no number");
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m") scale = 60;
  else if (unit == "h") scale = 3600;
  else throw bad("units are s, m and h");
  const double seconds = value * scale;
  if (!(seconds > 0)) throw bad("it must be positive");
  if (seconds > 1000.0 * 3600) throw bad("it must be at most 1000h");
  return seconds;
}

}  // namespace favorlab
