#include "kernels/gerf_moments.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/hypergeometric_1F1.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/orthogonal_mse.hpp"
#include "kernels/smreg.hpp"

namespace favorlab {

namespace {

void require_d(int d) {
  if (d < 1) throw std::invalid_argument("dimension d must be >= 1, got " + std::to_string(d));
}

void require_m(int m) {
  if (m < 1) throw std::invalid_argument("number of random features m must be >= 1, got " + std::to_string(m));
}

void require_a(double a) {
  if (!std::isfinite(a) || !(a < 0.125))
    throw std::invalid_argument("GERF parameter a must be finite and < 1/8, got " + std::to_string(a));
}

void require_phi(double phi) {
  if (!std::isfinite(phi) || !(phi >= 0))
    throw std::invalid_argument("phi = |x + y|^2 must be finite and >= 0, got " + std::to_string(phi));
}

void require_c(double c) {
  if (!std::isfinite(c) || !(c >= -1 && c <= 1))
    throw std::invalid_argument("row cosine c must lie in [-1, 1], got " + std::to_string(c));
}

// log((1 − 4a)²/(1 − 8a)) ≥ 0 (the numerator exceeds the denominator by 16a²); log1p keeps it accurate near a = 0.
double log_variance_factor(double a) { return 2 * std::log1p(-4 * a) - std::log1p(-8 * a); }

// a* for "dimension" d_eff at φ: (1/16)(1 − 2s − √(1 + 12s + 4s²)) with s = φ/d_eff, using
// 1 − √(1 + 12s + 4s²) = −(12s + 4s²)/(1 + √(1 + 12s + 4s²)), so nothing cancels as s → 0.
double a_star(double s) {
  const double q = 12 * s + 4 * s * s;
  return (-2 * s - q / (1 + std::sqrt(1 + q))) / 16;
}

// ---- 2-D quadrature over the chi norms --------------------------------------------------------------------------

// log of the chi_d density.
double log_chi_density(int d, double r) {
  const double norm = -(d / 2.0 - 1) * std::log(2.0) - std::lgamma(d / 2.0);
  if (d == 1) return norm - r * r / 2;
  return (d - 1) * std::log(r) - r * r / 2 + norm;
}

// ---- the multinomial series in 50-digit arithmetic --------------------------------------------------------------

using Big = boost::multiprecision::cpp_bin_float_50;

}  // namespace

double gerf_log_relative_second_moment(double phi, int d, double a) {
  require_d(d);
  require_a(a);
  require_phi(phi);
  return d / 2.0 * log_variance_factor(a) + phi / (1 - 8 * a);
}

double gerf_log_second_moment(const Geometry& g, int d, double a) {
  require_d(d);
  validate_geometry(g, d);
  // (1 + 1/(1−8a))φ − ‖x‖² − ‖y‖² = φ/(1−8a) + 2xᵀy, since φ = ‖x‖² + ‖y‖² + 2xᵀy.
  return gerf_log_relative_second_moment(g.z_sq(), d, a) + 2 * g.dot();
}

double gerf_mse_iid(const Geometry& g, int d, double a, int m) {
  require_m(m);
  const double rel = gerf_log_second_moment(g, d, a) - 2 * g.dot();
  return std::exp(2 * g.dot()) * std::expm1(rel) / m;
}

double oprf_a_star(double phi, int d) {
  require_d(d);
  require_phi(phi);
  return a_star(phi / d);
}

double gerf_log_pair_moment_orthogonal(double phi, int d, double a) {
  require_d(d);
  require_a(a);
  require_phi(phi);
  if (phi == 0) return 0;
  return boost::math::log_hypergeometric_1F1(static_cast<double>(d), d / 2.0, phi / 2);
}

double gerf_log_pair_moment_quadrature(double phi, int d, double a, double c, double* relative_error) {
  require_d(d);
  require_a(a);
  require_phi(phi);
  require_c(c);
  // ρ = D⁴ ∫∫ p(r) p(s) e^{2a(r² + s²)} ₀F₁(; d/2; B²φR²/4) dr ds,  R² = r² + s² + 2crs,  ₀F₁(; d/2; t²/4) = M_d(t).
  const double log_d4 = d * std::log1p(-4 * a);  // log D⁴
  const double beta = std::sqrt((1 - 4 * a) * phi);  // B√φ
  auto log_integrand = [&](double r, double s) {
    const double r2 = std::max(0.0, r * r + s * s + 2 * c * r * s);
    return log_d4 + log_chi_density(d, r) + log_chi_density(d, s) + 2 * a * (r * r + s * s) +
           log_sphere_mgf(d, beta * std::sqrt(r2));
  };
  // Envelope: log M_d(t) ≤ t and R ≤ r + s, so log_integrand ≤ G(r) + G(s) + const with the concave
  // G(r) = (d−1) log r − r²/(2σ²) + βr, σ² = 1/(1 − 4a); G'' ≤ −1/σ², so G(r₀ + tσ) ≤ G(r₀) − t²/2.
  const double sigma = 1 / std::sqrt(1 - 4 * a);
  const double r0 = sigma * sigma * (beta + std::sqrt(beta * beta + 4 * (d - 1) / (sigma * sigma))) / 2;
  auto log_envelope = [&](double r, double s) {
    return log_d4 + log_chi_density(d, r) + log_chi_density(d, s) + 2 * a * (r * r + s * s) + beta * (r + s);
  };
  // Shift: the integrand's maximum, located on a grid (it only has to be right within a few hundred nats).
  const double grid_end = r0 + 10 * sigma;
  const int n = 48;
  double shift = -std::numeric_limits<double>::infinity(), r_peak = r0, s_peak = r0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double r = (i + 0.5) * grid_end / n, s = (j + 0.5) * grid_end / n;
      const double v = log_integrand(r, s);
      if (v > shift) shift = v, r_peak = r, s_peak = s;
    }
  // Cut where the envelope is e^{−50} below the shift: what lies beyond is below e^{−50} of the peak pointwise.
  const double excess = std::max(0.0, log_envelope(r0, r0) - shift);
  const double upper = r0 + sigma * std::sqrt(2 * (50 + excess));
  using Quad = boost::math::quadrature::gauss_kronrod<double, 61>;
  constexpr double kTol = 1e-13;
  constexpr unsigned kDepth = 20;
  double worst_inner_error = 0;  // largest absolute error estimate of an inner integral (shifted units)
  auto inner = [&](double r) {
    if (r <= 0 && d > 1) return 0.0;
    auto f = [&](double s) { return (s <= 0 && d > 1) ? 0.0 : std::exp(log_integrand(r, s) - shift); };
    double err_lo = 0, err_hi = 0;
    const double v = Quad::integrate(f, 0.0, s_peak, kDepth, kTol, &err_lo) +
                     Quad::integrate(f, s_peak, upper, kDepth, kTol, &err_hi);
    worst_inner_error = std::max(worst_inner_error, err_lo + err_hi);
    return v;
  };
  double err_lo = 0, err_hi = 0;
  const double total = Quad::integrate(inner, 0.0, r_peak, kDepth, kTol, &err_lo) +
                       Quad::integrate(inner, r_peak, upper, kDepth, kTol, &err_hi);
  if (!(total > 0)) throw std::runtime_error("pair-moment quadrature underflowed");
  // Outer estimate plus the inner errors integrated over the outer range (bounded by their maximum times its length).
  if (relative_error != nullptr) *relative_error = (err_lo + err_hi + worst_inner_error * upper) / total;
  return std::log(total) + shift;
}

