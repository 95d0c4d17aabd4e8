#include "kernels/theorem1_bound.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace favorlab {

namespace {
void validate_c(double C) {
  if (!std::isfinite(C) || C < 1) {
    std::ostringstream s;
    s << "the attention bound C must be finite and >= 1 (entries SM(x, x) >= 1 at x = 0), got " << C;
    throw std::invalid_argument(s.str());
  }
}
}  // namespace

double theorem1_max_w(double C) {
  validate_c(C);
  return 2 * std::log(C);
}

double theorem1_max_z_norm(double C) { return std::sqrt(2 * theorem1_max_w(C)); }

double theorem1_gap_limit(double C) {
  const double w = theorem1_max_w(C);
  return w * w;
}

double theorem1_critical_c() { return std::exp(1 / std::sqrt(2.0)); }

}  // namespace favorlab
