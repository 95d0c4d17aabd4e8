#pragma once
// Why a head is hard for random features (`favorlab attention-report`): the sizes FAVOR's error grows with, read from
// the head's own queries and keys. With x_i = q_i d^{-1/4} and y_j = k_j d^{-1/4} (the scaled inputs every mechanism
// uses, so x_iᵀy_j is the logit):
//   token norms         quantiles 0.1, 0.5, 0.9 of ‖x_i‖ and of ‖y_j‖;
//   row entropy         H_i = −Σ_j A_ij ln A_ij of the exact bidirectional attention rows (ln L: uniform; 0: one key),
//                       mean and minimum over rows;
//   logit range         max over rows of (max_j − min_j) x_iᵀy_j;
//   median pair         the pair (i, j) with the median ‖x_i + y_j‖² (over every pair, or over a strided grid of at
//                       most kMedianPairs pairs for long inputs): Lemma 2 predicts the relative MSE of the positive
//                       estimate of exp(x_iᵀy_j) with m iid features as (exp(‖x + y‖²) − 1)/m, and this pair is the
//                       typical one.
// Computed in blocks of query rows: memory O(block·L) plus the pair sample, never an L×L matrix.
#include <Eigen/Dense>

#include <cstdint>

namespace favorlab {

inline constexpr std::int64_t kMedianPairs = std::int64_t{1} << 22;

struct HeadDiagnostics {
  double q_norm_q10 = 0, q_norm_q50 = 0, q_norm_q90 = 0;
  double k_norm_q10 = 0, k_norm_q50 = 0, k_norm_q90 = 0;
  double row_entropy_mean = 0, row_entropy_min = 0;  // nats
  double max_logit_range = 0;
  double median_pair_z_sq = 0;  // ‖x + y‖² of the median pair
  std::int64_t pairs_sampled = 0;
};

// q: Lq×d, k: L×d raw (unscaled), finite, non-empty. Throws std::invalid_argument otherwise.
HeadDiagnostics head_diagnostics(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k);

// Lemma 2's relative MSE of the positive estimate with m iid features at ‖x + y‖² = z_sq: (exp(z_sq) − 1)/m.
double lemma2_positive_relative_mse(double z_sq, int m);

}  // namespace favorlab
