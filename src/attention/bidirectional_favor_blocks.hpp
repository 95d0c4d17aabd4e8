#pragma once
// The block algorithm behind bidirectional FAVOR, shared by plain FAVOR and PermuteFormer: keys are summed in fixed
// blocks of kBidirectionalBlock rows, each into its own state S_b = Σ K̃_j [V_j, 1]ᵀ relative to the block's largest
// log scale, the states are merged in index order (the result does not depend on the thread count), and queries are
// read out block by block. The variation is `features`, which forms the features of a block of rows:
//   features.keys(first, rows)    → {values (rows × columns), log_scale: one for the block}
//   features.queries(first, rows) → {values, log_scale: one per row}
// FavorFeatures (attention/favor_features.hpp) for FAVOR; PermutedFeatures (attention/permuted_features.hpp) for
// PermuteFormer, which applies the position permutations P_π^i as it forms them.
#include <algorithm>
#include <cmath>
#include <vector>

#include "attention/attention_config.hpp"
#include "attention/attention_features.hpp"
#include "attention/favor_features.hpp"
#include "attention/values_with_ones.hpp"
#include "linalg/gemm.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

inline constexpr Eigen::Index kBidirectionalBlock = 512;

template <class T, class Features>
Matrix<T> bidirectional_favor_blocks(Eigen::Index lq, const Matrix<T>& v, const AttentionConfig& config, int threads,
                                     const Features& features) {
  constexpr Eigen::Index block = kBidirectionalBlock;
  const Eigen::Index lk = v.rows(), dv = v.cols();
  const Eigen::Index key_blocks = (lk + block - 1) / block;
  std::vector<Matrix<T>> states(static_cast<std::size_t>(key_blocks));
  std::vector<T> block_scale(static_cast<std::size_t>(key_blocks));
  parallel_for(key_blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * block, rows = std::min(block, lk - first);
    const auto f = features.keys(first, rows);
    Matrix<T>& s = states[std::size_t(b)];
    s.resize(f.values.cols(), dv + 1);
    gemm<T>(f.values, Op::transpose, values_with_ones(v, first, rows), Op::none, T(0), s);
    block_scale[std::size_t(b)] = f.log_scale;
  });
  const T key_scale = *std::max_element(block_scale.begin(), block_scale.end());
  Matrix<T> state = Matrix<T>::Zero(states.front().rows(), dv + 1);
  for (std::size_t b = 0; b < states.size(); ++b) state += std::exp(block_scale[b] - key_scale) * states[b];

  Matrix<T> out(lq, dv);
  const Eigen::Index query_blocks = (lq + block - 1) / block;
  parallel_for(query_blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * block, rows = std::min(block, lq - first);
    const auto f = features.queries(first, rows);
    Matrix<T> num(rows, dv + 1);
    gemm<T>(f.values, Op::none, state, Op::none, T(0), num);
    if (config.renormalize)
      out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() / num.col(dv).array()).matrix();
    else
      out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() * (f.log_scale + key_scale).exp()).matrix();
  });
  return out;
}

}  // namespace favorlab
