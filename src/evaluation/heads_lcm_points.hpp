#pragma once
// The head counts H of `favorlab perm-order`: H heads of one size, each with its own uniform permutation; a Monte
// Carlo sample of log10 of the lcm of their orders, its row beside the exact maximum over all H-tuples
// (perm/max_heads_lcm.hpp) with its single-pool upper bound, and PermuteFormer's "the lcm can be up to 1e27" for
// BERT-base's 12 heads of size 64, decided exactly from the maximum reachable.
#include <cstdint>
#include <map>

#include "mc/parallel_trials.hpp"
#include "perm/max_heads_lcm.hpp"
#include "results/result.hpp"
#include "stats/value_counts.hpp"

namespace favorlab {

inline constexpr int kLcmClaimHeads = 12;        // PF: "a model with the same size as BERT-base": 12 heads of size 64
inline constexpr int kLcmClaimHeadSize = 64;
inline constexpr double kLcmClaimLog10 = 27;     // PF: "can be up to 1e27"

// log10 lcm of the orders of `heads` uniform permutations of `head_size`, trial t from PhiloxStream(seed, 2000 + heads,
// t), counted by value.
ValueCounts<double> sample_heads_lcm(int heads, int head_size, std::int64_t trials, std::uint64_t seed, int threads,
                                     const ProgressFn& progress);

// The "heads_lcm" row of H heads: the sample's mean, quantiles and histogram, P(lcm ≥ 1e27) with its Clopper–Pearson
// upper end at `alpha`, and the exact maximum with its bound.
Json heads_lcm_row(int heads, int head_size, const ValueCounts<double>& tally, const HeadsLcmMaximum& maximum,
                   double alpha);

// The check of "up to 1e27": holds when the exact maximum over 12-tuples of size 64 reaches 1e27, undecided when the
// search was not exact. `maxima` and `tallies` (by H) are reused when they hold H = 12 at head size 64.
Check heads_lcm_claim(int head_size, const std::map<int, HeadsLcmMaximum>& maxima,
                      const std::map<int, ValueCounts<double>>& tallies);

}  // namespace favorlab
