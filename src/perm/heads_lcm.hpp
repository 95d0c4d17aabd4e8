#pragma once
// Several heads, each with its own permutation: PermuteFormer can tell relative positions apart up to the lcm of the
// heads' orders (= the lcm of all cycle lengths of all heads).
// lcm_of_orders is exact (cpp_int). log10_lcm_of_orders gives the same number's log10 without big integers: the lcm is
// Π_p p^{e_p}, e_p the largest exponent of p dividing any cycle length, so log10 = Σ_p e_p log10 p, summed over
// increasing p — a fixed order, so equal lcms give bit-identical doubles (the Monte Carlo histograms key on them).
// Empty lists, or heads of different sizes, are std::invalid_argument.
#include <vector>

#include "perm/permutation.hpp"

namespace favorlab {

BigInt lcm_of_orders(const std::vector<Permutation>& heads);
double log10_lcm_of_orders(const std::vector<Permutation>& heads);

// H uniform permutations of size n, drawn one after another from rng (heads ≤ 0 or n ≤ 0: std::invalid_argument).
std::vector<Permutation> random_heads(int heads, int n, PhiloxStream& rng);

}  // namespace favorlab
