#pragma once
// The number of distinct orders of permutations of s elements, for every s ≤ n, without the order distribution.
// An order is a product of prime powers p^e of distinct primes, reachable in S_s exactly when Σ p^e ≤ s (landau.hpp:
// the cycles p^e plus fixed points), so a 0/1 knapsack over primes (at most one power of each) counts the sets of
// each exact sum, and their running sum counts the orders of S_s. Used to size the exact DP of order_distribution.hpp,
// whose state count grows with these numbers (doubles: the memory estimate does its arithmetic in double).
#include <vector>

namespace favorlab {

// out[s] = |{order(π) : π ∈ S_s}| for s = 0 … n (out[0] = 1: the empty permutation). n < 0 gives {}; n > 1024 is
// std::invalid_argument (the knapsack's work grows as π(n)·n, and no caller needs more than order_distribution's 256).
std::vector<double> distinct_order_counts(int n);

}  // namespace favorlab
