#include "kernels/orthogonal_mse.hpp"

#include <boost/math/special_functions/hypergeometric_1F1.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/lemma2.hpp"
#include "kernels/log_add.hpp"
#include "kernels/smreg.hpp"

namespace favorlab {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void require(int d, double z_norm) {
  if (d <= 0) throw std::invalid_argument("dimension d must be positive, got " + std::to_string(d));
  if (!(z_norm >= 0) || !std::isfinite(z_norm))
    throw std::invalid_argument("norm of z must be finite and >= 0, got " + std::to_string(z_norm));
}

void require_positive_m(int m) {
  if (m <= 0) throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(m));
}

// log (j−1)!! for even j ≥ 0: (2a−1)!! = (2a)!/(2^a a!), and (−1)!! = 1.
double log_odd_double_factorial(int j) {
  const int a = j / 2;
  return std::lgamma(2.0 * a + 1) - a * std::log(2.0) - std::lgamma(a + 1.0);
}

// Sum over even t, u of exp(log_term(t, u)), diagonal by diagonal n = (t + u)/2. Every term is positive and, past the
// peak of the diagonals' totals (near n ≈ ‖z‖²/2 for these series), the totals fall at least geometrically: stop
// once a diagonal beyond both the peak and n_min adds less than e^{−40} of the sum.
template <class LogTerm>
double log_even_double_series(double n_min, LogTerm log_term) {
  double log_sum = kNegInf;
  for (int n = 0;; ++n) {
    double diagonal = kNegInf;
    for (int a = 0; a <= n; ++a) diagonal = log_add(diagonal, log_term(2 * a, 2 * (n - a)));
    log_sum = log_add(log_sum, diagonal);
    if (n > n_min && diagonal < log_sum - 40) break;
    if (n > 200000) throw std::runtime_error("orthogonal pair series did not converge");
  }
  return log_sum;
}

// log(F² − S) for chi norms, F² = e^{2w}, w = ‖z‖²/2, without cancelling e^{2w} against S:
// F² − S = Σ_n w^n/n! · (2^n − (d)_n/(d/2)_n) = Σ_n (2w)^n/n! · (1 − ρ_n),  ρ_n = Π_{k<n} (d+k)/(d+2k),
// with 1 − ρ_n = −expm1(log ρ_n) accurate even where ρ_n ≈ 1 (n ≤ 1 give 0; n = 2 gives 2/(d+2)).
double log_orthogonal_pair_gap(double w, int d) {
  if (w == 0) return kNegInf;
  double log_rho = 0, log_sum = kNegInf;
  for (int n = 0;; ++n) {
    if (n > 0) log_rho += std::log1p(-(n - 1.0) / (d + 2.0 * (n - 1)));
    if (n >= 2) {
      const double log_term = n * std::log(2 * w) - std::lgamma(n + 1.0) + std::log(-std::expm1(log_rho));
      log_sum = log_add(log_sum, log_term);
      if (n > 2 * w + 2 && log_term < log_sum - 40) break;
    }
    if (n > 10'000'000) throw std::runtime_error("orthogonal pair gap series did not converge");
  }
  return log_sum;
}

double log_truth(RowNorms norms, const Geometry& g, int d) {
  return norms == RowNorms::sqrt_d ? log_smreg_exact(g, d) : g.dot();
}

// log E[X²] − 2 log Λ and log F for the estimator's one feature X = Λ exp(ωᵀz).
double log_second_moment_over_lambda2(RowNorms norms, const Geometry& g, int d) {
  const double z = std::sqrt(g.z_sq());
  return norms == RowNorms::sqrt_d ? log_sphere_mgf(d, 2 * std::sqrt(static_cast<double>(d)) * z) : 2 * g.z_sq();
}

}  // namespace

double log_orthogonal_pair_moment_series(double z_norm, int d) {
  require(d, z_norm);
  if (z_norm == 0) return 0;
  const double log_z = std::log(z_norm), half_d = d / 2.0;
  auto log_mu = [&](int j) { return j / 2.0 * std::log(2.0) + std::lgamma(half_d + j / 2.0) - std::lgamma(half_d); };
  // Cache the per-index parts; the series needs indices up to a few times ‖z‖².
  std::vector<double> single;  // log of ‖z‖^t μ(t)(t−1)!!/t! for even t = 2·index
  auto part = [&](int t) {
    const std::size_t i = static_cast<std::size_t>(t / 2);
    while (single.size() <= i) {
      const int tt = static_cast<int>(2 * single.size());
      single.push_back(tt * log_z + log_mu(tt) + log_odd_double_factorial(tt) - std::lgamma(tt + 1.0));
    }
    return single[i];
  };
  return log_even_double_series(z_norm * z_norm / 2 + d, [&](int t, int u) { return part(t) + part(u) - log_mu(t + u); });
}

