#include "stats/binomial_two_sample.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

double binomial_log_pmf(std::int64_t j, std::int64_t k, double pi) {
  const auto x = static_cast<double>(j), n = static_cast<double>(k);
  return std::lgamma(n + 1) - std::lgamma(x + 1) - std::lgamma(n - x + 1) + x * std::log(pi) +
         (n - x) * std::log1p(-pi);
}

namespace {

// Σ P(K = j) / P(K = from) for j from `from` stepping by `step` (±1) until the terms no longer change the sum in
// double or j leaves [0, k]. Called on the side of the mean away from it, where the terms fall monotonically.
double scaled_tail(std::int64_t from, std::int64_t k, double pi, int step) {
  const double odds = pi / (1 - pi);  // P(j + 1)/P(j) = (k − j)/(j + 1) · odds
  double sum = 1, term = 1;
  for (std::int64_t j = from;;) {
    const std::int64_t next = j + step;
    if (next < 0 || next > k) break;
    const auto jd = static_cast<double>(j), kd = static_cast<double>(k);
    term *= step > 0 ? (kd - jd) / (jd + 1) * odds : jd / (kd - jd + 1) / odds;
    sum += term;
    if (term < sum * 1e-17) break;
    j = next;
  }
  return sum;
}

}  // namespace

double binomial_two_sample_p(std::int64_t k_a, std::int64_t n_a, std::int64_t k_b, std::int64_t n_b) {
  if (n_a <= 0 || n_b <= 0 || k_a < 0 || k_b < 0 || k_a > n_a || k_b > n_b)
    throw std::invalid_argument("binomial test needs 0 <= successes <= trials and trials > 0, got " +
                                std::to_string(k_a) + "/" + std::to_string(n_a) + " and " + std::to_string(k_b) +
                                "/" + std::to_string(n_b));
  const std::int64_t k = k_a + k_b;
  if (k == 0) return 1;
  const double pi = static_cast<double>(n_a) / (static_cast<double>(n_a) + static_cast<double>(n_b));
  const double mean = static_cast<double>(k) * pi;
  // P(K = k_a) from Boost's density (ibeta_derivative: relative error ~1e-15 at any k, where lgamma's differences of
  // numbers near ln k! lose ~1e-5 at k = 1e9); where it underflows, the lgamma form in log space (any p that small is
  // far below every α, so its relative error cannot change a decision).
  const double at = boost::math::pdf(boost::math::binomial_distribution<double>(static_cast<double>(k), pi),
                                     static_cast<double>(k_a));
  const double log_at = at > 1e-300 ? std::log(at) : binomial_log_pmf(k_a, k, pi);
  const bool below = static_cast<double>(k_a) <= mean;
  // The near tail, P(K ≤ k_a) below the mean or P(K ≥ k_a) above it, in log space; the far tail is ≥ 1/2.
  const double log_near = log_at + std::log(scaled_tail(k_a, k, pi, below ? -1 : +1));
  const double near = std::exp(log_near);
  const double far = std::max(0.0, 1 - near) + std::exp(log_at);
  return std::min(1.0, 2 * std::min(near, far));
}

}  // namespace favorlab
