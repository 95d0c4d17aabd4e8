#pragma once
// A number as text for check details and labels: the shortest form `std::ostream << v` gives at `precision`
// significant digits (6 is the stream's default); format_fixed: `digits` digits after the point ("3021.4567").
#include <sstream>
#include <string>

namespace favorlab {

inline std::string format_number(double v, int precision = 6) {
  std::ostringstream s;
  s.precision(precision);
  s << v;
  return s.str();
}

inline std::string format_fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

}  // namespace favorlab
