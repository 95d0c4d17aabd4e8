#include "features/feature_maps.hpp"

#include <cmath>

#include "features/scaled_sin_cos.hpp"
#include "features/shifted_exp.hpp"

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
  Matrix<T> proj(u.rows(), m);
  proj.noalias() = u * w.transpose();
  const Eigen::Array<T, Eigen::Dynamic, 1> scale = half_squared_norms(u).exp() / std::sqrt(T(m));
  Matrix<T> out(u.rows(), 2 * m);
  scaled_sin_cos<T>(proj, scale.data(), out.leftCols(m), out.rightCols(m));
  return out;
}

template <class T>
Matrix<T> positive_features(const Matrix<T>& u, const Matrix<T>& w) {
  Matrix<T> out(u.rows(), w.rows());
  out.noalias() = u * w.transpose();
  shifted_exp(out.array(), half_squared_norms(u), T(1) / std::sqrt(T(w.rows())));
  return out;
}

template <class T>
Matrix<T> hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w) {
  const Eigen::Index m = w.rows();
  const Eigen::Array<T, Eigen::Dynamic, 1> h = half_squared_norms(u);
  const T factor = T(1) / std::sqrt(T(2 * m));
  Matrix<T> out(u.rows(), 2 * m);
  out.leftCols(m).noalias() = u * w.transpose();
  out.rightCols(m) = out.leftCols(m);
  shifted_exp(out.leftCols(m).array(), h, factor);
  shifted_exp(out.rightCols(m).array(), h, factor, T(-1));
  return out;
}

template <class T>
Matrix<T> shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared) {
  const Eigen::Index m = prepared.rows(), d = u.cols();
  Matrix<T> proj(u.rows(), m);
  proj.noalias() = u * prepared.leftCols(d).transpose();
  proj.rowwise() += prepared.col(d).transpose();
  shifted_exp(proj.array(), half_squared_norms(u), T(1) / std::sqrt(T(m)));
  return proj;
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
