#pragma once
// Exact softmax attention computed as a fused GPU kernel computes it in a reduced precision (cuDNN's flash attention
// in bfloat16), and the bound on how far that can land from softmax attention in exact arithmetic: the naive
// reference and the error budget of `--mechanism exact --precision bfloat16` on the GPU. The model: Q, K and V rounded
// to the format, the logits Q Kᵀ summed in float32 and scaled by 1/√d, each row's softmax in float32 (its maximum
// subtracted, exp, the row sum), the weights rounded to the format for their product with V (float32 sums), the
// division in float32 and the output stored in the format.
// Derivation: docs/theory.md#exact-attention-in-reduced-precision.
#include <Eigen/Dense>

#include "attention/product_precision.hpp"

namespace favorlab {

// Softmax attention of one head with the model's rounding. q: L_q × d, k: L × d, v: L × d_v; causal: query i takes
// keys j ≤ i (L_q = L). Throws std::invalid_argument naming the operand on mismatched shapes.
Eigen::MatrixXf exact_in_precision(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                   ProductPrecision precision, bool causal = false);

// Entry by entry, a bound on |computed − exact| for a computation with `rounding` on these inputs, where exact is
// softmax attention in exact arithmetic on the unrounded inputs. `rescales`: how many times a row's running sums may
// be rescaled to a new running maximum (0 for the reference, which takes each row's maximum first; a flash kernel
// rescales once per block of keys: the number of keys bounds it). +∞ where the bound says nothing (a logit error
// above 0.3). Throws like exact_in_precision.
Eigen::MatrixXd exact_precision_bound(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                      const ProductRounding& rounding, bool causal = false, int rescales = 0);

}  // namespace favorlab
