#pragma once
// The largest value of the regularized estimator with m orthogonal rows of norm √d (Theorem 3's SMREG^ort+_m).
// With u_i the rows over √d, t_i = u_iᵀẑ and κ = √d‖z‖, the estimate is Λ/m · Σ_{i≤m} e^{κ t_i}, and the t_i (the
// coordinates of ẑ in an orthonormal set) fill the ball Σ t_i² ≤ 1 (its sphere when m = d). The sum is convex, so its
// maximum lies on the sphere; there the Lagrange conditions and the second-order condition leave one shape,
// (s, r, …, r) with s² + (m − 1) r² = 1 and s ≥ r > 0, so the maximum is that of the one-variable function
//   G(φ) = e^{κ cos φ} + (m − 1) e^{κ sin φ/√(m−1)},   φ ∈ [0, atan √(m − 1)]
// (docs/theory.md#the-orthogonal-estimators-largest-value). It is found on a grid of 4096 intervals and bounded above
// by the grid's best value plus h²/8 times a bound on |G″| (h the step), so `upper` is an upper bound of the true
// maximum, not an estimate of it: above it by at most (κ² + κ√m)·4e-8 relative.
namespace favorlab {

struct RowSumMax {
  double log_attained = 0;  // log G at the best grid node: a value some feasible t reaches (up to rounding)
  double log_upper = 0;     // log of a certified upper bound of max G
};

// max of Σ_{i≤m} e^{κ t_i} over Σ t_i² ≤ 1. Throws std::invalid_argument for m < 1 or κ negative or not finite.
RowSumMax orthogonal_row_sum_max(int m, double kappa);

}  // namespace favorlab
