#include "kernels/error_moments.hpp"

#include <algorithm>

#include <array>
#include <limits>
#include <boost/math/special_functions/binomial.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

namespace favorlab {

namespace {

using Real = boost::multiprecision::cpp_bin_float_50;
constexpr int kOrder = 6;
using Moments = std::array<Real, kOrder + 1>;  // index k: the k-th moment, k = 0..6

Real binom(int n, int k) { return Real(boost::math::binomial_coefficient<double>(n, k)); }

// E[e^{t u₁}] for u uniform on S^{d−1}: Σ_j t^{2j}/(2j)! · (2j−1)!!/(d(d+2)⋯(d+2j−2)); all terms positive.
Real sphere_mgf(int d, const Real& t) {
  Real term = 1, sum = 1;
  const Real t2 = t * t;
  for (int j = 0; j < 100000; ++j) {
    term *= t2 / (Real(2 * j + 2) * Real(d + 2 * j));
    sum += term;
    if (term < sum * Real("1e-52")) break;
  }
  return sum;
}

// E[X^k] for k = 0..6, one model's raw moment per k.
template <class RawMoment>
Moments raw_moments(RawMoment raw_moment) {
  Moments raw;
  for (int k = 0; k <= kOrder; ++k) raw[k] = raw_moment(k);
  return raw;
}

Moments positive_raw(const Geometry& g) {
  const Real z2(g.z_sq()), log_lambda(g.log_lambda());
  return raw_moments([&](int k) { return Real(exp(Real(k) * log_lambda + Real(k * k) * z2 / 2)); });
}

Moments hyperbolic_raw(const Geometry& g) {
  const Real z2(g.z_sq()), log_lambda(g.log_lambda());
  return raw_moments([&](int k) {
    Real sum = 0;
    for (int j = 0; j <= k; ++j) sum += binom(k, j) * exp(Real((k - 2 * j) * (k - 2 * j)) * z2 / 2);
    sum *= exp(Real(k) * log_lambda) / pow(Real(2), k);
    return sum;
  });
}

Moments trig_raw(const Geometry& g) {
  const Real delta2(g.delta_sq()), log_lambda(g.log_lambda());
  return raw_moments([&](int k) {
    Real sum = 0;
    for (int j = 0; j <= k; ++j) sum += binom(k, j) * exp(-Real((k - 2 * j) * (k - 2 * j)) * delta2 / 2);
    sum *= exp(-Real(k) * log_lambda) / pow(Real(2), k);
    return sum;
  });
}

Moments smreg_raw(const Geometry& g, int d) {
  const Real z2(g.z_sq()), log_lambda(g.log_lambda());
  return raw_moments(
      [&](int k) { return Real(exp(Real(k) * log_lambda) * sphere_mgf(d, Real(k) * sqrt(Real(d) * z2))); });
}

// X = (1 − 4A)^{d'/2} Λ exp(2A‖ω‖² + √(1 − 4A) ωᵀz) in d' dimensions (features/gerf_projection.hpp),
// E[X^k] = (1 − 4A)^{kd'/2} Λ^k (1 − 4kA)^{−d'/2} exp(k²(1 − 4A)‖z‖²/(2(1 − 4kA))), infinite once 4kA ≥ 1.
Moments gerf_raw(const Geometry& g, const PairGerf& pg) {
  const Real z2(g.z_sq()), log_lambda(g.log_lambda());
  const Real a(pg.a), dim(pg.dimension);
  return raw_moments([&](int k) {
    if (4 * k * pg.a >= 1) return Real(std::numeric_limits<Real>::infinity());
    return Real(exp(Real(k) * log_lambda + Real(k) * dim / 2 * log1p(-4 * a) - dim / 2 * log1p(-4 * Real(k) * a) +
                    Real(k * k) * (1 - 4 * a) * z2 / (2 * (1 - 4 * Real(k) * a))));
  });
}

// The error moments of the mean of m iid features from the raw moments of one.
ErrorMoments from_raw_moments(const Moments& raw, int m) {
  if (!boost::multiprecision::isfinite(raw[kOrder])) {
    ErrorMoments out;
    // A variance that is 0 in theory can come out of the subtraction as −1e-52: never below 0.
    out.variance = boost::multiprecision::isfinite(raw[2])
                       ? std::max(0.0, static_cast<double>((raw[2] - raw[1] * raw[1]) / Real(m)))
                       : std::numeric_limits<double>::infinity();
    out.error_skewness = boost::multiprecision::isfinite(raw[3]) ? 0.0 : std::numeric_limits<double>::infinity();
    out.squared_error_skewness = std::numeric_limits<double>::infinity();
    out.squared_error_variance = std::numeric_limits<double>::infinity();
    if (boost::multiprecision::isfinite(raw[4])) {
      // Var(e²) needs moments up to the fourth only: μ₂ = κ₂/m, μ₄ = κ₄/m³ + 3μ₂².
      const Real mu = raw[1], c2 = raw[2] - mu * mu;
      const Real c4 = raw[4] - 4 * raw[3] * mu + 6 * raw[2] * mu * mu - 3 * pow(mu, 4);
      const Real mm(m), s2 = c2 / mm, mu4 = (c4 - 3 * c2 * c2) / pow(mm, 3) + 3 * s2 * s2;
      out.squared_error_variance = std::max(0.0, static_cast<double>(mu4 - s2 * s2));
    }
    return out;
  }
  const Real mean = raw[1];
  Moments c;  // central moments of one feature
  for (int k = 0; k <= kOrder; ++k) {
    c[k] = 0;
    for (int j = 0; j <= k; ++j) c[k] += binom(k, j) * raw[j] * pow(-mean, k - j);
  }
  // Cumulants of one feature, scaled to the mean of m features, then back to central moments of the error.
  const Real k2 = c[2], k3 = c[3], k4 = c[4] - 3 * c[2] * c[2], k5 = c[5] - 10 * c[3] * c[2],
             k6 = c[6] - 15 * c[4] * c[2] - 10 * c[3] * c[3] + 30 * pow(c[2], 3);
  const Real mm(m);
  const Real s2 = k2 / mm, s3 = k3 / pow(mm, 2), s4 = k4 / pow(mm, 3), s6 = k6 / pow(mm, 5);
  (void)k5;  // the 5th cumulant enters no quantity used here (μ₆ = κ₆ + 15κ₄κ₂ + 10κ₃² + 15κ₂³)
  const Real mu2 = s2, mu3 = s3, mu4 = s4 + 3 * s2 * s2, mu6 = s6 + 15 * s4 * s2 + 10 * s3 * s3 + 15 * pow(s2, 3);

  ErrorMoments out;
  out.variance = std::max(0.0, static_cast<double>(mu2));  // 0 in theory can be −1e-52 after the subtractions
  // Exact (or exact up to rounding) where the feature does not vary: e.g. positive features at z = 0.
  if (mu2 <= pow(mean, 2) * Real("1e-40")) {
    out.degenerate = true;
    return out;
  }
  out.error_skewness = static_cast<double>(mu3 / pow(mu2, Real(1.5)));
  const Real var_sq = mu4 - mu2 * mu2;               // Var(e²)
  const Real third_sq = mu6 - 3 * mu4 * mu2 + 2 * pow(mu2, 3);  // E[(e² − E e²)³]
  out.squared_error_skewness = static_cast<double>(third_sq / pow(var_sq, Real(1.5)));
  out.squared_error_variance = std::max(0.0, static_cast<double>(var_sq));
  return out;
}

}  // namespace

ErrorMoments trig_error_moments(const Geometry& g, int, int m, const PairGerf&) {
  return from_raw_moments(trig_raw(g), m);
}

ErrorMoments positive_error_moments(const Geometry& g, int, int m, const PairGerf&) {
  return from_raw_moments(positive_raw(g), m);
}

ErrorMoments hyperbolic_error_moments(const Geometry& g, int, int m, const PairGerf&) {
  return from_raw_moments(hyperbolic_raw(g), m);
}

ErrorMoments smreg_error_moments(const Geometry& g, int d, int m, const PairGerf&) {
  return from_raw_moments(smreg_raw(g, d), m);
}

ErrorMoments gerf_error_moments(const Geometry& g, int, int m, const PairGerf& pair) {
  return from_raw_moments(gerf_raw(g, pair), m);
}

}  // namespace favorlab
