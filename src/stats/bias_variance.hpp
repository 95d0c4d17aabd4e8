#pragma once
// Bias–variance split of a matrix-valued estimator from N independent draws Y_1..Y_N of its error Y = estimate − truth
// (for FAVOR: the attention output of one projection draw minus the exact output), averaged over the entries:
//   B = mean_entries (E Y)²          squared bias        V = mean_entries Var(Y)        variance of one draw
// so the average of k independent draws has expected MSE  E[mean_entries (Ȳ_k)²] = B + V/k.
// Unbiased estimates from the draws: V̂ = mean_entries s² (sample variance, N − 1) and B̂ = mean_entries Ȳ² − V̂/N
// (E[Ȳ²] = (EY)² + Var/N per entry). B̂ can be negative when the bias is below the noise.
// The draws are accumulated in blocks (sums of Y and Y² per entry); the blocks give delete-a-block jackknife standard
// errors (Efron & Stein 1981) of any smooth function f(B̂, V̂).
#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <vector>

namespace favorlab {

struct ErrorBlock {
  Eigen::MatrixXd sum, sum_sq;  // Σ Y and Σ Y² over the block's draws, per entry
  std::int64_t draws = 0;

  ErrorBlock(Eigen::Index rows, Eigen::Index cols)
      : sum(Eigen::MatrixXd::Zero(rows, cols)), sum_sq(Eigen::MatrixXd::Zero(rows, cols)) {}
  void add(const Eigen::MatrixXd& error) {
    sum += error;
    sum_sq += error.cwiseAbs2();
    ++draws;
  }
};

struct BiasVariance {
  double bias_sq = 0;   // B̂
  double variance = 0;  // V̂
  std::int64_t draws = 0;
};

// From all blocks, or from all but block `leave_out` (≥ 0). Throws std::invalid_argument with fewer than 2 draws,
// no blocks or blocks of different shapes.
BiasVariance bias_variance(const std::vector<ErrorBlock>& blocks, int leave_out = -1);

// Delete-a-block jackknife standard error of f(bias_variance(blocks)): √((J−1)/J Σ_b (f_(b) − f̄)²). Needs J ≥ 2.
double jackknife_standard_error(const std::vector<ErrorBlock>& blocks,
                                const std::function<double(const BiasVariance&)>& f);

}  // namespace favorlab
