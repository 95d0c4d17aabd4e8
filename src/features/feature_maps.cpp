#include "features/feature_maps.hpp"

#include <cmath>
#include <utility>

#include "features/feature_map.hpp"
#include "features/row_maxima.hpp"
#include "features/scaled_sin_cos.hpp"
#include "features/shifted_exp.hpp"
#include "linalg/gemm.hpp"

namespace favorlab {

namespace {

template <class T>
Column<T> half_squared_norms(const Matrix<T>& u) {
  return u.rowwise().squaredNorm().array() / T(2);
}

}  // namespace

template <class T>
void trig_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) {
  const Eigen::Index m = w.rows();
  out.resize(u.rows(), 2 * m);
  gemm<T>(u, Op::none, w, Op::transpose, T(0), out.leftCols(m));  // Wu, replaced column by column by its sine
  const Eigen::Array<T, Eigen::Dynamic, 1> scale = half_squared_norms(u).exp() / std::sqrt(T(m));
  scaled_sin_cos<T>(out.leftCols(m), scale.data(), out.leftCols(m), out.rightCols(m));
}

template <class T>
void positive_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) {
  out.resize(u.rows(), w.rows());
  gemm<T>(u, Op::none, w, Op::transpose, T(0), out);
  shifted_exp(out.array(), half_squared_norms(u), T(1) / std::sqrt(T(w.rows())));
}

template <class T>
void hyperbolic_features(const Matrix<T>& u, const Matrix<T>& w, Matrix<T>& out) {
  const Eigen::Index m = w.rows();
  const Eigen::Array<T, Eigen::Dynamic, 1> h = half_squared_norms(u);
  const T factor = T(1) / std::sqrt(T(2 * m));
  out.resize(u.rows(), 2 * m);
  gemm<T>(u, Op::none, w, Op::transpose, T(0), out.leftCols(m));
  out.rightCols(m) = out.leftCols(m);
  shifted_exp(out.leftCols(m).array(), h, factor);
  shifted_exp(out.rightCols(m).array(), h, factor, T(-1));
}

