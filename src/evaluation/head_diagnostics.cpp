#include "evaluation/head_diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "stats/sample_quantile.hpp"

namespace favorlab {

namespace {

constexpr Eigen::Index kBlock = 256;  // query rows per block: a block of logits is kBlock × L

std::vector<double> sorted_row_norms(const Eigen::MatrixXd& x) {
  std::vector<double> norms(static_cast<std::size_t>(x.rows()));
  for (Eigen::Index i = 0; i < x.rows(); ++i) norms[static_cast<std::size_t>(i)] = x.row(i).norm();
  std::sort(norms.begin(), norms.end());
  return norms;
}

// The smallest stride s with ⌈n/s⌉ ≤ limit.
Eigen::Index stride_for(Eigen::Index n, Eigen::Index limit) {
  Eigen::Index s = 1;
  while ((n + s - 1) / s > limit) ++s;
  return s;
}

}  // namespace

HeadDiagnostics head_diagnostics(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k) {
  if (q.rows() == 0 || k.rows() == 0 || q.cols() == 0)
    throw std::invalid_argument("head diagnostics: empty queries or keys");
  if (q.cols() != k.cols()) throw std::invalid_argument("head diagnostics: queries and keys differ in dimension");
  if (!q.allFinite() || !k.allFinite()) throw std::invalid_argument("head diagnostics: non-finite queries or keys");
  const double scale = std::pow(static_cast<double>(q.cols()), -0.25);
  const Eigen::MatrixXd x = q * scale, y = k * scale;

  HeadDiagnostics h;
  const auto qn = sorted_row_norms(x), kn = sorted_row_norms(y);
  h.q_norm_q10 = sample_quantile(qn, 0.1);
  h.q_norm_q50 = sample_quantile(qn, 0.5);
  h.q_norm_q90 = sample_quantile(qn, 0.9);
  h.k_norm_q10 = sample_quantile(kn, 0.1);
  h.k_norm_q50 = sample_quantile(kn, 0.5);
  h.k_norm_q90 = sample_quantile(kn, 0.9);

  // Entropy and logit range, one block of query rows at a time.
  double entropy_sum = 0, entropy_min = INFINITY, range_max = 0;
  for (Eigen::Index start = 0; start < x.rows(); start += kBlock) {
    const Eigen::Index rows = std::min(kBlock, x.rows() - start);
    const Eigen::MatrixXd logits = x.middleRows(start, rows) * y.transpose();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const auto row = logits.row(i);
      const double top = row.maxCoeff();
      range_max = std::max(range_max, top - row.minCoeff());
      const Eigen::ArrayXd shifted = (row.array() - top).transpose();
      const Eigen::ArrayXd e = shifted.exp();
      const double z = e.sum();
      // H = ln Z − Σ_j p_j s_j with p_j = e_j / Z and s_j = logit_j − max (so every term is finite).
      const double entropy = std::log(z) - (e * shifted).sum() / z;
      entropy_sum += entropy;
      entropy_min = std::min(entropy_min, entropy);
    }
  }
  h.row_entropy_mean = entropy_sum / static_cast<double>(x.rows());
  h.row_entropy_min = entropy_min;
  h.max_logit_range = range_max;

  // Median of ‖x_i + y_j‖² = ‖x_i‖² + ‖y_j‖² + 2 x_iᵀy_j over a grid of pairs.
  const Eigen::Index side = static_cast<Eigen::Index>(std::sqrt(static_cast<double>(kMedianPairs)));
  const Eigen::Index si = stride_for(x.rows(), side), sj = stride_for(y.rows(), side);
  const Eigen::VectorXd xs = x.rowwise().squaredNorm(), ys = y.rowwise().squaredNorm();
  std::vector<double> z_sq;
  z_sq.reserve(static_cast<std::size_t>(((x.rows() + si - 1) / si) * ((y.rows() + sj - 1) / sj)));
  for (Eigen::Index i = 0; i < x.rows(); i += si)
    for (Eigen::Index j = 0; j < y.rows(); j += sj) z_sq.push_back(xs(i) + ys(j) + 2 * x.row(i).dot(y.row(j)));
  h.pairs_sampled = static_cast<std::int64_t>(z_sq.size());
  h.median_pair_z_sq = std::max(0.0, sample_median(std::move(z_sq)));
  return h;
}

double lemma2_positive_relative_mse(double z_sq, int m) {
  if (m < 1) throw std::invalid_argument("Lemma 2: m must be at least 1");
  return std::expm1(z_sq) / m;
}

}  // namespace favorlab
