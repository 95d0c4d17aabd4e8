#pragma once
// PermuteFormer attention (docs/theory.md#permuteformer; PF eq. for q̃, k̃) on top of FAVOR features, linear time:
//   out_i = Σ_j sim(i, j) v_j / Σ_j sim(i, j),   sim(i, j) = q̃_iᵀ k̃_j = r^{i−j} φ(q_i)ᵀ P_π^{j−i} φ(k_j)
// (j ≤ i when causal; 2-D positions and the half-and-half permutations in permute_config.hpp). Each feature row is
// gathered with its token's index map (position_permutation.hpp) as the features are formed
// (permuted_features.hpp): O(L·m) extra time over FAVOR, O(m) extra memory.
// Bidirectional (r = 1): FAVOR's key-block states over the gathered features.
// Causal (0 < r ≤ 1): causal FAVOR's windowed algorithm (causal_favor_windows.hpp: feature blocks, chunks of
// config.chunk rows, one head on several threads) with the decay passed in. r^i and r^{−j} are never formed —
// r^{−j} overflows float32 once j ≳ 88/|ln r| (≈ 700 at r = 0.88). Inside a chunk the masked scores carry r^{i−j},
// i ≥ j; the state carried across chunks is Σ_{j<c} r^{c−j} k̃'_j [v_j, 1]ᵀ (decayed to the chunk start c,
// multiplied by r^{chunk} per chunk) and query i of the chunk reads it with r^{i−c}. Every power of r has a non-negative exponent, so nothing can overflow
// at any L. The FAVOR stabilizer is carried exactly as in causal_favor_attention.hpp (keys relative to a running
// maximum of their log scales), so output i depends on keys and values 0..i only, bit for bit.
// renormalize = false returns Σ_j sim(i, j) v_j itself.
#include <vector>

#include "attention/attend.hpp"
#include "attention/permute_config.hpp"
#include "attention/position_permutation.hpp"

namespace favorlab {

// One head, unchecked inputs (q, k: L×d raw; v: L×dv; w: m×d in precision T); r = the head's decay.
template <class T>
Matrix<T> permute_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                            const AttentionConfig& config, const PositionPermutation& positions, double r,
                            int threads = 1);

// Checks what attend() checks plus: one PermuteHead per head, as many queries as keys, and each head against the
// layout (validate_permute_head). Throws std::invalid_argument naming the problem.
template <class T>
void check_permute_inputs(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                          const AttentionConfig& config, const std::vector<PermuteHead>& heads,
                          const PermuteLayout& layout);

// The multi-head entry point, like attend(): heads in parallel when there are at least as many as threads,
// otherwise row blocks inside a head; the numbers do not depend on the thread count.
template <class T>
Heads<T> permute_attend(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                        const AttentionConfig& config, const std::vector<PermuteHead>& heads,
                        const PermuteLayout& layout, int threads = 1);

}  // namespace favorlab
