#pragma once
// The types behind the shifted positive map (features/gerf_projection.hpp), shared with the family table: a family
// on that map is its row plus a prepare function of these types (and its pair form, kernels/pair_gerf.hpp).
#include <Eigen/Dense>

#include <functional>

namespace favorlab {

// The prepared projection: φ(u) = exp(W'u + c − ‖u‖²/2)/√m.
struct ShiftedProjection {
  Eigen::MatrixXd w;       // m×d, rows ω'_i
  Eigen::VectorXd offset;  // m, the c_i
};

// Statistics of the inputs over all query–key pairs (scaled as the feature maps see them), computed on demand: a
// family asks only for what it uses (the d×d second moment costs L·d² multiply-adds).
struct PairStatistics {
  std::function<double()> mean_squared_norm;            // mean over (i, j) of ‖q_i + k_j‖²
  std::function<Eigen::MatrixXd()> mean_outer_product;  // mean over (i, j) of (q_i + k_j)(q_i + k_j)ᵀ
};

}  // namespace favorlab
