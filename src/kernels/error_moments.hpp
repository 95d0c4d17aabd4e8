#pragma once
// Exact central moments of an estimator's error with m iid projections, from the closed-form moments of one
// feature X (the estimate with m = 1):
//   positive   X = Λ e^a,                a ~ N(0, ‖z‖²)        E[X^k] = Λ^k e^{k²‖z‖²/2}
//   hyperbolic X = Λ cosh a,             a ~ N(0, ‖z‖²)        E[X^k] = Λ^k 2^{−k} Σ_j C(k,j) e^{(k−2j)²‖z‖²/2}
//   trig       X = e^{(‖x‖²+‖y‖²)/2} cos a, a ~ N(0, ‖Δ‖²)     E[cos^k a] = 2^{−k} Σ_j C(k,j) e^{−(k−2j)²‖Δ‖²/2}
//   smreg      X = Λ e^{√d ‖z‖ u₁}, u uniform on S^{d−1}      E[X^k] = Λ^k E[e^{k√d‖z‖u₁}] (power series in A(2j, d))
// The mean of m iid features has cumulants κ_k(X)/m^{k−1}. The arithmetic runs in 50 significant digits so that the
// central moments survive the cancellation of nearly equal raw moments when the variance is small.
//
// Used a priori (before any sampling) to judge whether a Monte Carlo z test of a mean or of an MSE can be trusted at a
// given trial count: the skewness of the quantity averaged over trials decides (stats/edgeworth.hpp).
#include "kernels/geometry.hpp"
#include "kernels/pair_gerf.hpp"

namespace favorlab {

struct ErrorMoments {
  double variance = 0;                 // E[e²] — the MSE of an unbiased estimator
  double error_skewness = 0;           // skewness of e (what the mean test averages)
  double squared_error_skewness = 0;   // skewness of e² (what the MSE test averages)
  double squared_error_variance = 0;   // Var(e²) = E[e⁴] − E[e²]²; +inf where the fourth moment does not exist
  bool degenerate = false;             // the estimator is exact here (variance 0 up to 50-digit rounding)
};

// One model of the feature X per function, all of one signature so that a family's row can point at its model
// (features/feature_family.hpp); `pair` is read by the gerf model only, d by the smreg model only.
//   gerf: X = (1 − 4A)^{d'/2} Λ exp(2A‖ω‖² + √(1 − 4A) ωᵀz) with the pair's A and d' (gerf, oprf, sderf, and positive
//   at A = 0); a moment that does not exist (4kA ≥ 1, k ≤ 6) gives infinite skewnesses, which the checks read as
//   "heavy tailed".
using ErrorMomentsFn = ErrorMoments (*)(const Geometry& g, int d, int m, const PairGerf& pair);
ErrorMoments trig_error_moments(const Geometry& g, int d, int m, const PairGerf& pair);
ErrorMoments positive_error_moments(const Geometry& g, int d, int m, const PairGerf& pair);
ErrorMoments hyperbolic_error_moments(const Geometry& g, int d, int m, const PairGerf& pair);
ErrorMoments smreg_error_moments(const Geometry& g, int d, int m, const PairGerf& pair);
ErrorMoments gerf_error_moments(const Geometry& g, int d, int m, const PairGerf& pair);

}  // namespace favorlab
