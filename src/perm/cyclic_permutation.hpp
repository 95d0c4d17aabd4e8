#pragma once
// A permutation with prescribed cycle lengths: consecutive elements form each cycle (0→1→…→ℓ−1→0, then the next
// cycle), elements beyond Σℓ are fixed. Used to build a π of small, known order for PermuteFormer's periodicity
// (order = lcm of the lengths). Throws std::invalid_argument if a length is < 1 or Σℓ > n.
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "perm/permutation.hpp"

namespace favorlab {

inline Permutation permutation_with_cycles(int n, const std::vector<int>& lengths) {
  std::vector<int> image(static_cast<std::size_t>(n > 0 ? n : 0));
  std::iota(image.begin(), image.end(), 0);
  int start = 0;
  for (int len : lengths) {
    if (len < 1 || start + len > n)
      throw std::invalid_argument("permutation_with_cycles: cycle lengths must be >= 1 and sum to at most n = " +
                                  std::to_string(n));
    for (int a = 0; a < len; ++a) image[static_cast<std::size_t>(start + a)] = start + (a + 1) % len;
    start += len;
  }
  return Permutation(std::move(image));
}

// Cycles of lengths 3, 4, 5, 3, 4, 5, … while they fit, then one cycle of the 2–4 elements left (a single leftover
// element stays fixed): every length divides 60, so the order is 60 for n ≥ 12.
inline Permutation order_sixty_permutation(int n) {
  std::vector<int> lengths;
  int used = 0;
  for (int k = 0;; ++k) {
    const int len = 3 + k % 3;
    if (used + len > n) break;
    lengths.push_back(len);
    used += len;
  }
  if (n - used >= 2) lengths.push_back(n - used);  // 2, 3 or 4
  return permutation_with_cycles(n, lengths);
}

}  // namespace favorlab
