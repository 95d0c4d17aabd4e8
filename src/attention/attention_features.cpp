#include "attention/attention_features.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "features/shifted_exp.hpp"
#include "linalg/gemm.hpp"

namespace favorlab {

namespace {

template <class T>
const MapFunctions<T>& map_functions(const AttentionConfig& config) {
  return family_info(config.features).map->template functions<T>();
}

}  // namespace

template <class T>
ScaledFeatures<T> attention_features(const Matrix<T>& u, const Matrix<T>& w, const AttentionConfig& config) {
  const MapFunctions<T>& map = map_functions<T>(config);
  ScaledFeatures<T> out;
  if (!estimates_softmax(config.features)) {
    Matrix<T> pre;
    if (config.project) {
      pre.resize(u.rows(), w.rows());
      gemm<T>(u, Op::none, w, Op::transpose, T(0), pre);
    } else {
      pre = u;
    }
    map.entrywise(pre, out.values);
    out.values.array() += T(config.kernel_epsilon);
  } else if (config.stabilizer) {
    map.stabilized(u, w, out);
    return out;
  } else {
    map.features(u, w, out.values);
  }
  out.log_scale = Column<T>::Zero(out.values.rows());
  return out;
}

template <class T>
ScaledFeatures<T> attention_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                             const Matrix<T>& w, const AttentionConfig& config) {
  const T input_scale = T(1 / std::sqrt(std::sqrt(double(x.cols()))));
  return attention_features<T>(x.middleRows(first, count) * input_scale, w, config);
}

template <class T>
ScaledFeatures<T> relative_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                            const Matrix<T>& w, const AttentionConfig& config,
                                            const ReferenceScales<T>& reference) {
  const MapFunctions<T>& map = map_functions<T>(config);
  ScaledFeatures<T> out;
  if (config.stabilizer && map.relative != nullptr) {
    const T input_scale = T(1 / std::sqrt(std::sqrt(double(x.cols()))));
    map.relative(x.middleRows(first, count) * input_scale, w, reference, out);
    return out;
  }
  ScaledFeatures<T> f = attention_features_of_rows(x, first, count, w, config);
  out.log_scale = reference(f.log_scale);
  if ((f.log_scale != out.log_scale).any()) {
    Column<T> factor(count);
    exp_into(factor, f.log_scale - out.log_scale, T(1));  // vectorized, and 0 where the factor underflows
    f.values.array().colwise() *= factor;
  }
  out.values = std::move(f.values);
  return out;
}

template <class T>
Column<T> running_maxima(const Column<T>& log_scale, T carried) {
  Column<T> running(log_scale.size());
  T top = carried;
  for (Eigen::Index j = 0; j < log_scale.size(); ++j) running(j) = top = std::max(top, log_scale(j));
  return running;
}

template <class T>
BlockFeatures<T> block_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                        const Matrix<T>& w, const AttentionConfig& config) {
  ScaledFeatures<T> f = relative_features_of_rows<T>(x, first, count, w, config, [](const Column<T>& own) {
    return Column<T>::Constant(own.size(), own.maxCoeff());
  });
  return {std::move(f.values), f.log_scale(0)};
}

#define FAVORLAB_RELATIVE_FEATURES_INSTANTIATE(T)                                                                  \
  template ScaledFeatures<T> relative_features_of_rows(const Matrix<T>&, Eigen::Index, Eigen::Index,              \
                                                       const Matrix<T>&, const AttentionConfig&,                   \
                                                       const ReferenceScales<T>&);                                 \
  template Column<T> running_maxima(const Column<T>&, T);
FAVORLAB_RELATIVE_FEATURES_INSTANTIATE(float)
FAVORLAB_RELATIVE_FEATURES_INSTANTIATE(double)
#undef FAVORLAB_RELATIVE_FEATURES_INSTANTIATE

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
