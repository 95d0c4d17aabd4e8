#pragma once
// Row maxima of a column-major block (an array expression with at least one column) as one sweep over its columns:
// contiguous reads, the running maxima in L1. Eigen's rowwise().maxCoeff() strides across all columns for each packet
// of rows instead (docs/performance.md#tried-and-dropped). The values are the same (max is exact).
#include <Eigen/Core>

namespace favorlab {

template <class T, class Block>
Eigen::Array<T, Eigen::Dynamic, 1> row_maxima(const Block& x) {
  Eigen::Array<T, Eigen::Dynamic, 1> top = x.col(0);
  for (Eigen::Index c = 1; c < x.cols(); ++c) top = top.max(x.col(c));
  return top;
}

}  // namespace favorlab
