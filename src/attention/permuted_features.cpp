#include "attention/permuted_features.hpp"

#include <algorithm>
#include <cmath>

#include "features/feature_family.hpp"
#include "linalg/gemm.hpp"

namespace favorlab {

namespace {

// The stabilized positive features of rows [first, first + count) of X in exponent form: with u = d^{-1/4} x,
// φ(u) = exp(proj − half_norm) / √m, proj = W u (row-major), and top = max_a proj_a, the row's largest exponent.
template <class T>
struct Exponents {
  RowMatrix<T> proj;
  Column<T> top, half_norm;
};

template <class T>
Exponents<T> positive_exponents(const Matrix<T>& x, Eigen::Index first, Eigen::Index count, const Matrix<T>& w) {
  const T input_scale = T(1 / std::sqrt(std::sqrt(double(x.cols()))));
  const Matrix<T> u = x.middleRows(first, count) * input_scale;
  Exponents<T> e;
  e.proj.resize(count, w.rows());
  gemm<T>(u, Op::none, w, Op::transpose, T(0), e.proj);
  e.top = e.proj.rowwise().maxCoeff().array();
  e.half_norm = u.rowwise().squaredNorm().array() / T(2);
  return e;
}

template <class T>
T feature_factor(const Matrix<T>& w) {
  return T(1) / std::sqrt(T(w.rows()));
}

}  // namespace

template <class T>
PermutedFeatures<T>::PermutedFeatures(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& w,
                                      const AttentionConfig& config, const PositionPermutation& positions, bool fuse)
    : q_(q),
      k_(k),
      w_(w),
      config_(config),
      positions_(positions),
      fused_(fuse && config.stabilizer && family_info(config.features).map == &kPositiveMap) {
  if (!fused_) return;
  // The positive map's feature a is exp(ω_aᵀu − …): its columns follow W's rows, so W's rows in the cycle layout's
  // order give projections already in that layout.
  const std::vector<int>& order = positions.column_order();
  w_cycles_.resize(w.rows(), w.cols());
  for (Eigen::Index j = 0; j < w.rows(); ++j) w_cycles_.row(j) = w.row(order[std::size_t(j)]);
}

template <class T>
PermutedBlock<T> PermutedFeatures<T>::keys(Eigen::Index first, Eigen::Index rows) const {
  PermutedBlock<T> out;
  if (!fused_) {
    const BlockFeatures<T> f = block_features_of_rows(k_, first, rows, w_, config_);
    out.values = positions_.gather_rows(f.values, first);
    out.log_scale = f.log_scale;
    return out;
  }
  const Exponents<T> e = positive_exponents(k_, first, rows, w_cycles_);
  out.log_scale = (e.top - e.half_norm).maxCoeff();  // exponents ω_aᵀu − ‖u‖²/2 − log_scale ≤ 0
  out.values =
      positions_.rotate_exp_rows(e.proj, Column<T>(e.half_norm + out.log_scale), feature_factor(w_), first);
  return out;
}

template <class T>
PermutedRows<T> PermutedFeatures<T>::queries(Eigen::Index first, Eigen::Index rows) const {
  PermutedRows<T> out;
  if (!fused_) {
    const ScaledFeatures<T> f = attention_features_of_rows(q_, first, rows, w_, config_);
    out.values = positions_.gather_rows(f.values, first);
    out.log_scale = f.log_scale;
    return out;
  }
  const Exponents<T> e = positive_exponents(q_, first, rows, w_cycles_);
  out.values = positions_.rotate_exp_rows(e.proj, e.top, feature_factor(w_), first);
  out.log_scale = e.top - e.half_norm;
  return out;
}

template <class T>
PermutedCausalKeys<T> PermutedFeatures<T>::causal_keys(Eigen::Index first, Eigen::Index rows, T carried) const {
  PermutedCausalKeys<T> out;
  if (!fused_) {
    ScaledFeatures<T> f = relative_features_of_rows<T>(k_, first, rows, w_, config_, [carried](const Column<T>& own) {
      return running_maxima(own, carried);
    });
    out.values = positions_.gather_rows(f.values, first);
    out.running = std::move(f.log_scale);
    return out;
  }
  const Exponents<T> e = positive_exponents(k_, first, rows, w_cycles_);
  out.running = running_maxima(Column<T>(e.top - e.half_norm), carried);
  // φ(k_j)·exp(−running_j) = exp(proj − half_norm_j − running_j)/√m: the running maximum goes into the exponent.
  out.values =
      positions_.rotate_exp_rows(e.proj, Column<T>(e.half_norm + out.running), feature_factor(w_), first);
  return out;
}

template class PermutedFeatures<float>;
template class PermutedFeatures<double>;

}  // namespace favorlab
