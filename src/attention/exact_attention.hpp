#pragma once
// Exact softmax attention of one head (MATH.md eq. 1–2): Att(Q, K, V) = D⁻¹ A V with A = exp(QKᵀ/√d), D = diag(A 1);
// causal: A → tril(A). Computed in blocks of query rows — memory O(block·L), never an L×L matrix — each block
// shifted by its rows' maxima (over j ≤ i when causal, so no output looks at later keys). renormalize = false
// returns A V itself. q: Lq×d, k: L×d, v: L×dv (causal needs Lq = L). Query blocks run on `threads` threads; the
// result does not depend on the thread count.
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
Matrix<T> exact_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, bool causal, bool renormalize,
                          int threads = 1);

}  // namespace favorlab
