#pragma once
// [V_rows, 1]: rows [first, first + count) of V with a column of ones appended, so one product with the features
// gives both FAVOR's numerator (first dv columns) and its denominator D̂ (last column).
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
Matrix<T> values_with_ones(const Matrix<T>& v, Eigen::Index first, Eigen::Index count) {
  Matrix<T> out(count, v.cols() + 1);
  out.leftCols(v.cols()) = v.middleRows(first, count);
  out.col(v.cols()).setOnes();
  return out;
}

}  // namespace favorlab