double log_orthogonal_pair_moment_1f1(double z_norm, int d) {
  require(d, z_norm);
  if (z_norm == 0) return 0;
  return boost::math::log_hypergeometric_1F1(static_cast<double>(d), d / 2.0, z_norm * z_norm / 2);
}

double log_regularized_pair_moment_series(double z_norm, int d) {
  require(d, z_norm);
  if (z_norm == 0) return 0;
  const double log_z = std::log(z_norm), log_d = std::log(static_cast<double>(d));
  // log d(d+2)⋯(d+2n−2) = n log 2 + log Γ(d/2 + n) − log Γ(d/2)
  auto log_rising = [&](int n) { return n * std::log(2.0) + std::lgamma(d / 2.0 + n) - std::lgamma(d / 2.0); };
  auto part = [&](int t) { return t * (log_z + log_d / 2) + log_odd_double_factorial(t) - std::lgamma(t + 1.0); };
  return log_even_double_series(std::sqrt(d * z_norm * z_norm / 2) + d,
                                [&](int t, int u) { return part(t) + part(u) - log_rising((t + u) / 2); });
}

double log_regularized_pair_moment_exact(double z_norm, int d) {
  require(d, z_norm);
  return log_sphere_mgf(d, std::sqrt(2.0 * d) * z_norm);
}

double same_block_pair_fraction(int m, int d) {
  require_positive_m(m);
  if (d <= 0) throw std::invalid_argument("dimension d must be positive, got " + std::to_string(d));
  const double full = m / d, rest = m % d;
  const double pairs = full * d * (d - 1.0) + rest * (rest - 1);
  return pairs / (static_cast<double>(m) * m);
}

double iid_mse(RowNorms norms, const Geometry& g, int d, int m) {
  require_positive_m(m);
  validate_geometry(g, d);
  if (norms == RowNorms::chi) return mse_positive(g, m);
  // (Λ² M(2√d‖z‖) − Λ² M(√d‖z‖)²)/m, as Λ² M(√d‖z‖)² · expm1(log M(2√d‖z‖) − 2 log M(√d‖z‖)) / m.
  const double log_f = log_sphere_mgf(d, std::sqrt(static_cast<double>(d) * g.z_sq()));
  const double log_x2 = log_second_moment_over_lambda2(norms, g, d);
  return std::exp(2 * g.log_lambda() + 2 * log_f) * std::expm1(log_x2 - 2 * log_f) / m;
}

double orthogonal_mse(RowNorms norms, const Geometry& g, int d, int m) {
  const double iid = iid_mse(norms, g, d, m);
  const double fraction = same_block_pair_fraction(m, d);
  if (fraction == 0 || g.z_sq() == 0) return iid;
  const double z = std::sqrt(g.z_sq());
  double log_gap;  // log(F² − S)
  if (norms == RowNorms::chi) {
    log_gap = log_orthogonal_pair_gap(g.z_sq() / 2, d);
  } else {
    // F² − S = M(√d‖z‖)² − M(√(2d)‖z‖) ≥ 0; relative cancellation only as ‖z‖ → 0, where both the gap and the iid
    // MSE vanish and the gap is the smaller by a factor O(‖z‖²).
    const double log_f2 = 2 * log_sphere_mgf(d, std::sqrt(static_cast<double>(d)) * z);
    const double log_s = log_regularized_pair_moment_exact(z, d);
    log_gap = log_f2 + std::log(-std::expm1(log_s - log_f2));
  }
  const double reduction = std::exp(std::log(fraction) + 2 * g.log_lambda() + log_gap);
  return iid - reduction;
}

double theorem2_claimed_bound(RowNorms norms, const Geometry& g, int d, int m) {
  if (m > d) throw std::invalid_argument("Theorem 2 is stated for m <= d, got m=" + std::to_string(m) +
                                         " > d=" + std::to_string(d));
  const double k = std::exp(log_truth(norms, g, d));
  return iid_mse(norms, g, d, m) - (1 - 1.0 / m) * 2.0 / (d + 2) * k * k;
}

double theorem2_corrected_bound(RowNorms norms, const Geometry& g, int d, int m) {
  if (m > d) throw std::invalid_argument("Theorem 2 is stated for m <= d, got m=" + std::to_string(m) +
                                         " > d=" + std::to_string(d));
  // K − Λ = Λ (F − 1), with F − 1 = expm1(log F) kept accurate for small ‖z‖.
  const double k_minus_lambda = std::exp(g.log_lambda()) * std::expm1(log_truth(norms, g, d) - g.log_lambda());
  return iid_mse(norms, g, d, m) - (1 - 1.0 / m) * 2.0 / (d + 2) * k_minus_lambda * k_minus_lambda;
}

}  // namespace favorlab
