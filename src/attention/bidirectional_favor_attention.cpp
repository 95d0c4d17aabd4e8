#include "attention/bidirectional_favor_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention/attention_features.hpp"
#include "attention/values_with_ones.hpp"

namespace favorlab {

namespace {

constexpr Eigen::Index kBlock = 512;

}  // namespace

template <class T>
Matrix<T> bidirectional_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                                        const Matrix<T>& w, const AttentionConfig& config, int threads) {
  const Eigen::Index lk = k.rows(), lq = q.rows(), dv = v.cols();
  const Eigen::Index key_blocks = (lk + kBlock - 1) / kBlock;
  std::vector<Matrix<T>> states(static_cast<std::size_t>(key_blocks));
  std::vector<T> block_scale(static_cast<std::size_t>(key_blocks));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (Eigen::Index b = 0; b < key_blocks; ++b) {
    const Eigen::Index first = b * kBlock, rows = std::min(kBlock, lk - first);
    const BlockFeatures<T> f = block_features_of_rows(k, first, rows, w, config);  // relative to the block's max
    states[std::size_t(b)].noalias() = f.values.transpose() * values_with_ones(v, first, rows);
    block_scale[std::size_t(b)] = f.log_scale;
  }
  const T key_scale = *std::max_element(block_scale.begin(), block_scale.end());
  Matrix<T> state = Matrix<T>::Zero(states.front().rows(), dv + 1);
  for (std::size_t b = 0; b < states.size(); ++b) state += std::exp(block_scale[b] - key_scale) * states[b];

  Matrix<T> out(lq, dv);
  const Eigen::Index query_blocks = (lq + kBlock - 1) / kBlock;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (Eigen::Index b = 0; b < query_blocks; ++b) {
    const Eigen::Index first = b * kBlock, rows = std::min(kBlock, lq - first);
    const ScaledFeatures<T> f = attention_features_of_rows(q, first, rows, w, config);
    Matrix<T> num(rows, dv + 1);
    num.noalias() = f.values * state;
    if (config.renormalize)
      out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() / num.col(dv).array()).matrix();
    else
      out.middleRows(first, rows) =
          (num.leftCols(dv).array().colwise() * (f.log_scale + key_scale).exp()).matrix();
  }
  return out;
}

template Matrix<float> bidirectional_favor_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                                                     const Matrix<float>&, const AttentionConfig&, int);
template Matrix<double> bidirectional_favor_attention(const Matrix<double>&, const Matrix<double>&,
                                                      const Matrix<double>&, const Matrix<double>&,
                                                      const AttentionConfig&, int);

}  // namespace favorlab
