#pragma once
// Causal FAVOR attention of one head (docs/theory.md#favor-causal; Algorithm 1): out_i = num_i / den_i with
// [num_i, den_i] = Q'_iᵀ G_i, G_i = Σ_{j≤i} K'_j [V_j, 1]ᵀ, computed in chunks of `config.chunk` rows: inside a
// chunk the masked product tril(Q'_c K'_cᵀ)[V_c, 1], across chunks the carried m×(dv+1) state. chunk = 1 is the plain
// prefix-sum recursion. Memory O(window·(m + chunk) + (window/chunk)·m·dv): the G_i are never stored.
//
// Stabilizer without looking ahead: key j's features are held relative to M_j = max_{j'≤j} (log scale of key j'),
// a running maximum, and the state is rescaled by exp(M_old − M_new) ≤ 1 whenever it grows. Query i combines keys
// j ≤ i with the factors exp(M_j − M_i) ≤ 1, and its own log scale cancels in num_i / den_i. So no exponent is ever
// positive, and output i depends on keys and values 0..i only — exactly, not just up to rounding.
//
// Parallel for one head: the rows are taken in windows of 512, each cut into feature blocks of 256 rows (whole
// chunks). Each block first computes, on its own thread, everything that needs only its own rows — its features and,
// per chunk, the masked in-chunk product (lower half-triangles) and the chunk's contribution to the state — relative
// to the running maximum since the block's first row; then the states entering the window's chunks are chained in
// order (one m×(dv+1) update per chunk, in place); then each chunk finishes its outputs in parallel while the next
// window's blocks are formed. The window is a constant, so the arithmetic, and every bit of the result, is the same
// on any number of threads. The algorithm lives in causal_favor_windows.hpp, with the features passed in:
// PermuteFormer's causal attention runs on it too.
// w is m×d (0×d for generalized kernels without projection) in precision T; q, k: L×d, v: L×dv.
#include "attention/attention_config.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
Matrix<T> causal_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                                 const AttentionConfig& config, int threads = 1);

}  // namespace favorlab
