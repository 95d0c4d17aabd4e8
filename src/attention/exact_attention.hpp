#pragma once
// Exact softmax attention of one head (Performers eq. 1–2): Att(Q, K, V) = D⁻¹ A V with A = exp(QKᵀ/√d), D = diag(A 1);
// causal: A → tril(A). Tiled, flash-attention style: each block of 128 query rows streams over its keys in tiles of
// 256 with an online softmax — a running row maximum, the sum Σ exp(s − max) and the accumulator Σ exp(s − max) v,
// both rescaled when the maximum grows — so memory is O(block · (tile + d + dv)) per thread, independent of L, and
// every pass over a logits tile stays in cache. A causal block reads no key after its last query and masks the
// later keys of its diagonal tiles (no output sees a later key). renormalize = false returns A V itself.
// q: Lq×d, k: L×d, v: L×dv (causal needs Lq = L). Query blocks run on `threads` threads; the result does not depend
// on the thread count. The naive reference it is tested against: exact_attention_reference.hpp.
// Formulas: docs/theory.md#exact-softmax-attention
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
Matrix<T> exact_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, bool causal, bool renormalize,
                          int threads = 1);

}  // namespace favorlab
