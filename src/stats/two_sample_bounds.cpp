#include "stats/two_sample_bounds.hpp"

#include <algorithm>
#include <cmath>

namespace favorlab {

double chebyshev_threshold(double sd, double n_a, double n_b, double alpha) {
  return sd * std::sqrt((1 / n_a + 1 / n_b) / alpha);
}

double hoeffding_threshold(double range, double n_a, double n_b, double alpha) {
  return range * std::sqrt((1 / n_a + 1 / n_b) * std::log(2 / alpha) / 2);
}

double bernstein_threshold(double sd, double range, double n_a, double n_b, double alpha) {
  const double l = std::log(2 / alpha), c = l * range / std::min(n_a, n_b) / 3;
  return c + std::hypot(c, std::sqrt(2 * l * (1 / n_a + 1 / n_b)) * sd);
}

}  // namespace favorlab
