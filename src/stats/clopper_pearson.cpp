#include "stats/clopper_pearson.hpp"

#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

ProportionInterval clopper_pearson(std::int64_t k, std::int64_t n, double alpha) {
  if (n < 1) throw std::invalid_argument("Clopper-Pearson interval needs n >= 1 trials, got " + std::to_string(n));
  if (k < 0 || k > n)
    throw std::invalid_argument("Clopper-Pearson interval needs 0 <= k <= n, got k = " + std::to_string(k) +
                                ", n = " + std::to_string(n));
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("Clopper-Pearson interval needs 0 < alpha < 1");
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  ProportionInterval ci;
  // The endpoints solve P[Bin(n, p) ≥ k] = α/2 (lower) and P[Bin(n, p) ≤ k] = α/2 (upper); both are beta quantiles.
  // The upper one is the α/2 quantile of the complement (ibetac_inv), which keeps its accuracy for tiny α where
  // 1 − α/2 would round.
  ci.lower = k == 0 ? 0.0 : boost::math::ibeta_inv(kd, nd - kd + 1, alpha / 2);
  ci.upper = k == n ? 1.0 : boost::math::ibetac_inv(kd + 1, nd - kd, alpha / 2);
  return ci;
}

std::int64_t clopper_pearson_trials_to_reach(double target, double alpha) {
  if (!(target > 0 && target < 1)) throw std::invalid_argument("Clopper-Pearson trials: target must lie in (0, 1)");
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("Clopper-Pearson trials: alpha must lie in (0, 1)");
  return static_cast<std::int64_t>(std::ceil(std::log(alpha / 2) / std::log(target)));
}

}  // namespace favorlab