double gerf_log_pair_moment_series(double phi, int d, double a, double c) {
  require_d(d);
  require_a(a);
  require_phi(phi);
  require_c(c);
  if (phi == 0) return 0;  // only k = 0: D⁴ μ̃_0² = (1−4a)^d (1−4a)^{−d} = 1
  const Big one_minus_4a = 1 - Big(4) * a;
  const Big tilt = 1 / one_minus_4a;              // μ̃_p = μ_p tilt^{(d+p)/2}
  const Big kappa = one_minus_4a * Big(phi) / 4;  // B²φ/4
  const Big two_c = 2 * Big(c);
  const Big d4 = pow(one_minus_4a, Big(d));       // D⁴
  const Big sqrt_tilt = sqrt(tilt);
  // μ_0 = 1, μ_1 = √2 Γ((d+1)/2)/Γ(d/2), μ_{p+2} = (d + p) μ_p.
  std::vector<Big> mu{pow(tilt, Big(d) / 2),
                      pow(tilt, Big(d) / 2) * sqrt_tilt * sqrt(Big(2)) /
                          boost::math::tgamma_delta_ratio(Big(d) / 2, Big(1) / 2)};
  std::vector<Big> inv_fact{Big(1)};
  auto mu_at = [&](int p) -> const Big& {
    while (static_cast<int>(mu.size()) <= p) {
      const int q = static_cast<int>(mu.size());  // μ̃_q = (d + q − 2) μ̃_{q−2} / (1 − 4a)
      mu.push_back(mu[q - 2] * (d + q - 2) * tilt);
    }
    return mu[p];
  };
  auto inv_fact_at = [&](int k) -> const Big& {
    while (static_cast<int>(inv_fact.size()) <= k)
      inv_fact.push_back(inv_fact.back() / Big(static_cast<int>(inv_fact.size())));
    return inv_fact[k];
  };
  // v[j][i] = μ̃_{2i+j}/i!, filled as k grows (the inner sums are self-convolutions of these rows).
  std::vector<std::vector<Big>> v;
  auto row = [&](int j, int length) -> const std::vector<Big>& {
    while (static_cast<int>(v.size()) <= j) v.emplace_back();
    std::vector<Big>& r = v[j];
    while (static_cast<int>(r.size()) < length) {
      const int i = static_cast<int>(r.size());
      r.push_back(inv_fact_at(i) * mu_at(2 * i + j));
    }
    return r;
  };
  Big sum = 0, abs_sum = 0, prefactor = 1;  // prefactor = κ^k/(d/2)_k
  double last_abs = std::numeric_limits<double>::infinity();
  int k = 0;
  for (;; ++k) {
    if (k > 0) prefactor *= kappa / (Big(d) / 2 + (k - 1));
    // inner = Σ_j (2c)^j/j! Σ_{a'+b'=k−j} μ̃_{2a'+j} μ̃_{2b'+j}/(a'! b'!)  (the k! of the multinomial cancels 1/k!)
    Big inner = 0, abs_inner = 0, power = 1;
    for (int j = 0; j <= k; ++j) {
      if (j > 0) {
        if (c == 0) break;
        power *= two_c;
      }
      const int rest = k - j;
      const std::vector<Big>& r = row(j, rest + 1);
      Big conv = 0;
      for (int i = 0; 2 * i < rest; ++i) conv += r[i] * r[rest - i];  // symmetric: pairs (i, rest − i) twice
      conv *= 2;
      if (rest % 2 == 0) conv += r[rest / 2] * r[rest / 2];
      conv *= inv_fact_at(j);
      inner += power * conv;
      abs_inner += abs(power) * conv;
    }
    const Big term = prefactor * inner, abs_term = prefactor * abs_inner;
    sum += term;
    abs_sum += abs_term;
    const double at = static_cast<double>(abs_term / abs_sum);
    // Entire series: past its peak the terms fall super-geometrically; stop once negligible and falling.
    if (k > 2 && at < 1e-32 && at < last_abs) break;
    last_abs = at;
    if (k > 20000) throw std::runtime_error("pair-moment series did not converge");
  }
  // Rounding: each term carries O(k) roundings of ~1e-50 relative to its absolute value.
  const double lost = sum > 0 ? static_cast<double>(abs_sum / sum) * 1e-49 * (k + 1) : 1.0;
  if (!(sum > 0) || lost > 1e-13)
    throw std::runtime_error("pair-moment series lost too many digits to cancellation (phi=" + std::to_string(phi) +
                             ", c=" + std::to_string(c) + ")");
  return static_cast<double>(log(d4 * sum));
}

