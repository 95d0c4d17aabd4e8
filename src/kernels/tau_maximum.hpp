#pragma once
// Exhaustive search for the largest τ_d(d_1, …, d_m) of Lemma 6 (kernels/chi_moments.hpp) over compositions
// (d_1, …, d_m) with parts that are multiples of `part_step` (2 for the lemma: even), at least `min_nonzero` non-zero
// parts (2 for the lemma) and total degree Σ d_i ≤ max_total.
//
// The reduction that makes it exhaustive and cheap: a zero part contributes μ(0) = 1 and τ is symmetric, so τ depends
// only on the multiset of non-zero parts — an integer partition of the total with at most m parts. A partition with k
// distinct-or-repeated parts of multiplicities c_1, c_2, … stands for m!/((m−k)! Π c_j!) compositions of length m,
// and compositions of any length m' < m are those of length m padded with zeros, so searching partitions with ≤ m
// parts covers every composition with m' ≤ m parts. For m = d = 128 and total ≤ 40 that is ≈ 10²⁵ compositions
// checked through 2 693 partitions. tests/kernels/test_moments.cpp checks the reduction against brute-force enumeration.
#include <cstdint>
#include <functional>
#include <vector>

namespace favorlab {

// Calls visit(parts) for every partition of n into at most max_parts positive parts, parts non-increasing
// (n ≥ 1, max_parts ≥ 1). The vector is only valid during the call.
void for_each_partition(int n, int max_parts, const std::function<void(const std::vector<int>&)>& visit);

// Number of compositions of length m (zeros allowed) whose non-zero parts form the multiset `parts` (any order).
double compositions_of_multiset(const std::vector<int>& parts, int m);

struct TauSearchSpec {
  int d = 2;           // dimension of the chi moments
  int max_parts = 2;   // m: compositions (d_1, …, d_m) with m ≤ max_parts
  int max_total = 40;  // Σ d_i ≤ max_total
  int part_step = 2;   // parts are multiples of this (2: Lemma 6's even parts; 1: any parts)
  int min_nonzero = 2; // at least this many non-zero parts (Lemma 6: 2)
};

struct TauSearchResult {
  double max_log_tau = 0;            // log of the largest τ (log-gamma arithmetic)
  std::vector<int> argmax;           // its non-zero parts, non-increasing (first found on a tie)
  double runner_up_log_tau = 0;      // the largest τ among the other partitions (−∞ if there is none)
  std::vector<int> runner_up;
  std::int64_t partitions_evaluated = 0;
  double compositions_covered = 0;   // compositions of length max_parts represented (see above)
  double log_bound = 0;              // log(d/(d+2))
  double rounding_tolerance = 0;     // tau_rounding_tolerance(d, max_total)
  // Partitions with τ above / equal to d/(d+2). With even parts (part_step even) every partition whose log-gamma τ
  // comes within kExactScreen·rounding_tolerance of the bound is decided exactly in integers
  // (exact_tau_vs_lemma6_bound), so these counts are exact; otherwise "above" means beyond the rounding tolerance and
  // "at" within it.
  std::int64_t partitions_above_bound = 0;
  std::int64_t partitions_at_bound = 0;
  std::int64_t exact_comparisons = 0;
};

// A bound on the rounding error of log τ computed from log-gamma values, for partitions of total ≤ max_total:
// log μ_d(j) = (j/2) log 2 + lgamma((d+j)/2) − lgamma(d/2) is a difference of two numbers as large as
// L = lgamma((d + max_total)/2), each good to a few ulps, so log μ carries an absolute error of order ε·L even though
// its value is small (measured: 3·10⁻¹³ in log τ at d = 128, 2·10⁻¹² at d = 1000, 1.5·10⁻⁹ at d = 10⁵ — a fixed
// tolerance of 10⁻¹² would be wrong from d ≈ 10³ on). log τ sums at most max_total/2 + 1 such terms:
//   tolerance = 16 ε (max_total/2 + 1) max(1, L)    (absolute in log τ, i.e. relative in τ).
double tau_rounding_tolerance(int d, int max_total);

// Partitions whose log-gamma τ lies within this many rounding tolerances of the bound are compared exactly.
inline constexpr double kExactScreen = 1000;

// Throws std::invalid_argument for d < 1, max_parts < 1, part_step < 1, min_nonzero < 1, or a max_total that admits no
// composition with min_nonzero non-zero parts.
TauSearchResult search_tau_maximum(const TauSearchSpec& spec);

}  // namespace favorlab
