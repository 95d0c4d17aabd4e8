#pragma once
// The longest relative distance that H heads with their own permutations of size n can encode: the maximum, over all
// H-tuples of permutations of S_n, of the lcm of their orders — equivalently the largest product of coprime prime
// powers ≤ n packed into H bins of capacity n, found by depth-first branch and bound (single-pool relaxation bound).
// The search is exact when it finishes within node_limit (`exact`); otherwise `value` is the best packing found and
// `upper_bound` still bounds the maximum. upper_bound = max_coprime_product(H·n, n) (landau.hpp): proven, no search.
// n ≤ 0, heads ≤ 0, or H·n > 1e6 is std::invalid_argument.
// Derivation: docs/theory.md#longest-distance-over-heads
#include <cstdint>
#include <vector>

#include "perm/permutation.hpp"

namespace favorlab {

struct HeadsLcmMaximum {
  BigInt value;                          // the largest lcm found (the maximum when exact)
  double log10_value = 0;
  std::vector<std::vector<int>> heads;   // per head: its prime-power cycle lengths (the rest are fixed points)
  BigInt upper_bound;                    // single-pool relaxation, ≥ the maximum
  double log10_upper_bound = 0;
  bool exact = false;
  std::int64_t nodes = 0;                // search nodes visited
};

HeadsLcmMaximum max_heads_lcm(int n, int heads, std::int64_t node_limit = 200'000'000);

}  // namespace favorlab
