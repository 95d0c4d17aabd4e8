#pragma once
// Landau's function g(n) = the largest order of a permutation of n elements, exact, with a maximising cycle type.
// Why prime powers suffice: the order is lcm(ℓ_1, …) = Π_p p^{e_p}; each p^{e_p} divides some ℓ_j, and pairwise coprime
// factors ≥ 2 of one ℓ_j sum to at most their product ≤ ℓ_j. So the cycle type made of the p^{e_p} (plus fixed points)
// has the same order and no more elements: g(n) = max Π p^{e_p} over distinct primes with Σ p^{e_p} ≤ n.
// That is a group knapsack over primes (one exponent per prime), solved exactly by DP in O(π(n) · n · log n) cpp_int
// operations. max_coprime_product generalises it with a cap on every part (used as a bound for several heads).
// n ≤ 0 (budget ≤ 0, max_part ≤ 0) is std::invalid_argument.
#include <vector>

#include "perm/permutation.hpp"

namespace favorlab {

struct CoprimeProduct {
  BigInt value;                 // Π of the parts
  std::vector<int> parts;       // the prime powers p^e > 1, descending (empty when the value is 1)
};

// max Π p^{e_p} over distinct primes p with p^{e_p} ≤ max_part and Σ p^{e_p} ≤ budget.
CoprimeProduct max_coprime_product(int budget, int max_part);

struct LandauResult {
  BigInt value;                 // g(n)
  std::vector<int> cycle_type;  // a maximiser: its prime powers, descending, then fixed points; sums to n
};

LandauResult landau(int n);

}  // namespace favorlab
