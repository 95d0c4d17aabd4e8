#pragma once
// Synthetic attention inputs: L×d matrices with independent N(0, scale²) entries from the counter-based streams, so
// input number `index` of (seed, stream) is always the same matrix. The experiments' default Q, K, V.
#include <cstdint>

#include "features/feature_maps.hpp"

namespace favorlab {

Eigen::MatrixXd gaussian_input(int rows, int cols, double scale, std::uint64_t seed, std::uint64_t stream,
                               std::uint64_t index);

}  // namespace favorlab
