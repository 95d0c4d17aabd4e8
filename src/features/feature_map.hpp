#pragma once
// A feature map as the engines call it: one descriptor per map (FeatureMap below), defined next to the map's own code
// (features/feature_maps.cpp, features/generalized_kernels.cpp), and pointed at by the rows of the family table
// (features/feature_family.hpp). The attention engine (attention/attention_features.cpp) and the estimator engine
// (features/estimator.cpp) hold one algorithm each and make one indirect call per block of rows through it; no code
// outside a map's own file names the map. The CUDA kernels cannot call host functions and switch on `code` instead
// (attention/cuda/favor_attention.cu).
#include <Eigen/Dense>

#include <functional>
#include <type_traits>

#include "features/feature_map_code.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

// φ(u_i) = exp(log_scale_i) · values_i for every row u_i (attention/attention_features.hpp).
template <class T>
struct ScaledFeatures {
  Matrix<T> values;                              // rows × feature columns
  Eigen::Array<T, Eigen::Dynamic, 1> log_scale;  // one per row
};

// The log scales a block's features are made relative to, from the rows' own (attention/attention_features.hpp).
template <class T>
using ReferenceScales = std::function<Eigen::Array<T, Eigen::Dynamic, 1>(const Eigen::Array<T, Eigen::Dynamic, 1>&)>;

// One precision's entry points of a map. U holds the inputs as the map sees them (already scaled by d^{-1/4} in
// attention), W the projection (m×d, or the prepared m×(d+1) where FeatureMap::prepared_projection); each function
// resizes its outputs.
template <class T>
struct MapFunctions {
  // Softmax maps: φ(U) as plain numbers (no stabilizer).
  void (*features)(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) = nullptr;
  // Softmax maps: φ(U) with the exponential part of each row carried in log_scale (the stabilizer: values ≤ 1).
  void (*stabilized)(const Matrix<T>& u, const Matrix<T>& w, ScaledFeatures<T>& out) = nullptr;
  // Optional: the stabilized features relative to reference(own log scales), the reference going straight into the
  // exponent (one pass, no rescaling afterwards). Without it the engine rescales `stabilized`'s values row by row.
  void (*relative)(const Matrix<T>& u, const Matrix<T>& w, const ReferenceScales<T>& reference,
                   ScaledFeatures<T>& out) = nullptr;
  // Generalized kernels: f applied entry-wise to its input (U Wᵀ, or U itself without projection); ε_k is the
  // engine's.
  void (*entrywise)(const Matrix<T>& x, Matrix<T>& out) = nullptr;
};

struct FeatureMap {
  FeatureMapCode code;       // what the CUDA kernels switch on
  int columns_per_row;       // feature columns per row of W: 1 or 2
  bool prepared_projection;  // W is the prepared [W' | c], m×(d+1) (features/gerf_projection.hpp)
  MapFunctions<float> f32;
  MapFunctions<double> f64;

  template <class T>
  const MapFunctions<T>& functions() const {
    if constexpr (std::is_same_v<T, float>)
      return f32;
    else
      return f64;
  }
};

}  // namespace favorlab
