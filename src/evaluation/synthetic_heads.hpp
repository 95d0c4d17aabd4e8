#pragma once
// Attention heads with known answers, for `favorlab attention-report` when no model is given and for its tests.
// Each kind builds H heads of (Q, K, V), L×d, L×d, L×dv, head h from its own counter-based streams:
//   gaussian     Q, K entries N(0, s_h²) with s_h spaced geometrically from 0.4 to 1.0 over the heads (a head with
//                larger s is harder for random features: ‖x‖ = s d^{1/4} on average); V ~ N(0, 1).
//   low-rank     keys repeat r = 4 Gaussian prototypes (k_j = p_{j mod r}), so A has at most r distinct columns and
//                rank ≤ r: the rank-r′ floor is 0 (to rounding) for every r′ ≥ r.
//   one-hot      q_i = k_i = c u_i with u_i random unit vectors and c² = kOneHotMargin·√d / (1 − max_{i≠j} u_iᵀu_j),
//                so query i's own key beats every other logit by at least kOneHotMargin: A = I to within
//                L·e^{−kOneHotMargin}. Then every σ_i(A) ≈ 1, the rank-r floor is ≈ (L − r)^{1/2}, O = V and uniform
//                attention's relative error is 1.
//   uniform      Q = 0 and K = 0: every logit is 0, A is uniform, and every positive feature of every token is the same
//                constant, so FAVOR is exact (to rounding) and so is uniform attention.
//   query-zero   Q = 0, K Gaussian: A is still uniform (uniform attention is exact), but the key features vary, so
//                FAVOR is not: it loses to uniform attention.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "evaluation/favor_error_sweep.hpp"

namespace favorlab {

enum class SyntheticHeads { gaussian, low_rank, one_hot, uniform, query_zero };

inline constexpr int kLowRank = 4;
inline constexpr double kOneHotMargin = 30.0;

std::string_view synthetic_heads_name(SyntheticHeads kind);  // "gaussian", "low-rank", ...
std::vector<SyntheticHeads> all_synthetic_heads();

// H heads of the kind (H ≥ 1, L ≥ 1, d ≥ 1, dv ≥ 1; std::invalid_argument otherwise). `layer` keeps the streams of
// different layers apart.
std::vector<AttentionInput> synthetic_heads(SyntheticHeads kind, int heads, int L, int d, int dv, std::uint64_t seed,
                                            std::uint64_t layer);

}  // namespace favorlab
