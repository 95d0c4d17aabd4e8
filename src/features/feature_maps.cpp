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
void trig_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) {
  const Eigen::Index m = w.rows();
  out.resize(u.rows(), 2 * m);
  out.leftCols(m).noalias() = u * w.transpose();  // Wu, replaced column by column by its sine
  const Eigen::Array<T, Eigen::Dynamic, 1> scale = half_squared_norms(u).exp() / std::sqrt(T(m));
  scaled_sin_cos<T>(out.leftCols(m), scale.data(), out.leftCols(m), out.rightCols(m));
}

template <class T>
void positive_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) {
  out.resize(u.rows(), w.rows());
  out.noalias() = u * w.transpose();
  shifted_exp(out.array(), half_squared_norms(u), T(1) / std::sqrt(T(w.rows())));
}

template <class T>
void hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) {
  const Eigen::Index m = w.rows();
  const Eigen::Array<T, Eigen::Dynamic, 1> h = half_squared_norms(u);
  const T factor = T(1) / std::sqrt(T(2 * m));
  out.resize(u.rows(), 2 * m);
  out.leftCols(m).noalias() = u * w.transpose();
  out.rightCols(m) = out.leftCols(m);
  shifted_exp(out.leftCols(m).array(), h, factor);
  shifted_exp(out.rightCols(m).array(), h, factor, T(-1));
}

template <class T>
void shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared, Matrix<T>& out) {
  const Eigen::Index m = prepared.rows(), d = u.cols();
  out.resize(u.rows(), m);
  out.noalias() = u * prepared.leftCols(d).transpose();
  out.rowwise() += prepared.col(d).transpose();
  shifted_exp(out.array(), half_squared_norms(u), T(1) / std::sqrt(T(m)));
}

template void trig_features(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void trig_features(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);
template void positive_features(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void positive_features(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);
template void hyperbolic_features(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void hyperbolic_features(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);
template void shifted_positive_features(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void shifted_positive_features(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);

}  // namespace favorlab