template <class T>
void shifted_positive_features(const Matrix<T>& u, const Matrix<T>& prepared, Matrix<T>& out) {
  const Eigen::Index m = prepared.rows(), d = u.cols();
  out.resize(u.rows(), m);
  gemm<T>(u, Op::none, prepared.leftCols(d), Op::transpose, T(0), out);
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

// ---------------------------------------------------------------------------------------------------------------
// The stabilized forms (attention/attention_features.hpp): φ(u) = exp(log_scale) · values with every value ≤ 1.
//   trig:        values [sin Wu, cos Wu]/√m,                 log scale ‖u‖²/2
//   positive:    values exp(Wu − max_i ω_iᵀu)/√m,            log scale max_i (ω_iᵀu) − ‖u‖²/2
//   hyperbolic:  values exp(±Wu − max_i |ω_iᵀu|)/√(2m),      log scale max_i |ω_iᵀu| − ‖u‖²/2
//   shifted positive: the positive map's, with W'u + c for Wu
// ---------------------------------------------------------------------------------------------------------------

namespace {

// U Wᵀ; for the shifted positive map W is the prepared [W' | c] (m×(d+1)) and the offsets c are added to each row.
template <class T, bool kShifted>
Matrix<T> projected(const Matrix<T>& u, const Matrix<T>& w) {
  Matrix<T> proj(u.rows(), w.rows());
  if constexpr (!kShifted) {
    gemm<T>(u, Op::none, w, Op::transpose, T(0), proj);
  } else {
    gemm<T>(u, Op::none, w.leftCols(u.cols()), Op::transpose, T(0), proj);
    proj.rowwise() += w.col(u.cols()).transpose();
  }
  return proj;
}


template <class T>
void trig_stabilized(const Matrix<T>& u, const Matrix<T>& w, ScaledFeatures<T>& out) {
  const Eigen::Index m = w.rows();
  const Column<T> half_norm = half_squared_norms(u);
  const Matrix<T> proj = projected<T, false>(u, w);
  const Column<T> scale = Column<T>::Constant(u.rows(), T(1) / std::sqrt(T(m)));
  out.values.resize(u.rows(), 2 * m);
  scaled_sin_cos<T>(proj, scale.data(), out.values.leftCols(m), out.values.rightCols(m));
  out.log_scale = half_norm;
}

// exp(±proj − shift_i)/√(2m) into the two halves of values.
template <class T>
void hyperbolic_values(const Matrix<T>& proj, const Column<T>& shift, Matrix<T>& values) {
  const Eigen::Index m = proj.cols();
  const T scale = T(1) / std::sqrt(T(2 * m));
  values.resize(proj.rows(), 2 * m);
  values.leftCols(m) = proj;
  values.rightCols(m) = proj;
  shifted_exp(values.leftCols(m).array(), shift, scale);
  shifted_exp(values.rightCols(m).array(), shift, scale, T(-1));
}

template <class T>
void hyperbolic_stabilized(const Matrix<T>& u, const Matrix<T>& w, ScaledFeatures<T>& out) {
  const Column<T> half_norm = half_squared_norms(u);
  const Matrix<T> proj = projected<T, false>(u, w);
  const Column<T> top = row_maxima<T>(proj.array().abs());
  hyperbolic_values(proj, top, out.values);
  out.log_scale = top - half_norm;
}

// The exponents go relative to the reference: ±ω_iᵀu − ‖u‖²/2 − reference_i ≤ 0.
template <class T>
void hyperbolic_relative(const Matrix<T>& u, const Matrix<T>& w, const ReferenceScales<T>& reference,
                         ScaledFeatures<T>& out) {
  const Matrix<T> proj = projected<T, false>(u, w);
  const Column<T> half_norm = half_squared_norms(u);
  const Column<T> top = row_maxima<T>(proj.array().abs());
  out.log_scale = reference(top - half_norm);
  hyperbolic_values(proj, Column<T>(half_norm + out.log_scale), out.values);
}

template <class T, bool kShifted>
void positive_stabilized(const Matrix<T>& u, const Matrix<T>& w, ScaledFeatures<T>& out) {
  const Eigen::Index m = w.rows();
  const Column<T> half_norm = half_squared_norms(u);
  Matrix<T> proj = projected<T, kShifted>(u, w);
  const Column<T> top = row_maxima<T>(proj.array());
  shifted_exp(proj.array(), top, T(1) / std::sqrt(T(m)));
  out.values = std::move(proj);
  out.log_scale = top - half_norm;
}

// The exponents go relative to the reference: ω_iᵀu − ‖u‖²/2 − reference_i ≤ 0.
template <class T, bool kShifted>
void positive_relative(const Matrix<T>& u, const Matrix<T>& w, const ReferenceScales<T>& reference,
                       ScaledFeatures<T>& out) {
  const Eigen::Index m = w.rows();
  Matrix<T> proj = projected<T, kShifted>(u, w);
  const Column<T> half_norm = half_squared_norms(u);
  const Column<T> top = row_maxima<T>(proj.array());
  out.log_scale = reference(top - half_norm);
  const Column<T> shift = half_norm + out.log_scale;
  shifted_exp(proj.array(), shift, T(1) / std::sqrt(T(m)));
  out.values = std::move(proj);
}

template <class T>
constexpr MapFunctions<T> trig_functions() {
  return {.features = trig_features<T>, .stabilized = trig_stabilized<T>};
}

template <class T>
constexpr MapFunctions<T> hyperbolic_functions() {
  return {.features = hyperbolic_features<T>, .stabilized = hyperbolic_stabilized<T>,
          .relative = hyperbolic_relative<T>};
}

template <class T, bool kShifted>
constexpr MapFunctions<T> positive_functions() {
  MapFunctions<T> f{.stabilized = positive_stabilized<T, kShifted>, .relative = positive_relative<T, kShifted>};
  if constexpr (kShifted)
    f.features = shifted_positive_features<T>;
  else
    f.features = positive_features<T>;
  return f;
}

}  // namespace

constinit const FeatureMap kTrigMap{.code = FeatureMapCode::trig, .columns_per_row = 2, .prepared_projection = false,
                                    .f32 = trig_functions<float>(), .f64 = trig_functions<double>()};
constinit const FeatureMap kPositiveMap{.code = FeatureMapCode::positive, .columns_per_row = 1,
                                        .prepared_projection = false, .f32 = positive_functions<float, false>(),
                                        .f64 = positive_functions<double, false>()};
constinit const FeatureMap kHyperbolicMap{.code = FeatureMapCode::hyperbolic, .columns_per_row = 2,
                                          .prepared_projection = false, .f32 = hyperbolic_functions<float>(),
                                          .f64 = hyperbolic_functions<double>()};
constinit const FeatureMap kShiftedPositiveMap{.code = FeatureMapCode::shifted_positive, .columns_per_row = 1,
                                               .prepared_projection = true, .f32 = positive_functions<float, true>(),
                                               .f64 = positive_functions<double, true>()};

}  // namespace favorlab
