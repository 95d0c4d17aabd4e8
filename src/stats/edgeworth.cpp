#include "stats/edgeworth.hpp"

#include <cmath>
#include <limits>

#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {
double shift_times_sqrt_n(double skewness, double z) {
  return std::abs(skewness) * (2 * z * z + 1) * normal_density(z) / 6;
}
}  // namespace

double edgeworth_tail_shift(double skewness, double z, std::int64_t trials) {
  return shift_times_sqrt_n(skewness, z) / std::sqrt(static_cast<double>(trials));
}

std::int64_t trials_for_reliable_z_test(double skewness, double z, double alpha) {
  const double root = shift_times_sqrt_n(skewness, z) / (alpha / 2);
  const double n = std::ceil(root * root);
  if (!(n < 9.0e18)) return kTrialsOutOfReach;
  return std::max<std::int64_t>(2, static_cast<std::int64_t>(n));
}

}  // namespace favorlab
