#include "stats/bias_variance.hpp"

#include <cmath>
#include <stdexcept>

namespace favorlab {

BiasVariance bias_variance(const std::vector<ErrorBlock>& blocks, int leave_out) {
  if (blocks.empty()) throw std::invalid_argument("bias-variance split: no blocks");
  const auto& first = blocks.front();
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(first.sum.rows(), first.sum.cols()), sum_sq = sum;
  std::int64_t n = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].sum.rows() != first.sum.rows() || blocks[b].sum.cols() != first.sum.cols())
      throw std::invalid_argument("bias-variance split: blocks of different shapes");
    if (static_cast<int>(b) == leave_out) continue;
    sum += blocks[b].sum;
    sum_sq += blocks[b].sum_sq;
    n += blocks[b].draws;
  }
  if (n < 2) throw std::invalid_argument("bias-variance split needs at least 2 draws");
  const double nd = static_cast<double>(n);
  const Eigen::ArrayXXd mean = sum.array() / nd;
  // s² = (Σ Y² − N Ȳ²)/(N − 1), per entry.
  const Eigen::ArrayXXd var = (sum_sq.array() - nd * mean.square()) / (nd - 1);
  BiasVariance out;
  out.variance = var.mean();
  out.bias_sq = mean.square().mean() - out.variance / nd;
  out.draws = n;
  return out;
}

double jackknife_standard_error(const std::vector<ErrorBlock>& blocks,
                                const std::function<double(const BiasVariance&)>& f) {
  const std::size_t J = blocks.size();
  if (J < 2) throw std::invalid_argument("jackknife needs at least 2 blocks");
  std::vector<double> values(J);
  double mean = 0;
  for (std::size_t b = 0; b < J; ++b) {
    values[b] = f(bias_variance(blocks, static_cast<int>(b)));
    mean += values[b] / static_cast<double>(J);
  }
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  return std::sqrt(static_cast<double>(J - 1) / static_cast<double>(J) * ss);
}

}  // namespace favorlab
