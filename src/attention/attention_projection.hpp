#pragma once
// The projection W (m×d, row i is ω_i) of a FAVOR mechanism, drawn from the counter-based streams: draw number
// `draw` of seed `seed` is always the same matrix, so "feature redraw" is simply draw = 0, 1, 2, … (one per call).
// Softmax features and generalized kernels use Gaussian rows (chi norms); regularized features use rows of norm √d.
#include <Eigen/Dense>

#include <cstdint>

#include "attention/attention_config.hpp"

namespace favorlab {

// The stream id reserved for attention projections (other streams are used by the Monte Carlo drivers).
inline constexpr std::uint64_t kAttentionProjectionStream = 0xA77E'0000ULL;

// An m×d matrix, or 0×d when the mechanism needs no projection (exact, generalized kernels without projection).
Eigen::MatrixXd draw_attention_projection(const AttentionConfig& config, int d, std::uint64_t seed,
                                          std::uint64_t draw);

// Checks a user-supplied W against the mechanism (rows = m, columns = d, finite); throws std::invalid_argument.
void check_attention_projection(const AttentionConfig& config, int d, const Eigen::MatrixXd& w);

}  // namespace favorlab
