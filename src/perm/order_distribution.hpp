#pragma once
// The exact distribution of the order of a uniformly random permutation of n elements, and from it E[order^k]
// (exact rationals), quantiles (exact), and the moments of ln(order).
// Method: the number of permutations with cycle type λ is n!/z_λ, z_λ = Π_k k^{c_k} c_k!. A DP over cycle lengths
// k = 1..n keeps, for every partial size s and lcm L, the integer u(s, L) = Σ n!/z_λ' over partial cycle types λ' of s
// with parts ≤ k and lcm L. Adding c cycles of length k divides by k^c c! — one exact division by k·c per extra
// cycle, since n!/z stays an integer (z_λ' divides s! which divides n!). States with equal (s, L) merge, so the work
// grows with the number of distinct orders (thousands at n = 128), not with the number of partitions (4·10⁹ at 128).
// At the end u(n, L) = #{π ∈ S_n : order(π) = L}, summing to n!.
// Orders are kept as uint64 (g(n) < 2^64 up to n ≈ 300); n ≤ 0 or n > 256 is std::invalid_argument.
#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <vector>

#include "perm/permutation.hpp"

namespace favorlab {

using BigRational = boost::multiprecision::cpp_rational;

struct OrderDistribution {
  int n = 0;
  BigInt permutations;                // n!
  std::vector<std::uint64_t> orders;  // the distinct orders, increasing
  std::vector<BigInt> counts;         // counts[j] = number of permutations of order orders[j]

  BigRational moment(int k) const;                  // E[order^k], k ≥ 0
  BigRational probability(std::size_t j) const;     // P(order = orders[j])
  std::uint64_t quantile(const BigRational& q) const;  // smallest L with P(order ≤ L) ≥ q, q ∈ (0, 1]
};

OrderDistribution order_distribution(int n);

// E[order] alone, exact (for the tests against enumeration and OEIS A060014: n! E[order] = Σ_{π∈S_n} order(π)).
BigRational expected_order(int n);

// Floating summaries of the exact distribution (the moments of order from exact central moments).
struct OrderSummary {
  double mean = 0, sd = 0, skewness = 0, excess_kurtosis = 0;
  double mean_log = 0, variance_log = 0, skewness_log = 0, excess_kurtosis_log = 0;  // of ln(order)
  std::uint64_t median = 0;            // smallest L with P(order ≤ L) ≥ 1/2
  double typical = 0;                  // exp(E[ln order]) (the geometric mean)
};

OrderSummary summarize(const OrderDistribution& d);

}  // namespace favorlab
