#include "attention/attention_features.hpp"

#include <cmath>
#include <stdexcept>

namespace favorlab {

namespace {

template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;

// f of a generalized kernel, applied entry-wise.
template <class T>
Matrix<T> apply_kernel_function(FeatureKind kind, const Matrix<T>& x) {
  const auto a = x.array();
  switch (kind) {
    case FeatureKind::relu: return a.max(T(0)).matrix();
    case FeatureKind::exp: return a.exp().matrix();
    case FeatureKind::sigmoid: return (T(1) / (T(1) + (-a).exp())).matrix();
    case FeatureKind::abs: return a.abs().matrix();
    case FeatureKind::gelu:  // x Φ(x), the exact (erf) form
      return x.unaryExpr([](T t) { return T(0.5) * t * (T(1) + std::erf(t * T(1 / std::sqrt(2.0)))); });
    case FeatureKind::cos: return a.cos().matrix();
    case FeatureKind::tanh: return a.tanh().matrix();
    case FeatureKind::identity: return x;
    default: throw std::logic_error("not a generalized kernel");
  }
}

template <class T>
ScaledFeatures<T> unscaled(Matrix<T> values) {
  const Eigen::Index rows = values.rows();
  return {std::move(values), Column<T>::Zero(rows)};
}

// Softmax features with the exponential part carried as a per-row log scale.
template <class T>
ScaledFeatures<T> stabilized_softmax_features(const Matrix<T>& u, const Matrix<T>& w, FeatureKind kind) {
  const Eigen::Index m = w.rows();
  const Column<T> half_norm = u.rowwise().squaredNorm().array() / T(2);
  const Matrix<T> proj = u * w.transpose();
  ScaledFeatures<T> out;
  if (kind == FeatureKind::trig) {
    const T scale = T(1) / std::sqrt(T(m));
    out.values.resize(u.rows(), 2 * m);
    out.values.leftCols(m) = (proj.array().sin() * scale).matrix();
    out.values.rightCols(m) = (proj.array().cos() * scale).matrix();
    out.log_scale = half_norm;
    return out;
  }
  if (kind == FeatureKind::hyperbolic) {
    const Column<T> top = proj.array().abs().rowwise().maxCoeff();
    const T scale = T(1) / std::sqrt(T(2 * m));
    out.values.resize(u.rows(), 2 * m);
    out.values.leftCols(m) = ((proj.array().colwise() - top).exp() * scale).matrix();
    out.values.rightCols(m) = (((-proj.array()).colwise() - top).exp() * scale).matrix();
    out.log_scale = top - half_norm;
    return out;
  }
  const Column<T> top = proj.array().rowwise().maxCoeff();
  out.values = ((proj.array().colwise() - top).exp() / std::sqrt(T(m))).matrix();
  out.log_scale = top - half_norm;
  return out;
}

}  // namespace

template <class T>
ScaledFeatures<T> attention_features(const Matrix<T>& u, const Matrix<T>& w, const AttentionConfig& config) {
  const FeatureKind kind = config.features;
  if (!estimates_softmax(kind)) {
    const Matrix<T> pre = config.project ? Matrix<T>(u * w.transpose()) : u;
    return unscaled<T>((apply_kernel_function(kind, pre).array() + T(config.kernel_epsilon)).matrix());
  }
  if (config.stabilizer) return stabilized_softmax_features(u, w, kind);
  switch (kind) {
    case FeatureKind::trig: return unscaled<T>(trig_features(u, w));
    case FeatureKind::hyperbolic: return unscaled<T>(hyperbolic_features(u, w));
    default: return unscaled<T>(positive_features(u, w));
  }
}

template <class T>
ScaledFeatures<T> attention_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                             const Matrix<T>& w, const AttentionConfig& config) {
  const T input_scale = T(1 / std::sqrt(std::sqrt(double(x.cols()))));
  return attention_features<T>(x.middleRows(first, count) * input_scale, w, config);
}

template ScaledFeatures<float> attention_features(const Matrix<float>&, const Matrix<float>&, const AttentionConfig&);
template ScaledFeatures<double> attention_features(const Matrix<double>&, const Matrix<double>&,
                                                   const AttentionConfig&);
template ScaledFeatures<float> attention_features_of_rows(const Matrix<float>&, Eigen::Index, Eigen::Index,
                                                          const Matrix<float>&, const AttentionConfig&);
template ScaledFeatures<double> attention_features_of_rows(const Matrix<double>&, Eigen::Index, Eigen::Index,
                                                           const Matrix<double>&, const AttentionConfig&);

}  // namespace favorlab
