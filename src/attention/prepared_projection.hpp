#pragma once
// The projection a head's feature map is applied with. For most families it is W itself; for the shifted positive
// map (gerf, oprf, sderf: features/gerf_projection.hpp) it is the prepared [W' | c], m×(d+1): W' in the first d
// columns and the offsets c in the last, which attention_features adds to each row of U W'ᵀ. gerf prepares it from W
// and its A alone; oprf and sderf also from this head's queries and keys, scaled by d^{-1/4} as the feature maps see
// them (the mean ‖q̃_i + k̃_j‖², or the mean (q̃_i + k̃_j)(q̃_i + k̃_j)ᵀ, over all pairs).
#include <Eigen/Dense>

#include "attention/attention_config.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

// True when config.features needs a prepared projection (the shifted positive map).
bool needs_prepared_projection(const AttentionConfig& config);

// [W' | c] in precision T for one head (q: Lq×d, k: L×d raw inputs; w: m×d as drawn). Only for families with
// needs_prepared_projection; the statistics are computed in double.
template <class T>
Matrix<T> prepared_projection(const Matrix<T>& q, const Matrix<T>& k, const Eigen::MatrixXd& w,
                              const AttentionConfig& config);

}  // namespace favorlab
