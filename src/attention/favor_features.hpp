#pragma once
// FAVOR's features of a block of rows, in the form the block algorithms take them (bidirectional_favor_blocks.hpp,
// causal_favor_windows.hpp); PermutedFeatures (attention/permuted_features.hpp) is PermuteFormer's counterpart with
// the same three calls:
//   keys(first, rows)                 → {values (rows × columns), log_scale: one for the block (its largest)}
//   queries(first, rows)              → {values, log_scale: one per row}
//   causal_keys(first, rows, carried) → {values: φ(k_j)·exp(−running_j), running: the running maximum of the key log
//                                        scales, continuing from `carried`}
#include <utility>

#include "attention/attention_config.hpp"
#include "attention/attention_features.hpp"

namespace favorlab {

template <class T>
struct FavorCausalKeys {
  Matrix<T> values;
  Eigen::Array<T, Eigen::Dynamic, 1> running;
};

template <class T>
struct FavorFeatures {
  const Matrix<T>& q;
  const Matrix<T>& k;
  const Matrix<T>& w;
  const AttentionConfig& config;
  BlockFeatures<T> keys(Eigen::Index first, Eigen::Index rows) const {
    return block_features_of_rows(k, first, rows, w, config);  // relative to the block's max
  }
  ScaledFeatures<T> queries(Eigen::Index first, Eigen::Index rows) const {
    return attention_features_of_rows(q, first, rows, w, config);
  }
  // The running maxima go straight into the keys' exponents (one pass).
  FavorCausalKeys<T> causal_keys(Eigen::Index first, Eigen::Index rows, T carried) const {
    ScaledFeatures<T> f = relative_features_of_rows<T>(
        k, first, rows, w, config,
        [carried](const Eigen::Array<T, Eigen::Dynamic, 1>& own) { return running_maxima(own, carried); });
    return {std::move(f.values), std::move(f.log_scale)};
  }
};

}  // namespace favorlab
