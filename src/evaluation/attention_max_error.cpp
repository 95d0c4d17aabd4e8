#include "evaluation/attention_max_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/attention_features.hpp"
#include "attention/prepared_projection.hpp"

namespace favorlab {

namespace {

// Feature columns of projection row i: trig and hyperbolic features come in two halves [f₁(Wu), f₂(Wu)] of m_max
// columns each, so row i of W owns columns i and m_max + i; the other kinds own column i alone.
struct FeatureLayout {
  bool paired;
  int m_max;
};

// Adds the products of feature columns for projection rows [from, to) to the block sum: c += Vq_cols Vk_colsᵀ.
// Single precision would be faster, but the sums cancel (trig) and ε may be small: stay in double.
void add_feature_range(const Eigen::MatrixXd& vq, const Eigen::MatrixXd& vk, const FeatureLayout& layout, int from,
                       int to, Eigen::MatrixXd& c) {
  const int count = to - from;
  c.noalias() += vq.middleCols(from, count) * vk.middleCols(from, count).transpose();
  if (layout.paired)
    c.noalias() += vq.middleCols(layout.m_max + from, count) * vk.middleCols(layout.m_max + from, count).transpose();
}

double max_abs_difference(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact) {
  if (!approx.allFinite()) return std::numeric_limits<double>::infinity();
  return (approx - exact).cwiseAbs().maxCoeff();
}

}  // namespace

std::vector<AttentionMaxError> attention_max_errors(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                                    const Eigen::MatrixXd& w, const AttentionConfig& config,
                                                    const std::vector<int>& ms, int block_rows) {
  if (!estimates_softmax(config.features))
    throw std::invalid_argument("attention_max_errors needs softmax-kernel features, not " +
                                std::string(feature_kind_name(config.features)));
  if (q.cols() != k.cols() || w.cols() != q.cols() || q.rows() == 0 || k.rows() == 0 || w.rows() == 0)
    throw std::invalid_argument("attention_max_errors: Q, K and W need the same dimension d and must be non-empty");
  if (ms.empty() || block_rows < 1) throw std::invalid_argument("attention_max_errors: no feature counts");
  for (std::size_t i = 0; i < ms.size(); ++i)
    if (ms[i] < 1 || ms[i] > w.rows() || (i > 0 && ms[i] <= ms[i - 1]))
      throw std::invalid_argument("attention_max_errors: feature counts must be ascending in [1, rows of W]");

  const FeatureLayout layout{family_info(config.features).columns_per_row == 2, static_cast<int>(w.rows())};
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  // gerf, oprf, sderf: the prepared [W' | c]; its first m rows are the prepared first m rows of W (row by row).
  const Eigen::MatrixXd used = needs_prepared_projection(config) ? prepared_projection<double>(q, k, w, config) : w;
  const ScaledFeatures<double> keys = attention_features_of_rows<double>(k, 0, k.rows(), used, config);
  // The features of m_max rows carry 1/√m_max (1/√(2 m_max) for hyperbolic) per side; the estimator with the first m
  // rows carries 1/√m: a factor m_max/m on the product.
  std::vector<AttentionMaxError> out;
  for (int m : ms) out.push_back({m, 0.0, 0.0});

  for (Eigen::Index first = 0; first < q.rows(); first += block_rows) {
    const Eigen::Index rows = std::min<Eigen::Index>(block_rows, q.rows() - first);
    const ScaledFeatures<double> queries = attention_features_of_rows<double>(q, first, rows, used, config);
    // The exact block from the definition A_ij = exp(q_iᵀk_j/√d).
    const Eigen::MatrixXd exact = ((q.middleRows(first, rows) * k.transpose()) * inv_sqrt_d).array().exp().matrix();
    const Eigen::VectorXd exact_sums = exact.rowwise().sum();
    const Eigen::MatrixXd exact_normalized = exact_sums.cwiseInverse().asDiagonal() * exact;
    // exp(log scale_i + log scale_j), split into per-row and per-column factors (each finite for the ball's inputs).
    const Eigen::VectorXd row_scale = queries.log_scale.exp().matrix();
    const Eigen::VectorXd col_scale = keys.log_scale.exp().matrix();

    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(rows, k.rows());
    int done = 0;
    for (AttentionMaxError& e : out) {
      add_feature_range(queries.values, keys.values, layout, done, e.m, sum);
      done = e.m;
      const double factor = static_cast<double>(layout.m_max) / e.m;
      const Eigen::MatrixXd approx = (factor * row_scale).asDiagonal() * sum * col_scale.asDiagonal();
      e.unnormalized = std::max(e.unnormalized, max_abs_difference(approx, exact));
      const Eigen::VectorXd sums = approx.rowwise().sum();
      e.normalized = std::max(e.normalized, max_abs_difference(sums.cwiseInverse().asDiagonal() * approx,
                                                               exact_normalized));
    }
  }
  return out;
}

std::vector<AttentionMaxError> prefix_max_errors(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                                 const Eigen::MatrixXd& w, const AttentionConfig& config,
                                                 const std::vector<int>& ls, const std::vector<int>& ms) {
  std::vector<AttentionMaxError> all;
  for (int len : ls) {
    if (len < 1 || len > q.rows() || len > k.rows())
      throw std::invalid_argument("prefix max errors: length " + std::to_string(len) + " outside [1, " +
                                  std::to_string(std::min(q.rows(), k.rows())) + "]");
    const auto e = attention_max_errors(q.topRows(len), k.topRows(len), w, config, ms);
    all.insert(all.end(), e.begin(), e.end());
  }
  return all;
}

MaxErrorSamples max_error_samples(const std::vector<std::vector<AttentionMaxError>>& draws, std::size_t entry) {
  MaxErrorSamples samples;
  for (const auto& draw : draws) {
    if (entry >= draw.size())
      throw std::invalid_argument("max error samples: entry " + std::to_string(entry) + " of a draw with " +
                                  std::to_string(draw.size()));
    samples.unnormalized.push_back(draw[entry].unnormalized);
    samples.normalized.push_back(draw[entry].normalized);
  }
  std::sort(samples.unnormalized.begin(), samples.unnormalized.end());
  std::sort(samples.normalized.begin(), samples.normalized.end());
  return samples;
}

}  // namespace favorlab
