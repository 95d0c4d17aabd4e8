#pragma once
// PermuteFormer's features: the FAVOR features of a block of tokens with each token's position permutation applied,
// φ̃_i = P_π^{pos(i)} φ(u_i), in the log-scaled form of attention_features.hpp (φ = exp(log_scale) · values), as
// row-major blocks ready for the products, with the feature columns in PositionPermutation's cycle layout (column j
// is original feature column column_order()[j]; queries and keys alike, so every product and the attention built
// from them are those of the original order).
// For the positive map with the stabilizer — PermuteFormer's usual features — the permutation is applied while the
// features are formed: U Wᵀ is computed row-major with W's rows in the cycle layout's order, and each row is rotated
// cycle by cycle (contiguous copies) and exponentiated in the same pass (PositionPermutation::rotate_exp_rows): no pass
// over column-major features, no index map, no gather. Every other map (and `fuse` = false) forms the column-major
// features of attention_features.hpp first and gathers them afterwards (gather_rows): the plain path, which the tests
// hold the fused one to.
#include "attention/attention_config.hpp"
#include "attention/attention_features.hpp"
#include "attention/position_permutation.hpp"

namespace favorlab {

template <class T>
struct PermutedBlock {  // the keys of a bidirectional block: one log scale for all rows
  RowMatrix<T> values;
  T log_scale = 0;
};

template <class T>
struct PermutedRows {  // queries: a log scale per row
  RowMatrix<T> values;
  Eigen::Array<T, Eigen::Dynamic, 1> log_scale;
};

template <class T>
struct PermutedCausalKeys {  // values_j = φ̃(k_j) · exp(−running_j)
  RowMatrix<T> values;
  Eigen::Array<T, Eigen::Dynamic, 1> running;  // running_j = max(carried, max_{i ≤ j} log_scale_i)
};

template <class T>
class PermutedFeatures {
 public:
  // References are kept: q, k, w, config and positions must outlive the object. w is in precision T.
  PermutedFeatures(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& w, const AttentionConfig& config,
                   const PositionPermutation& positions, bool fuse = true);

  bool fused() const { return fused_; }
  // Rows [first, first + rows) of K relative to the block's largest log scale (bidirectional key side).
  PermutedBlock<T> keys(Eigen::Index first, Eigen::Index rows) const;
  // Rows [first, first + rows) of Q with their own log scales.
  PermutedRows<T> queries(Eigen::Index first, Eigen::Index rows) const;
  // Rows [first, first + rows) of K relative to their running maxima, continuing from `carried` (causal key side).
  PermutedCausalKeys<T> causal_keys(Eigen::Index first, Eigen::Index rows, T carried) const;

 private:
  const Matrix<T>& q_;
  const Matrix<T>& k_;
  const Matrix<T>& w_;
  const AttentionConfig& config_;
  const PositionPermutation& positions_;
  bool fused_;
  Matrix<T> w_cycles_;  // fused: W's rows in the cycle layout's column order
};

}  // namespace favorlab
