#include "stats/look_spending.hpp"

#include <numbers>
#include <stdexcept>
#include <string>

namespace favorlab {

double look_alpha(double family_alpha, int look) {
  if (!(family_alpha > 0 && family_alpha < 1))
    throw std::invalid_argument("look_alpha: family alpha must lie in (0, 1), got " + std::to_string(family_alpha));
  if (look < 0) throw std::invalid_argument("look_alpha: look must be at least 0, got " + std::to_string(look));
  const double k1 = static_cast<double>(look) + 1;
  return family_alpha * 6 / (std::numbers::pi * std::numbers::pi * k1 * k1);
}

}  // namespace favorlab
