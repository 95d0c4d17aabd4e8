#pragma once
// One pre-LayerNorm Transformer encoder layer with random weights (the setting of the Performers paper's Fig. 14):
//   h  = LN₁(x);   a = concat_h Att(h W_Q^h, h W_K^h, h W_V^h) W_O;   x₁ = x + a
//   h₂ = LN₂(x₁);  x₂ = x₁ + GELU(h₂ W₁ + b₁) W₂ + b₂
// LayerNorm normalizes each row to mean 0 and variance 1 (ε = 1e-5 inside the square root; gain 1, bias 0, as at
// initialization). GELU is the exact form x Φ(x). The attention is whatever `config` says (exact or FAVOR, any
// feature map), through attend(): exact and FAVOR layers share every other line. The MLP has width 4·width.
// Weights are N(0, 1/fan_in) (so activations keep their scale through the layer), biases 0, all drawn from
// PhiloxStream(seed, stream, index): the same (seed, stream, index) is always the same layer.
#include <cstdint>

#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

struct TransformerLayerWeights {
  int heads = 1;                        // width must be a multiple of heads; head size = width / heads
  Eigen::MatrixXd query, key, value;    // width × width: row vector x ↦ x·W; head h uses columns [h·s, (h+1)·s)
  Eigen::MatrixXd output;               // width × width
  Eigen::MatrixXd mlp_in;               // width × 4·width
  Eigen::VectorXd mlp_in_bias;          // 4·width
  Eigen::MatrixXd mlp_out;              // 4·width × width
  Eigen::VectorXd mlp_out_bias;         // width
  int width() const { return static_cast<int>(query.rows()); }
  int head_size() const { return width() / heads; }
};

// Throws std::invalid_argument unless width ≥ 1, heads ≥ 1 and heads divides width.
TransformerLayerWeights random_transformer_layer(int width, int heads, std::uint64_t seed, std::uint64_t stream,
                                                 std::uint64_t index);

// Row-wise LayerNorm (mean 0, variance 1, ε = 1e-5; gain 1, bias 0).
Eigen::MatrixXd layer_norm(const Eigen::MatrixXd& x);

// The layer applied to x (L × width). `projection` is the FAVOR W (m × head size; every head shares it, as in
// attend()); ignored (may be empty 0 × head size) for exact attention. Throws std::invalid_argument on shapes that
// disagree or a bad configuration. The attention runs on `backend` (attend_double_on_backend: float32 on the GPU);
// everything else in double on the CPU.
Eigen::MatrixXd transformer_layer(const Eigen::MatrixXd& x, const TransformerLayerWeights& weights,
                                  const AttentionConfig& config, const Eigen::MatrixXd& projection, int threads = 1,
                                  Backend backend = Backend::cpu);

}  // namespace favorlab
