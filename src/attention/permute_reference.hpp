#pragma once
// The quadratic reference of PermuteFormer attention, straight from the definition (docs/theory.md#permuteformer):
//   sim(i, j) = r^{i−j} φ(q_i)ᵀ P^{j−i} φ(k_j),   out_i = Σ_j sim(i, j) v_j / Σ_j sim(i, j)   (j ≤ i when causal)
// with explicit double-precision features (no stabilizer) and the relative power P^{j−i} taken from
// Permutation::power (the cycles) — nothing shared with the linear implementation's absolute-position gathers.
// 2-D: P^{j−i} = P_{π_x}^{x_j−x_i} ⊕ P_{π_y}^{y_j−y_i}; the decay r^{i−j} runs along the raster order.
// O(rows·L·m) time: for tests and small experiments only.
#include <Eigen/Core>

#include "attention/permute_config.hpp"

namespace favorlab {

// φ(x d^{-1/4}) row by row, without the stabilizer: exactly the features whose products the mechanism estimates.
Eigen::MatrixXd explicit_permute_features(const Eigen::MatrixXd& x, const Eigen::MatrixXd& w,
                                          const AttentionConfig& config);

// r^{i−j} φqᵀ P^{j−i} φk for one query/key feature pair at tokens i and j (any order of i, j; the caller applies the
// causal mask). phi_q, phi_k: feature vectors of length m'.
double reference_similarity(const Eigen::VectorXd& phi_q, const Eigen::VectorXd& phi_k, const PermuteHead& head,
                            const PermuteLayout& layout, Eigen::Index i, Eigen::Index j);

// Rows [first, first + count) of the L×L similarity matrix of raw inputs q, k (L×d); causal: 0 above the diagonal.
Eigen::MatrixXd permute_similarity_matrix(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                          const AttentionConfig& config, const PermuteHead& head,
                                          const PermuteLayout& layout, Eigen::Index first, Eigen::Index count);

// Rows [first, first + count) of the attention output (renormalized or not, as config says).
Eigen::MatrixXd permute_attention_reference(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                            const Eigen::MatrixXd& v, const Eigen::MatrixXd& w,
                                            const AttentionConfig& config, const PermuteHead& head,
                                            const PermuteLayout& layout, Eigen::Index first, Eigen::Index count);

}  // namespace favorlab
