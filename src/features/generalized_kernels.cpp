#include "features/generalized_kernels.hpp"

#include <cmath>

#include "features/feature_map.hpp"

namespace favorlab {

namespace {

template <class T>
void relu_kernel(const Matrix<T>& x, Matrix<T>& out) { out = x.array().max(T(0)).matrix(); }
template <class T>
void exp_kernel(const Matrix<T>& x, Matrix<T>& out) { out = x.array().exp().matrix(); }
template <class T>
void sigmoid_kernel(const Matrix<T>& x, Matrix<T>& out) { out = (T(1) / (T(1) + (-x.array()).exp())).matrix(); }
template <class T>
void abs_kernel(const Matrix<T>& x, Matrix<T>& out) { out = x.array().abs().matrix(); }
// x Φ(x), the exact (erf) form.
template <class T>
void gelu_kernel(const Matrix<T>& x, Matrix<T>& out) {
  out = x.unaryExpr([](T t) { return T(0.5) * t * (T(1) + std::erf(t * T(1 / std::sqrt(2.0)))); });
}
template <class T>
void cos_kernel(const Matrix<T>& x, Matrix<T>& out) { out = x.array().cos().matrix(); }
template <class T>
void tanh_kernel(const Matrix<T>& x, Matrix<T>& out) { out = x.array().tanh().matrix(); }
template <class T>
void identity_kernel(const Matrix<T>& x, Matrix<T>& out) { out = x; }

constexpr FeatureMap generalized(FeatureMapCode code, void (*f32)(const Matrix<float>&, Matrix<float>&),
                                 void (*f64)(const Matrix<double>&, Matrix<double>&)) {
  return {.code = code, .columns_per_row = 1, .prepared_projection = false, .f32 = {.entrywise = f32},
          .f64 = {.entrywise = f64}};
}

}  // namespace

constinit const FeatureMap kReluMap = generalized(FeatureMapCode::relu, relu_kernel<float>, relu_kernel<double>);
constinit const FeatureMap kExpMap = generalized(FeatureMapCode::exp, exp_kernel<float>, exp_kernel<double>);
constinit const FeatureMap kSigmoidMap =
    generalized(FeatureMapCode::sigmoid, sigmoid_kernel<float>, sigmoid_kernel<double>);
constinit const FeatureMap kAbsMap = generalized(FeatureMapCode::abs, abs_kernel<float>, abs_kernel<double>);
constinit const FeatureMap kGeluMap = generalized(FeatureMapCode::gelu, gelu_kernel<float>, gelu_kernel<double>);
constinit const FeatureMap kCosMap = generalized(FeatureMapCode::cos, cos_kernel<float>, cos_kernel<double>);
constinit const FeatureMap kTanhMap = generalized(FeatureMapCode::tanh, tanh_kernel<float>, tanh_kernel<double>);
constinit const FeatureMap kIdentityMap =
    generalized(FeatureMapCode::identity, identity_kernel<float>, identity_kernel<double>);

}  // namespace favorlab
