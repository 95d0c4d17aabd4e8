#pragma once
// A number as text for check details and labels: the shortest form `std::ostream << v` gives at `precision`
// significant digits (6 is the stream's default).
#include <sstream>
#include <string>

namespace favorlab {

inline std::string format_number(double v, int precision = 6) {
  std::ostringstream s;
  s.precision(precision);
  s << v;
  return s.str();
}

}  // namespace favorlab