double gerf_block_mse(const Geometry& g, int d, double a, int m, double log_rho) {
  require_m(m);
  const double rel_iid = gerf_log_second_moment(g, d, a) - 2 * g.dot();
  if (std::isnan(log_rho)) throw std::invalid_argument("log_rho must not be NaN");
  const double fraction = same_block_pair_fraction(m, d);
  // pair moment/SM² − 1 = e^{log ρ − φ} − 1
  return std::exp(2 * g.dot()) * (std::expm1(rel_iid) / m + fraction * std::expm1(log_rho - g.z_sq()));
}

double gerf_orthogonal_mse(const Geometry& g, int d, double a, int m) {
  require_d(d);
  validate_geometry(g, d);
  return gerf_block_mse(g, d, a, m, gerf_log_pair_moment_orthogonal(g.z_sq(), d, a));
}

double math_md_oprf_orf_mse_as_stated(const Geometry& g, int d, double a, int m) {
  require_m(m);
  const double iid = gerf_mse_iid(g, d, a, m);
  const double log_1f1 = gerf_log_pair_moment_orthogonal(g.z_sq(), d, 0.0);
  return iid + (1 - 1.0 / m) * std::exp(2 * g.dot()) * std::expm1(log_1f1 - g.z_sq());
}

// ---- SDERF ------------------------------------------------------------------------------------------------------

