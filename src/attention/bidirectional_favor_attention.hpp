#pragma once
// Bidirectional FAVOR attention of one head: out = D̂⁻¹ Q'((K')ᵀ V), D̂ = diag(Q'((K')ᵀ 1)),
// Q' = φ(Q d^{-1/4}), K' = φ(K d^{-1/4}). O(L·m·d) time; memory O(block·m + m·d) — neither Q' nor K' is ever held
// whole. Keys are summed in fixed blocks, each into its own state S_b = Σ K̃_j [V_j, 1] relative to the block's largest
// log scale, and the blocks are merged in index order, so the result does not depend on the thread count.
// With the stabilizer on, query log scales cancel in the renormalized output and the keys' common maximum is
// factored out exactly; renormalize = false multiplies both back (the estimate of A V). w is m×d (0×d for
// generalized kernels without projection) in precision T.
// Formulas: docs/theory.md#favor-bidirectional
#include "attention/attention_config.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
Matrix<T> bidirectional_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                                        const Matrix<T>& w, const AttentionConfig& config, int threads = 1);

}  // namespace favorlab
