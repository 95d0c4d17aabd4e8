#pragma once
// Random feature maps φ applied row-wise: U ∈ R^{L×d} holds one input per row, W ∈ R^{m×d} one projection per row.
// φ(x)ᵀφ(y) is the estimator of SM(x, y) = exp(xᵀy) (MATH.md, "Estimators of SM"):
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
Matrix<T> trig_features(const Matrix<T>& u, const Matrix<T>& w);
template <class T>
Matrix<T> positive_features(const Matrix<T>& u, const Matrix<T>& w);
template <class T>
Matrix<T> hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w);
template <class T>
Matrix<T> shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared);

}  // namespace favorlab