Eigen::VectorXd sderf_eigen_a(const Eigen::VectorXd& lambda) {
  Eigen::VectorXd a(lambda.size());
  for (Eigen::Index l = 0; l < lambda.size(); ++l) {
    if (!std::isfinite(lambda(l)) || !(lambda(l) >= 0))
      throw std::invalid_argument("eigenvalue lambda[" + std::to_string(l) + "] must be finite and >= 0, got " +
                                  std::to_string(lambda(l)));
    a(l) = a_star(lambda(l));  // the d = 1 OPRF optimum at φ = λ_l
  }
  return a;
}

SderfParameters sderf_parameters(const Eigen::MatrixXd& m) {
  if (m.rows() != m.cols() || m.rows() < 1)
    throw std::invalid_argument("M must be a non-empty square matrix, got " + std::to_string(m.rows()) + "x" +
                                std::to_string(m.cols()));
  if (!m.allFinite()) throw std::invalid_argument("M must be finite");
  const double scale = m.cwiseAbs().maxCoeff();
  if ((m - m.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale) throw std::invalid_argument("M must be symmetric");
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  if (eig.info() != Eigen::Success) throw std::runtime_error("eigendecomposition of M failed");
  Eigen::VectorXd lambda = eig.eigenvalues();
  for (Eigen::Index l = 0; l < lambda.size(); ++l) {
    if (lambda(l) < -1e-12 * scale)
      throw std::invalid_argument("M must be positive semi-definite, eigenvalue " + std::to_string(lambda(l)));
    lambda(l) = std::max(lambda(l), 0.0);
  }
  return {sderf_eigen_a(lambda), eig.eigenvectors()};
}

double sderf_log_second_moment(const Eigen::VectorXd& a, const Eigen::MatrixXd& q, const Eigen::VectorXd& x,
                               const Eigen::VectorXd& y) {
  const Eigen::Index d = a.size();
  if (d < 1) throw std::invalid_argument("a must be non-empty");
  if (q.rows() != d || q.cols() != d || x.size() != d || y.size() != d)
    throw std::invalid_argument("q must be d x d and x, y of size d = size of a");
  for (Eigen::Index l = 0; l < d; ++l)
    if (!std::isfinite(a(l)) || !(a(l) < 0.125))
      throw std::invalid_argument("a[" + std::to_string(l) + "] must be finite and < 1/8, got " + std::to_string(a(l)));
  if ((q.transpose() * q - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff() > 1e-10)
    throw std::invalid_argument("q must be orthogonal");
  if (!x.allFinite() || !y.allFinite()) throw std::invalid_argument("x and y must be finite");
  const Eigen::VectorXd z = q.transpose() * (x + y);  // z_l = q_lᵀ z
  double out = -x.squaredNorm() - y.squaredNorm();
  for (Eigen::Index l = 0; l < d; ++l) out += 0.5 * log_variance_factor(a(l)) + (1 + 1 / (1 - 8 * a(l))) * z(l) * z(l);
  return out;
}

double sderf_mse_iid(const Eigen::VectorXd& a, const Eigen::MatrixXd& q, const Eigen::VectorXd& x,
                     const Eigen::VectorXd& y, int m) {
  require_m(m);
  const double log_sm = x.dot(y);
  return std::exp(2 * log_sm) * std::expm1(sderf_log_second_moment(a, q, x, y) - 2 * log_sm) / m;
}

double sderf_pair_mse_iid(const Geometry& g, int d, int m) {
  require_d(d);
  require_m(m);
  validate_geometry(g, d);
  const double phi = g.z_sq();
  const double a = a_star(phi);  // λ = (φ, 0, …, 0): a = a*(φ) along z; a_l = a*(0) = 0 across contributes nothing
  return std::exp(2 * g.dot()) * std::expm1(0.5 * log_variance_factor(a) + phi / (1 - 8 * a)) / m;
}

}  // namespace favorlab
