#pragma once
// FAVOR's row normalizers D̂ = Q'((K')ᵀ 1_L) of one head (docs/theory.md#favor-bidirectional): the estimate of the
// exact row sums D = A 1_L, A = exp(QKᵀ/√d), for the configured feature map. Computed by the attention engine itself —
// attend() with V = a column of ones and renormalization off returns Â·1 — so it is exactly the denominator the
// renormalized output divides by, stabilizer log scales included. For config.mechanism = exact it returns the exact D.
// Non-positive entries are possible for trig features and for generalized kernels whose f can go negative (identity,
// cos, tanh, gelu); positive features give D̂ > 0. With Backend::cuda the GPU computes them in float32.
#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

// q: Lq×d, k: L×d raw inputs; w: the projection (see attend.hpp). Throws std::invalid_argument as attend() does.
Eigen::VectorXd favor_denominators(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                   AttentionConfig config, Backend backend = Backend::cpu);

}  // namespace favorlab
