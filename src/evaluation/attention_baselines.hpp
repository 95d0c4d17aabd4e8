#pragma once
// What an approximate attention output or matrix of one head is judged against (docs/theory.md#error-measures;
// `favorlab attention-report`). O is the exact output (Lq×dv), Ō its mean row, A the exact attention matrix.
//   relative output error   ‖Ô − O‖_F² / ‖O − 1Ōᵀ‖_F²: 1 means "no better than predicting the mean row". Undefined
//                           (NaN) when O has no variance across rows (‖O − 1Ōᵀ‖_F ≤ kNoVariance·‖O‖_F).
//   uniform attention       every query gets the mean of V (causal: the running mean of v_1..v_i) — the output when
//                           Q and K are ignored. Bidirectional: its error ‖1v̄ᵀ − O‖² = ‖O − 1Ōᵀ‖² + Lq‖Ō − v̄‖², so
//                           its relative error is at least 1.
//   rank-r floor            ‖A − A_r‖_F = (Σ_{i>r} σ_i²)^{1/2} with σ the singular values of A (Eckart–Young): no
//                           matrix of rank ≤ r is closer to A. FAVOR's bidirectional Â = D̂⁻¹Q′K′ᵀ has rank ≤ the
//                           number of feature columns (m, or 2m for trig and hyperbolic), so its error is at least
//                           the floor at that rank. Causal Â is a masked product and has no such bound.
#include <Eigen/Dense>

#include <vector>

namespace favorlab {

// Relative size below which an exact output counts as having no variance across rows (rounding of a constant row).
inline constexpr double kNoVariance = 1e-12;

// ‖O − 1Ōᵀ‖_F² (Ō the mean row of O).
double centered_sum_of_squares(const Eigen::MatrixXd& o);

// ‖approx − exact‖_F² / ‖exact − 1Ōᵀ‖_F²: +∞ when approx has a non-finite entry, NaN when exact has no variance
// across rows. Throws std::invalid_argument when the shapes differ.
double relative_output_error(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact);

// Uniform attention: rows × dv, row i the mean of all rows of v (bidirectional) or of rows 0..i (causal; rows must
// equal v.rows()). Throws std::invalid_argument for an empty v or causal rows ≠ v.rows().
Eigen::MatrixXd uniform_attention_output(const Eigen::MatrixXd& v, Eigen::Index rows, bool causal);

// Per entry of an exact output O (Lq×dv) of values v: the variance ‖O − 1Ōᵀ‖_F²/(Lq·dv) that relative errors divide
// by (0 when O has no variance across rows, as relative_output_error decides), and the MSE of uniform attention
// against O.
struct OutputBaseline {
  double variance = 0;
  double uniform_mse = 0;
};
OutputBaseline output_baseline(const Eigen::MatrixXd& exact, const Eigen::MatrixXd& v, bool causal);

// The singular values of a (descending; computed without singular vectors).
Eigen::VectorXd singular_values(const Eigen::MatrixXd& a);

// tail[r] = ‖A − A_r‖_F = (Σ_{i≥r} σ_i²)^{1/2} for r = 0..n (0-based σ, so tail[0] = ‖A‖_F and tail[n] = 0), summed
// from the smallest value up so small tails keep their digits. `sigma` descending and non-negative.
std::vector<double> rank_truncation_errors(const Eigen::VectorXd& sigma);

// The rank-r floor from truncation errors: tail[min(r, n)].
double rank_floor(const std::vector<double>& tail, int rank);

}  // namespace favorlab
