#pragma once
// One regularized positive feature and its moment generating function (docs/theory.md#tail-bounds-theorem-3).
//   X = Λ exp(√d ωᵀz/‖ω‖), ω ~ N(0, I_d)  ⇔  X = Λ exp(t u₁), t = √d ‖z‖,
// u₁ the first coordinate of a uniform unit vector, with density (1 − s²)^{(d−3)/2} / B(1/2, (d−1)/2) on [−1, 1]
// (d ≥ 2); for d = 1, u₁ = ±1 with probability ½ each.
// The estimator SMREG^+_m is the mean of m such features (iid rows) — E[X] = SMREG(x, y).
// X is bounded: Λe^{−t} ≤ X ≤ Λe^{t} (max_value()).
//
// log M_X(θ) = log E[exp(θX)] is computed two independent ways:
//   quadrature: a 1-D integral over u₁ (Boost.Math tanh_sinh), with the largest exponent θ·max X (θ ≥ 0) factored
//               out, so it stays finite where M_X itself overflows (for small |θ|·range, centred on θ·E[X] instead,
//               so the small log M_X keeps its relative precision);
//   series:     Σ_k θ^k Λ^k E[e^{k t u₁}] / k! (the sphere MGF by Bessel functions, summed in logs) — for tests.
#include "kernels/geometry.hpp"

namespace favorlab {

class RegularizedFeature {
 public:
  // Throws std::invalid_argument for d ≤ 0 or an invalid geometry.
  RegularizedFeature(const Geometry& g, int d);

  int d() const { return d_; }
  double t() const { return t_; }             // √d ‖z‖
  double log_lambda() const { return log_lambda_; }
  double mean() const;                         // E[X] = SMREG(x, y)
  double max_value() const;                    // Λ e^{t}: the supremum of X
  double min_value() const;                    // Λ e^{−t}
  // P[X = max_value()]: ½ for d = 1 with t > 0, 1 when t = 0, 0 otherwise (X has a density).
  double top_atom() const;

  // log M_X(θ) by quadrature, any finite θ.
  double log_mgf(double theta) const;
  // E[X e^{θX}] / E[e^{θX}]: the mean of X tilted by θ, the derivative of log M_X.
  double tilted_mean(double theta) const;
  // log M_X(θ) by the power series; θ ≥ 0. For tests (slow once θ·max X is large).
  double log_mgf_series(double theta) const;

 private:
  // By tanh_sinh over u₁ (d ≥ 2), for power 0 or 1:
  //   Shift::top     ∫ density(s) · exp(θ(X(s) − max X)) · X(s)^power ds
  //   Shift::bottom  ∫ density(s) · exp(θ(X(s) − min X)) · X(s)^power ds
  //   Shift::mean    ∫ density(s) · expm1(θ(X(s) − E X)) ds   (power ignored)
  // with the top/bottom integrands multiplied by e^{−offset} (offset from peak_log_integrand).
  enum class Shift { top, bottom, mean };
  double integral(double theta, Shift shift, int power, double offset) const;
  // About the largest log of the top/bottom integrand (0 where no rescaling is needed).
  double peak_log_integrand(double theta, Shift shift) const;
  int d_;
  double t_, log_lambda_, log_norm_, mean_;  // log_norm_ = −log B(1/2, (d−1)/2); mean_ = E[X]
};

}  // namespace favorlab
