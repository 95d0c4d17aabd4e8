#pragma once
// STAND-IN for branch `perm` (src/perm/permutation.hpp, src/perm/permutation_powers.hpp), which had not landed when
// PermuteFormer attention was written. It offers the same names and semantics that PermuteFormer uses —
//   Permutation (image vector; π(a) = image[a]; power(k) via the cycles, negative k through the inverse; order();
//   order_u64()), random_permutation (Fisher–Yates on a PhiloxStream with rejection-sampled uniform indices), and
//   PermutationPowers (L×m int32 table, row t = π^t, built by one composition per row) —
// inside namespace favorlab::permattn_standin, re-exported into favorlab. To reconcile once `perm` is merged: replace
// the body of this file by `#include "perm/permutation.hpp"` and `#include "perm/permutation_powers.hpp"` and delete
// permutation_standin.cpp; nothing else changes.
#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <vector>

#include "rng/philox_stream.hpp"

namespace favorlab {

namespace permattn_standin {

using BigInt = boost::multiprecision::cpp_int;

class Permutation {
 public:
  explicit Permutation(std::vector<int> image);  // throws std::invalid_argument unless a bijection of {0..n−1}, n ≥ 1
  int size() const { return static_cast<int>(image_.size()); }
  int operator()(int a) const { return image_[static_cast<std::size_t>(a)]; }
  const std::vector<int>& image() const { return image_; }
  Permutation inverse() const;
  Permutation power(std::int64_t k) const;
  std::vector<std::vector<int>> cycles() const;  // each from its smallest element, in order of those elements
  BigInt order() const;
  std::uint64_t order_u64() const;  // throws std::overflow_error beyond 64 bits
  bool operator==(const Permutation& other) const = default;

 private:
  std::vector<int> image_;
};

Permutation random_permutation(int n, PhiloxStream& rng);
Permutation random_permutation(int n, std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

class PermutationPowers {
 public:
  PermutationPowers(const Permutation& pi, std::int64_t length);  // length ≥ 1, length·m within int32
  std::int64_t length() const { return length_; }
  int size() const { return m_; }
  const std::int32_t* row(std::int64_t i) const { return table_.data() + i * m_; }

 private:
  std::int64_t length_;
  int m_;
  std::vector<std::int32_t> table_;
};

}  // namespace permattn_standin

using permattn_standin::BigInt;
using permattn_standin::Permutation;
using permattn_standin::PermutationPowers;
using permattn_standin::random_permutation;

}  // namespace favorlab
