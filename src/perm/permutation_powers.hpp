#pragma once
// The cached power table of a permutation, what PermuteFormer attention gathers with.
// For π on m elements and a length L: an L × m row-major table of int32, row i = π^i as an index map:
//     table(i, a) = π^i(a)        (row 0 is the identity).
// Built in O(L·m) time by one composition per row: π^{i+1}(a) = π(π^i(a)).
// Applying P_π^i (P_π,ab = 1 iff π(a) = b, so (P_π x)_a = x_{π(a)} and (P_π^i x)_a = x_{π^i(a)}) is the gather
//     out[a] = x[table(i, a)]                       — apply(i, x, out)
// and its transpose P_π^{−i} = (P_π^i)ᵀ is the scatter out[table(i, a)] = x[a] — apply_transpose(i, x, out).
// PermuteFormer: q̃_i = r^i P_π^i φ(q_i) and k̃_j = r^{−j} P_π^j φ(k_j) are both gathers with rows i and j;
// q̃_iᵀ k̃_j then depends on j − i only, since (P_π^i)ᵀ P_π^j = P_π^{j−i}.
// Rows repeat with period order(π): table(i, ·) = table(i mod order, ·).
// length ≤ 0 or L·m beyond the int32 index range of one table is std::invalid_argument.
#include <cstdint>
#include <vector>

#include "perm/permutation.hpp"

namespace favorlab {

class PermutationPowers {
 public:
  PermutationPowers(const Permutation& pi, std::int64_t length);

  std::int64_t length() const { return length_; }
  int size() const { return m_; }
  const std::int32_t* row(std::int64_t i) const { return table_.data() + i * m_; }
  std::int32_t at(std::int64_t i, int a) const { return table_[static_cast<std::size_t>(i * m_ + a)]; }
  const std::vector<std::int32_t>& table() const { return table_; }

  // out[a] = x[π^i(a)] = (P_π^i x)_a, for a = 0..m−1. x and out must not overlap.
  template <class T>
  void apply(std::int64_t i, const T* x, T* out) const {
    const std::int32_t* r = row(i);
    for (int a = 0; a < m_; ++a) out[a] = x[r[a]];
  }
  // out[π^i(a)] = x[a], i.e. out = (P_π^i)ᵀ x = P_π^{−i} x. x and out must not overlap.
  template <class T>
  void apply_transpose(std::int64_t i, const T* x, T* out) const {
    const std::int32_t* r = row(i);
    for (int a = 0; a < m_; ++a) out[r[a]] = x[a];
  }

 private:
  std::int64_t length_;
  int m_;
  std::vector<std::int32_t> table_;
};

}  // namespace favorlab
