#pragma once
// The gathers P_π^{pos(i)} of PermuteFormer for every token i of one head ((P_π^t x)_a = x_{π^t(a)}):
//   1-D: token i is gathered with π^i.
//   2-D: token i = y·W + x is gathered with π_x^x on the first half of the columns and π_y^y on the second half.
// No table of powers: a block of consecutive tokens starts from π^first, formed from the cycles of π in O(m)
// (Permutation::power), and each next token's map is one composition away, π^{t+1}(a) = π(π^t(a)) — m lookups in
// an array that stays in L1. Memory O(m) whatever L is (an L × m int32 table was 4 MiB per head at L = 4096 and took
// 0.8–1.3 ms to build, measured; its rows then streamed through the cache during the gathers).
#include <Eigen/Core>

#include <cstdint>
#include <optional>

#include "attention/permute_config.hpp"
#include "features/feature_maps.hpp"
#include "perm/permutation.hpp"

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
  class Maps;  // the index maps of consecutive tokens (the .cpp)
  // dst[a] = src[map(a) · stride] for the map of the token at `maps`: from column-major (stride = rows) or row-major
  // (stride 1) data.
  template <class T>
  void gather_row(const T* src, Eigen::Index stride, const Maps& maps, T* dst) const;
  void check_tokens(Eigen::Index first, Eigen::Index count) const;

  int columns_;
  Eigen::Index width_;  // 0 in 1-D
  Eigen::Index length_;
  Permutation pi_x_;
  std::optional<Permutation> pi_y_;
};

}  // namespace favorlab
