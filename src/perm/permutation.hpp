#pragma once
// A permutation π of {0, …, n−1}, stored as its image: π(a) = image[a].
// Conventions used throughout src/perm (and by PermuteFormer attention on top of it):
//   compose(f, g) = f ∘ g, i.e. (f ∘ g)(a) = f(g(a));  power(k) = π ∘ π ∘ … (k times), power(0) = identity.
//   The permutation matrix is P_π with P_π,ab = 1 iff π(a) = b (PermuteFormer's definition), so (P_π x)_a = x_{π(a)}:
//   applying P_π to a vector is the *gather* out[a] = x[image[a]], and P_π P_σ = P_{σ∘π}; in particular P_π^i is the
//   gather with the index map π^i (attention/position_permutation.hpp).
// order() = lcm of the cycle lengths, exact (Boost.Multiprecision cpp_int); order_u64() throws std::overflow_error if
// the order does not fit in 64 bits (for n ≤ 300 it always does: Landau's g(300) < 2^64).
// A uniformly random permutation comes from Fisher–Yates on a PhiloxStream, so it depends only on (seed, stream,
// index): identical for any thread count.
// Size n ≤ 0, or an image that is not a bijection of {0, …, n−1}, is std::invalid_argument.
#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <vector>

#include "rng/philox_stream.hpp"

namespace favorlab {

using BigInt = boost::multiprecision::cpp_int;

class Permutation {
 public:
  explicit Permutation(std::vector<int> image);
  static Permutation identity(int n);

  int size() const { return static_cast<int>(image_.size()); }
  int operator()(int a) const { return image_[static_cast<std::size_t>(a)]; }
  const std::vector<int>& image() const { return image_; }

  Permutation inverse() const;
  Permutation power(std::int64_t k) const;  // π^k for k ≥ 0 (via the cycles, O(n)); negative k: (π^{-1})^{|k|}

  // Cycles, each starting at its smallest element, in order of those elements (fixed points included).
  std::vector<std::vector<int>> cycles() const;
  // Cycle lengths in descending order (a partition of n; fixed points appear as 1s).
  std::vector<int> cycle_type() const;

  BigInt order() const;
  std::uint64_t order_u64() const;
  bool is_identity() const;

  bool operator==(const Permutation& other) const = default;

 private:
  std::vector<int> image_;
};

// (outer ∘ inner)(a) = outer(inner(a)); both must have the same size.
Permutation compose(const Permutation& outer, const Permutation& inner);

// Uniform on S_n by Fisher–Yates, drawing from rng.
Permutation random_permutation(int n, PhiloxStream& rng);
// The same from a fresh stream PhiloxStream(seed, stream, index).
Permutation random_permutation(int n, std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

// lcm of a list of positive integers, exact; lcm of the empty list is 1.
BigInt lcm_of_lengths(const std::vector<int>& lengths);

}  // namespace favorlab
