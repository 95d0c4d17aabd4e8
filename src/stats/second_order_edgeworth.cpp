#include "stats/second_order_edgeworth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/normal_quantiles.hpp"

namespace favorlab {

std::int64_t trials_for_second_order_z_test(double skewness, double excess_kurtosis, double z, double alpha) {
  const double z2 = z * z;
  const double q2 = z * (excess_kurtosis * (z2 - 3) / 12 - skewness * skewness * (z2 * z2 + 2 * z2 - 3) / 18 -
                         (z2 + 3) / 4);
  const double n = std::ceil(std::abs(q2) * normal_density(z) / (alpha / 2));
  if (!(n < 9.0e18)) return std::numeric_limits<std::int64_t>::max();
  return std::max<std::int64_t>(2, static_cast<std::int64_t>(n));
}

}  // namespace favorlab
