#pragma once
// all_finite(x): true iff no entry of x is NaN or ±∞, as one vectorized pass: x·0 is ±0 for every finite entry and
// NaN for NaN and ±∞, and a NaN carries through the sum (no -ffast-math here), so the sum is 0 exactly when every
// entry is finite — whatever their size (a sum of x itself would overflow for large finite entries). Eigen's
// allFinite() evaluates all() of an element-wise comparison, which it does not vectorize, and every Q, K and V an
// attention call validates would pay for it (docs/performance.md#tried-and-dropped).
#include <Eigen/Core>

namespace favorlab {

template <class Derived>
bool all_finite(const Eigen::DenseBase<Derived>& x) {
  using Scalar = typename Derived::Scalar;
  return (x.derived().array() * Scalar(0)).sum() == Scalar(0);
}

}  // namespace favorlab
