#pragma once
// The gathers P_π^{pos(i)} of PermuteFormer for every token i of one head ((P_π^t x)_a = x_{π^t(a)}):
//   1-D: token i is gathered with π^i.
//   2-D: token i = y·W + x is gathered with π_x^x on the first half of the columns and π_y^y on the second half.
//
// The cycle layout. Write each cycle of π as a_0, a_1 = π(a_0), …, a_{c−1}; then π^t(a_k) = a_{(k+t) mod c}, so in a
// layout that stores the cycle's columns contiguously, a_0 … a_{c−1}, P^t rotates that segment left by t mod c: two
// contiguous copies, no index map, no gather. Every output of this class is in that layout: column j holds the
// original feature column column_order()[j] (fixed points first, then the cycles of π, then, in 2-D, those of π_y).
// The relabelling is one fixed permutation S of the feature columns, the same for queries and keys, so every product
// (S P^i φ)ᵀ(S P^j φ) = (P^i φ)ᵀ(P^j φ) — and with it attention — is unchanged; only sums over the m features run in
// another order. Stepping to the next token advances one offset per cycle (about ln m of them), not m lookups, and
// nothing is composed or gathered per token (docs/performance.md#tried-and-dropped). Memory O(m) whatever L is.
#include <Eigen/Core>

#include <cstdint>
#include <optional>
#include <vector>

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
  // Column j of the cycle layout holds original column column_order()[j] (a permutation of 0 … columns() − 1).
  const std::vector<int>& column_order() const { return order_; }
  // values: rows of features in the original column order (column-major). Row r of the result is
  // P^{pos(first + r)} values_r in the cycle layout: out(r, j) = values(r, map_{first+r}(column_order()[j])).
  // Row-major output, written one contiguous row at a time (see the .cpp for why the strided reads are cheap).
  template <class T>
  RowMatrix<T> gather_rows(const Matrix<T>& values, Eigen::Index first) const;
  // proj: rows already in the cycle layout (row-major). Row r of the result is
  // exp(rotated proj_r − shift(r)) · factor, rotated by token first + r: the permutation fused with the exponential of
  // the positive feature map (attention/permuted_features.hpp); contiguous copies, then one SIMD exp over the row.
  template <class T>
  RowMatrix<T> rotate_exp_rows(const RowMatrix<T>& proj, const Eigen::Array<T, Eigen::Dynamic, 1>& shift, T factor,
                               Eigen::Index first) const;
  // The index map of token i in the original column order (columns() entries), from the powers of π directly: the
  // independent statement of what the rotations compute.
  void index_map(Eigen::Index token, std::int32_t* out) const;

 private:
  enum class Axis : unsigned char { none, x, y };  // none: fixed points, never rotated
  struct Cycle {
    int start, length;  // columns [start, start + length) of the cycle layout
    Axis axis;
  };
  class Offsets;  // each cycle's rotation for consecutive tokens (the .cpp)
  // Calls piece(dst, src, count) for the contiguous pieces of the rotation at `offsets`: out[dst + i] = in[src + i]
  // in cycle-layout columns.
  template <class Piece>
  void for_each_piece(const Offsets& offsets, Piece&& piece) const;
  void check_tokens(Eigen::Index first, Eigen::Index count) const;
  void check_columns(Eigen::Index count) const;

  int columns_;
  Eigen::Index width_;  // 0 in 1-D
  Eigen::Index length_;
  Permutation pi_x_;
  std::optional<Permutation> pi_y_;
  std::vector<int> order_;
  std::vector<Cycle> cycles_;
};

}  // namespace favorlab
