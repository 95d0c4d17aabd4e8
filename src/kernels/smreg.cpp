#include "kernels/smreg.hpp"

#include <boost/math/special_functions/bessel.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace favorlab {

namespace {

// log I_ν(t) for large t from the Hankel expansion  I_ν(t) ~ e^t/√(2πt) Σ_k (−1)^k a_k(ν)/t^k, summed while the terms
// shrink (it is asymptotic). Only used beyond long double's range, where t ≫ ν² for every d this toolkit sweeps.
double log_bessel_i_hankel(double nu, double t) {
  const double mu = 4 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double next = -term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * t);
    if (std::abs(next) >= std::abs(term)) break;
    term = next;
    sum += term;
    if (std::abs(term) < 1e-17 * std::abs(sum)) break;
  }
  return t - 0.5 * std::log(2 * M_PI * t) + std::log(sum);
}

double log_bessel_i(double nu, double t) {
  // long double reaches I_ν(t) up to t ≈ 11350 on x86-64 (80-bit); beyond that the asymptotic series is accurate.
  if (t < 11000) return static_cast<double>(std::log(boost::math::cyl_bessel_i(static_cast<long double>(nu),
                                                                               static_cast<long double>(t))));
  return log_bessel_i_hankel(nu, t);
}

}  // namespace

double log_sphere_mgf(int d, double t) {
  if (d <= 0) throw std::invalid_argument("dimension d must be positive");
  if (!(t >= 0)) throw std::invalid_argument("sphere MGF needs t >= 0");
  if (t == 0) return 0;
  const double nu = d / 2.0 - 1;
  if (t <= 2) {
    // Small t: the Bessel form cancels O(1) terms down to a tiny result. The power series
    // E[e^{t u₁}] = Σ_j t^{2j}/(2j)! · A(2j, d) has positive terms and converges fast here.
    double term = 1, excess = 0;
    for (int j = 0; j < 100; ++j) {
      term *= t * t / ((2.0 * j + 2) * (d + 2.0 * j));
      excess += term;
      if (term < 1e-17 * excess) break;
    }
    return std::log1p(excess);
  }
  return std::lgamma(d / 2.0) + (1 - d / 2.0) * std::log(t / 2) + log_bessel_i(nu, t);
}

double log_smreg_exact(const Geometry& g, int d) {
  return g.log_lambda() + log_sphere_mgf(d, std::sqrt(static_cast<double>(d) * g.z_sq()));
}

double smreg_exact(const Geometry& g, int d) { return std::exp(log_smreg_exact(g, d)); }

namespace {

// log of e^{−w} Σ_k w^k f(k, d)/k! = M_d(√(2dw)) e^{−w}, f(k, d) = d^k/(d(d+2)⋯(d+2k−2)), by a running log-sum-exp
// of the Poisson-weighted terms: the sum stays near 0 in the log, which keeps its rounding small.
double log_poisson_moment_series(int d, double w) {
  if (d <= 0) throw std::invalid_argument("dimension d must be positive");
  if (w == 0) return 0;
  double log_f = 0, log_sum = -std::numeric_limits<double>::infinity();
  for (int k = 0;; ++k) {
    if (k > 0) log_f += std::log(static_cast<double>(d)) - std::log(d + 2.0 * (k - 1));
    const double log_term = -w + k * std::log(w) - std::lgamma(k + 1.0) + log_f;
    const double hi = std::max(log_sum, log_term);
    log_sum = hi + std::log(std::exp(log_sum - hi) + std::exp(log_term - hi));
    // Past the Poisson mode the terms fall at least geometrically; stop once they no longer matter.
    if (k > w && log_term < log_sum - 40) break;
    if (k > 10'000'000) throw std::runtime_error("SMREG series did not converge");
  }
  return log_sum;
}

}  // namespace

double log_sphere_mgf_series(int d, double t) {
  if (d <= 0) throw std::invalid_argument("dimension d must be positive");
  if (!(t >= 0)) throw std::invalid_argument("sphere MGF needs t >= 0");
  const double w = t * t / (2.0 * d);
  return log_poisson_moment_series(d, w) + w;
}

double log_smreg_ratio_series(const Geometry& g, int d) {
  return log_poisson_moment_series(d, g.z_sq() / 2);
}

double smreg_series(const Geometry& g, int d) { return std::exp(g.dot() + log_smreg_ratio_series(g, d)); }

}  // namespace favorlab
