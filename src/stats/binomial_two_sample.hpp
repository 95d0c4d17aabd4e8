#pragma once
// Did two binomial proportions differ? The exact conditional test of k_a successes in n_a trials against k_b in n_b:
// given k = k_a + k_b, under "same proportion" k_a ~ Binomial(k, n_a/(n_a + n_b)), whatever that proportion is, so
// the test is exact at every sample size, however rare the successes. Two-sided p = min(1, 2·min(P(K ≤ k_a),
// P(K ≥ k_a))). The tail on k_a's side of the mean is summed outward from k_a in log space (terms by the ratio of
// consecutive probabilities, scaled by the log-probability at k_a, which comes from Boost's binomial density, or from
// lgamma where that underflows), the other is ≥ 1/2 (the binomial median lies within one of the mean) and is taken as
// 1 − the first + P(K = k_a). Counts up to 2^53; the sum takes O(sqrt k) terms at most.
#include <cstdint>

namespace favorlab {

// n_a, n_b > 0 and 0 ≤ k_a ≤ n_a, 0 ≤ k_b ≤ n_b (std::invalid_argument otherwise). k_a = k_b = 0 gives 1.
double binomial_two_sample_p(std::int64_t k_a, std::int64_t n_a, std::int64_t k_b, std::int64_t n_b);

// log P(K = j) for K ~ Binomial(k, pi), 0 < pi < 1, 0 ≤ j ≤ k (exposed for tests).
double binomial_log_pmf(std::int64_t j, std::int64_t k, double pi);

}  // namespace favorlab
