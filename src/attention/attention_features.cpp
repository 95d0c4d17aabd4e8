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

// x_ij ← exp(x_ij − shift_i) · factor (sign = −1: exp(−x_ij − shift_i) · factor), in place.
// Why two steps: Eigen evaluates exp of a broadcast expression such as (x.colwise() − shift).exp() one scalar
// std::exp at a time (glibc expf/exp showed up as a quarter of the profile); the in-place broadcast subtraction and a
// plain .exp() of a matrix both use Eigen's SIMD exp.
template <class T, class Dst>
void shifted_exp(Dst&& x, const Column<T>& shift, T factor, T sign = T(1)) {
  if (sign < 0) x = -x;
  x.colwise() -= shift;
  x = x.exp() * factor;
}

// Softmax features with the exponential part carried as a per-row log scale.
template <class T>
ScaledFeatures<T> stabilized_softmax_features(const Matrix<T>& u, const Matrix<T>& w, FeatureKind kind) {
  const Eigen::Index m = w.rows();
  const Column<T> half_norm = u.rowwise().squaredNorm().array() / T(2);
  Matrix<T> proj(u.rows(), m);
  proj.noalias() = u * w.transpose();
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
    out.values.leftCols(m) = proj;
    out.values.rightCols(m) = proj;
    shifted_exp<T>(out.values.leftCols(m).array(), top, scale);
    shifted_exp<T>(out.values.rightCols(m).array(), top, scale, T(-1));
    out.log_scale = top - half_norm;
    return out;
  }
  const Column<T> top = proj.array().rowwise().maxCoeff();
  shifted_exp<T>(proj.array(), top, T(1) / std::sqrt(T(m)));
  out.values = std::move(proj);
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

template <class T>
BlockFeatures<T> block_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                        const Matrix<T>& w, const AttentionConfig& config) {
  const FeatureKind kind = config.features;
  const bool fused = config.stabilizer && (kind == FeatureKind::positive || kind == FeatureKind::regularized ||
                                           kind == FeatureKind::hyperbolic);
  BlockFeatures<T> out;
  if (!fused) {
    ScaledFeatures<T> f = attention_features_of_rows(x, first, count, w, config);
    out.log_scale = f.log_scale.maxCoeff();
    if ((f.log_scale != out.log_scale).any()) f.values.array().colwise() *= (f.log_scale - out.log_scale).exp();
    out.values = std::move(f.values);
    return out;
  }
  const T input_scale = T(1 / std::sqrt(std::sqrt(double(x.cols()))));
  const Eigen::Index m = w.rows();
  Matrix<T> u = x.middleRows(first, count) * input_scale;
  Matrix<T> proj(count, m);
  proj.noalias() = u * w.transpose();
  const Column<T> half_norm = u.rowwise().squaredNorm().array() / T(2);
  if (kind == FeatureKind::hyperbolic) {
    const Column<T> top = proj.array().abs().rowwise().maxCoeff();
    out.log_scale = (top - half_norm).maxCoeff();
    const Column<T> shift = half_norm + out.log_scale;  // exponents ±ω_iᵀu − ‖u‖²/2 − log_scale ≤ 0
    const T norm = T(1) / std::sqrt(T(2 * m));
    out.values.resize(count, 2 * m);
    out.values.leftCols(m) = proj;
    out.values.rightCols(m) = proj;
    shifted_exp<T>(out.values.leftCols(m).array(), shift, norm);
    shifted_exp<T>(out.values.rightCols(m).array(), shift, norm, T(-1));
    return out;
  }
  const Column<T> top = proj.array().rowwise().maxCoeff();
  out.log_scale = (top - half_norm).maxCoeff();
  const Column<T> shift = half_norm + out.log_scale;  // exponents ω_iᵀu − ‖u‖²/2 − log_scale ≤ 0
  shifted_exp<T>(proj.array(), shift, T(1) / std::sqrt(T(m)));
  out.values = std::move(proj);
  return out;
}

template BlockFeatures<float> block_features_of_rows(const Matrix<float>&, Eigen::Index, Eigen::Index,
                                                     const Matrix<float>&, const AttentionConfig&);
template BlockFeatures<double> block_features_of_rows(const Matrix<double>&, Eigen::Index, Eigen::Index,
                                                      const Matrix<double>&, const AttentionConfig&);

template ScaledFeatures<float> attention_features(const Matrix<float>&, const Matrix<float>&, const AttentionConfig&);
template ScaledFeatures<double> attention_features(const Matrix<double>&, const Matrix<double>&,
                                                   const AttentionConfig&);
template ScaledFeatures<float> attention_features_of_rows(const Matrix<float>&, Eigen::Index, Eigen::Index,
                                                          const Matrix<float>&, const AttentionConfig&);
template ScaledFeatures<double> attention_features_of_rows(const Matrix<double>&, Eigen::Index, Eigen::Index,
                                                           const Matrix<double>&, const AttentionConfig&);

}  // namespace favorlab
