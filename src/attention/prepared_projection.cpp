#include "attention/prepared_projection.hpp"

#include "features/gerf_projection.hpp"

#include <cmath>
#include <stdexcept>


namespace favorlab {

namespace {

// The statistics of features/gerf_projection.hpp from the raw inputs in their own precision T (one GEMM-speed pass;
// the means only steer A, and every A gives an unbiased estimator, so float accumulation is harmless), then scaled
// by d^{-1/2} (the feature maps see X d^{-1/4}) in double; no double copy of Q and K is made
// (docs/performance.md#tried-and-dropped).
template <class T>
double scaled_pair_mean_squared_norm(const Matrix<T>& q, const Matrix<T>& k, double scale_sq) {
  const double q_sq = static_cast<double>(q.squaredNorm()) / static_cast<double>(q.rows());
  const double k_sq = static_cast<double>(k.squaredNorm()) / static_cast<double>(k.rows());
  const Eigen::VectorXd q_mean = q.colwise().mean().transpose().template cast<double>();
  const Eigen::VectorXd k_mean = k.colwise().mean().transpose().template cast<double>();
  return scale_sq * (q_sq + k_sq + 2 * q_mean.dot(k_mean));
}

template <class T>
Eigen::MatrixXd scaled_pair_mean_outer_product(const Matrix<T>& q, const Matrix<T>& k, double scale_sq) {
  // QᵀQ and KᵀK as symmetric rank-L updates (half the multiply-adds of a general product), lower triangles.
  Matrix<T> qq = Matrix<T>::Zero(q.cols(), q.cols()), kk = Matrix<T>::Zero(k.cols(), k.cols());
  qq.template selfadjointView<Eigen::Lower>().rankUpdate(q.transpose());
  kk.template selfadjointView<Eigen::Lower>().rankUpdate(k.transpose());
  qq.template triangularView<Eigen::StrictlyUpper>() = qq.transpose();
  kk.template triangularView<Eigen::StrictlyUpper>() = kk.transpose();
  const Eigen::VectorXd q_mean = q.colwise().mean().transpose().template cast<double>();
  const Eigen::VectorXd k_mean = k.colwise().mean().transpose().template cast<double>();
  const Eigen::MatrixXd cross = q_mean * k_mean.transpose();
  const Eigen::MatrixXd m = qq.template cast<double>() / static_cast<double>(q.rows()) +
                            kk.template cast<double>() / static_cast<double>(k.rows()) + cross + cross.transpose();
  return scale_sq * (m + m.transpose()) / 2;  // exactly symmetric for the eigensolver
}

}  // namespace

bool needs_prepared_projection(const AttentionConfig& config) {
  return config.mechanism == Mechanism::favor && family_info(config.features).map->prepared_projection;
}

template <class T>
Matrix<T> prepared_projection(const Matrix<T>& q, const Matrix<T>& k, const Eigen::MatrixXd& w,
                              const AttentionConfig& config) {
  const Eigen::Index d = w.cols();
  const double scale_sq = 1 / std::sqrt(static_cast<double>(d));  // (d^{-1/4})², as attention_features_of_rows
  const PrepareFn prepare = family_info(config.features).prepare;
  if (prepare == nullptr) throw std::logic_error("prepared_projection: the family has no prepared projection");
  const PairStatistics stats{[&] { return scaled_pair_mean_squared_norm(q, k, scale_sq); },
                             [&] { return scaled_pair_mean_outer_product(q, k, scale_sq); }};
  const ShiftedProjection s = prepare(w, stats, config.parameters);
  return packed(s).cast<T>();
}

template Matrix<float> prepared_projection(const Matrix<float>&, const Matrix<float>&, const Eigen::MatrixXd&,
                                           const AttentionConfig&);
template Matrix<double> prepared_projection(const Matrix<double>&, const Matrix<double>&, const Eigen::MatrixXd&,
                                            const AttentionConfig&);

}  // namespace favorlab
