#pragma once
// The gathers P_π^{pos(i)} of PermuteFormer for every token i of one head, from cached power tables
// (perm/permutation_powers.hpp: row t of a table is π^t as an index map, (P_π^t x)_a = x_{π^t(a)}).
//   1-D: token i is gathered with π^i.
//   2-D: token i = y·W + x is gathered with π_x^x on the first half of the columns and π_y^y on the second half.
// A table only needs min(positions, order(π)) rows, since π^t = π^{t mod order}: a π of small order costs O(order·m)
// memory whatever L is; otherwise O(L·m) (1-D) or O((W + H)·m/2) (2-D) int32.
#include <Eigen/Core>

#include <cstdint>
#include <optional>

#include "attention/permute_config.hpp"
#include "features/feature_maps.hpp"
#include "perm/permutation.hpp"
#include "perm/permutation_powers.hpp"

namespace favorlab {

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class PositionPermutation {
 public:
  // Expects a validated head (validate_permute_head); length = L.
  PositionPermutation(const PermuteHead& head, const PermuteLayout& layout, Eigen::Index length);

  int columns() const { return columns_; }
  // Row r of the result is P^{pos(first + r)} applied to row r of values: out(r, a) = values(r, map_{first+r}(a)).
  // Row-major output, written one contiguous row at a time from the column-major input (see the .cpp for why that
  // read order is cheap); Eigen's products take it as it is.
  template <class T>
  RowMatrix<T> gather_rows(const Matrix<T>& values, Eigen::Index first) const;
  // Row r of the result is exp(proj(r, map_{first+r}(a)) − shift(r)) · factor: the gather fused with the exponential
  // of the positive feature map (attention/permuted_features.hpp), reading each row of the row-major projections
  // contiguously and applying Eigen's SIMD exp to the gathered row; no pass over column-major features.
  template <class T>
  RowMatrix<T> gather_exp_rows(const RowMatrix<T>& proj, const Eigen::Array<T, Eigen::Dynamic, 1>& shift, T factor,
                               Eigen::Index first) const;
  // The index map of token i (columns() entries).
  void index_map(Eigen::Index token, std::int32_t* out) const;

 private:
  // dst[a] = src[map_token(a) · stride]: one row of a gather, from column-major (stride = rows) or row-major (1) data.
  template <class T>
  void gather_row(const T* src, Eigen::Index stride, Eigen::Index token, T* dst) const;
  const std::int32_t* x_row(Eigen::Index t) const { return x_.row(t % x_period_); }
  const std::int32_t* y_row(Eigen::Index t) const { return y_->row(t % y_period_); }

  int columns_;
  Eigen::Index width_;  // 0 in 1-D
  Eigen::Index x_period_, y_period_ = 1;
  PermutationPowers x_;
  std::optional<PermutationPowers> y_;
};

}  // namespace favorlab
