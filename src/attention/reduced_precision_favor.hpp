#pragma once
// FAVOR+ (positive features, bidirectional or causal) computed as a GPU's matrix units compute it in a reduced
// precision, and the bound on how far that can land from FAVOR+ in exact arithmetic: the naive reference and the
// error budget of a tensor-core FAVOR. The model: every operand of the products (Q̃Wᵀ, K̃Wᵀ, the states Φ_Kᵀ[V, 1],
// the read-outs Φ_Q S, a causal chunk's masked scores and their product with V) is rounded to the format, every sum
// accumulates in float32 (in any order), and everything else — scaling, norms, stabilizers, exp and its rescalings,
// the final division — is float32. Derivation: docs/theory.md#favor-in-reduced-precision.
#include <Eigen/Dense>

#include "attention/product_precision.hpp"

namespace favorlab {

// FAVOR+ of one head with the model's rounding: out = D⁻¹ Φ_Q (Φ_Kᵀ V), Φ = exp(X̃Wᵀ − ‖x̃‖²/2 − stabilizer),
// X̃ = d^{-1/4} X; queries stabilized by their row's largest projection. Bidirectional (causal_chunk 0): keys by the
// largest log feature of all keys. Causal (causal_chunk > 0, rows per chunk): query i takes keys j ≤ i, each key held
// relative to the running maximum of the keys' log scales, in chunks — within a chunk a masked product of feature
// blocks, across chunks a carried state — so no exponent depends on a later key. q: L_q × d, k: L × d (L_q = L when
// causal), v: L × d_v, w: m × d. Throws std::invalid_argument naming the operand on mismatched shapes.
Eigen::MatrixXf favor_in_precision(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                   const Eigen::MatrixXf& w, ProductPrecision precision, int causal_chunk = 0);

// Entry by entry, a bound on |computed − exact| for a computation with `rounding` on these inputs, where exact is
// FAVOR+ in exact arithmetic with the same W. +∞ where the bound says nothing (an exponent error above 0.3, or
// a denominator the rounding could cancel). Throws like favor_in_precision.
Eigen::MatrixXd favor_precision_bound(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                      const Eigen::MatrixXf& w, const ProductRounding& rounding, int causal_chunk = 0);

}  // namespace favorlab
