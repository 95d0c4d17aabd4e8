#pragma once
// Exact (Clopper–Pearson) confidence interval for a binomial proportion: k successes in n trials, confidence 1 − α,
// α/2 in each tail. From Boost.Math's inverse regularized incomplete beta function:
//   lower = I⁻¹_{α/2}(k, n − k + 1)  (0 when k = 0),   upper = I⁻¹_{1−α/2}(k + 1, n − k)  (1 when k = n).
// Coverage is at least 1 − α for every true p (conservative), with no normal approximation — so it stays valid for
// the tiny tail probabilities and zero counts of a tail-bound experiment.
#include <cstdint>

namespace favorlab {

struct ProportionInterval {
  double lower = 0;
  double upper = 1;
};

// Throws std::invalid_argument unless 0 ≤ k ≤ n, n ≥ 1 and 0 < α < 1.
ProportionInterval clopper_pearson(std::int64_t k, std::int64_t n, double alpha);

// The fewest trials at which the interval can establish p ≥ target: with n successes in n trials the lower end is
// (α/2)^{1/n}, so n = ⌈ln(α/2) / ln target⌉; fewer trials leave p ≥ target unestablished whatever the outcome.
// Throws std::invalid_argument unless 0 < target < 1 and 0 < α < 1.
std::int64_t clopper_pearson_trials_to_reach(double target, double alpha);

}  // namespace favorlab
