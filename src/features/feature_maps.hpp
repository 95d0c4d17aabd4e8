#pragma once
// Random feature maps φ applied row-wise: U ∈ R^{L×d} holds one input per row, W ∈ R^{m×d} one projection per row.
// φ(x)ᵀφ(y) is the estimator of SM(x, y) = exp(xᵀy) (docs/theory.md#estimators-of-the-softmax-kernel):
//   trig_features       L×2m: exp(‖u‖²/2)/√m  · [sin(Wu), cos(Wu)]
//   positive_features   L×m:  exp(−‖u‖²/2)/√m · exp(Wu)
//   hyperbolic_features L×2m: exp(−‖u‖²/2)/√(2m) · [exp(Wu), exp(−Wu)]
//   shifted_positive_features L×m: exp(W'u + c − ‖u‖²/2)/√m for the prepared projection P = [W' | c], m×(d+1)
//                            (gerf, oprf, sderf: features/gerf_projection.hpp)
// The ±‖u‖²/2 factor is folded into the exponent (one exp per entry, no separate overflow of either factor). exp,
// sin and cos run vectorized for float and double (features/shifted_exp.hpp, features/scaled_sin_cos.hpp).
#include <Eigen/Dense>

namespace favorlab {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;

// Each map writes φ(U) into `out`, resized to its shape (no allocation when it already has it: a Monte Carlo trial
// reuses its buffers, mc/estimator_sweep.cpp). out may not alias u, w or prepared.
template <class T>
void trig_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out);
template <class T>
void positive_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out);
template <class T>
void hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out);
template <class T>
void shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared, Matrix<T>& out);

// The same maps returning a new matrix.
template <class T>
Matrix<T> mapped(const Matrix<T>& u, const Matrix<T>& w,
                 void (*map)(const Matrix<T>&, const Matrix<T>&, Matrix<T>&)) {
  Matrix<T> out;
  map(u, w, out);
  return out;
}
template <class T>
Matrix<T> trig_features(const Matrix<T>& u, const Matrix<T>& w) { return mapped<T>(u, w, trig_features); }
template <class T>
Matrix<T> positive_features(const Matrix<T>& u, const Matrix<T>& w) { return mapped<T>(u, w, positive_features); }
template <class T>
Matrix<T> hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w) { return mapped<T>(u, w, hyperbolic_features); }
template <class T>
Matrix<T> shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared) {
  return mapped<T>(u, prepared, shifted_positive_features);
}

// The four maps as the engines call them, with their stabilized forms (features/feature_map.hpp).
struct FeatureMap;
extern const FeatureMap kTrigMap, kPositiveMap, kHyperbolicMap, kShiftedPositiveMap;

}  // namespace favorlab
