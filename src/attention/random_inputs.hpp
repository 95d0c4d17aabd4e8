#pragma once
// Synthetic attention inputs: L×d matrices with independent N(0, scale²) entries from the counter-based streams, so
// input number `index` of (seed, stream) is always the same matrix. The experiments' default Q, K, V.
#include <cstdint>

#include "features/feature_maps.hpp"

namespace favorlab {

Eigen::MatrixXd gaussian_input(int rows, int cols, double scale, std::uint64_t seed, std::uint64_t stream,
                               std::uint64_t index);

// Rows uniform on the sphere of radius `radius`: the rows of gaussian_input(rows, cols, 1, …) rescaled to that norm
// (a Gaussian row's direction is uniform). A prefix of rows is again the same matrix at any row count.
Eigen::MatrixXd sphere_input(int rows, int cols, double radius, std::uint64_t seed, std::uint64_t stream,
                             std::uint64_t index);

}  // namespace favorlab
