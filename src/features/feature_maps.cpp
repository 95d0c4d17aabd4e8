#include "features/feature_maps.hpp"

#include <cmath>

namespace favorlab {

namespace {

template <class T>
Eigen::Array<T, Eigen::Dynamic, 1> half_squared_norms(const Matrix<T>& u) {
  return u.rowwise().squaredNorm().array() / T(2);
}

}  // namespace

template <class T>
Matrix<T> trig_features(const Matrix<T>& u, const Matrix<T>& w) {
  const Eigen::Index m = w.rows();
  const Matrix<T> proj = u * w.transpose();
  const auto scale = (half_squared_norms(u).exp() / std::sqrt(T(m))).eval();
  Matrix<T> out(u.rows(), 2 * m);
  out.leftCols(m) = (proj.array().sin().colwise() * scale).matrix();
  out.rightCols(m) = (proj.array().cos().colwise() * scale).matrix();
  return out;
}

template <class T>
Matrix<T> positive_features(const Matrix<T>& u, const Matrix<T>& w) {
  const Eigen::Index m = w.rows();
  const auto h = half_squared_norms(u);
  const Matrix<T> proj = u * w.transpose();
  return ((proj.array().colwise() - h).exp() / std::sqrt(T(m))).matrix();
}

template <class T>
Matrix<T> hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w) {
  const Eigen::Index m = w.rows();
  const auto h = half_squared_norms(u);
  const Matrix<T> proj = u * w.transpose();
  const T norm = std::sqrt(T(2 * m));
  Matrix<T> out(u.rows(), 2 * m);
  out.leftCols(m) = ((proj.array().colwise() - h).exp() / norm).matrix();
  out.rightCols(m) = (((-proj.array()).colwise() - h).exp() / norm).matrix();
  return out;
}

template <class T>
Matrix<T> shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared) {
  const Eigen::Index m = prepared.rows(), d = u.cols();
  Matrix<T> proj(u.rows(), m);
  proj.noalias() = u * prepared.leftCols(d).transpose();
  proj.rowwise() += prepared.col(d).transpose();
  proj.colwise() -= half_squared_norms(u).matrix();
  return (proj.array().exp() / std::sqrt(T(m))).matrix();
}

template Matrix<float> trig_features(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> trig_features(const Matrix<double>&, const Matrix<double>&);
template Matrix<float> positive_features(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> positive_features(const Matrix<double>&, const Matrix<double>&);
template Matrix<float> hyperbolic_features(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> hyperbolic_features(const Matrix<double>&, const Matrix<double>&);
template Matrix<float> shifted_positive_features(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> shifted_positive_features(const Matrix<double>&, const Matrix<double>&);

}  // namespace favorlab
