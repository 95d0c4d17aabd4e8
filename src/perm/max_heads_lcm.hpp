#pragma once
// The longest relative distance that H heads with their own permutations of size n can encode: the maximum, over all
// H-tuples of permutations of S_n, of the lcm of their orders.
// Reduction (exact): the lcm of all heads' cycle lengths is Π_p p^{e_p}. Assign each prime to one cycle ℓ divisible by
// p^{e_p}; the coprime prime powers assigned to one cycle sum to at most their product, which divides ℓ, so ≤ ℓ.
// Hence the prime powers packed into each head fit in its n elements, and conversely any packing of coprime prime
// powers into H bins of capacity n is realised by H permutations (one cycle per prime power, fixed points elsewhere).
// So the maximum = max Π p^{e_p} over distinct primes, p^{e_p} ≤ n, packed into H bins of capacity n.
// Solved by depth-first branch and bound: primes from largest to smallest, each with exponent E_p..0 and, for e > 0,
// one bin per distinct remaining capacity (symmetric bins are tried once), best fit first. The bound at a node is the
// current log-product plus the single-pool relaxation (every bin merged into one budget of the total free capacity,
// parts still ≤ n), exact by a DP over the remaining primes. The search is exact when it finishes within node_limit
// (`exact`); otherwise `value` is the best packing found and `upper_bound` still bounds the maximum.
// upper_bound = max_coprime_product(H·n, n) (landau.hpp), the root relaxation: a proven bound, no search.
// Ties in log space are settled with exact integers, and pruning keeps a 1e-9 margin in log, so rounding cannot cut
// off an optimum.
// n ≤ 0, heads ≤ 0, or H·n > 1e6 is std::invalid_argument.
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
