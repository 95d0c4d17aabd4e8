#include "attention/permutation_standin.hpp"

#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace favorlab::permattn_standin {

Permutation::Permutation(std::vector<int> image) : image_(std::move(image)) {
  if (image_.empty()) throw std::invalid_argument("Permutation: size must be >= 1");
  std::vector<char> seen(image_.size(), 0);
  for (int b : image_) {
    if (b < 0 || b >= size() || seen[static_cast<std::size_t>(b)])
      throw std::invalid_argument("Permutation: the image is not a bijection of {0, ..., " +
                                  std::to_string(size() - 1) + "}");
    seen[static_cast<std::size_t>(b)] = 1;
  }
}

Permutation Permutation::inverse() const {
  std::vector<int> out(image_.size());
  for (int a = 0; a < size(); ++a) out[static_cast<std::size_t>(image_[static_cast<std::size_t>(a)])] = a;
  return Permutation(std::move(out));
}

std::vector<std::vector<int>> Permutation::cycles() const {
  std::vector<std::vector<int>> out;
  std::vector<char> done(image_.size(), 0);
  for (int start = 0; start < size(); ++start) {
    if (done[static_cast<std::size_t>(start)]) continue;
    std::vector<int> cycle;
    for (int a = start; !done[static_cast<std::size_t>(a)]; a = (*this)(a)) {
      done[static_cast<std::size_t>(a)] = 1;
      cycle.push_back(a);
    }
    out.push_back(std::move(cycle));
  }
  return out;
}

Permutation Permutation::power(std::int64_t k) const {
  if (k < 0) {
    // π^k = (π^{−1})^{|k|}; |k| = −(k + 1) + 1 avoids negating INT64_MIN.
    const Permutation inv = inverse();
    const Permutation most = inv.power(-(k + 1));
    std::vector<int> out(image_.size());
    for (int a = 0; a < size(); ++a) out[static_cast<std::size_t>(a)] = most(inv(a));
    return Permutation(std::move(out));
  }
  // On a cycle (c_0 … c_{ℓ−1}) π sends c_j to c_{j+1}, so π^k sends c_j to c_{(j + k) mod ℓ}.
  std::vector<int> out(image_.size());
  for (const auto& cycle : cycles()) {
    const auto len = static_cast<std::int64_t>(cycle.size());
    const std::int64_t shift = k % len;
    for (std::int64_t j = 0; j < len; ++j)
      out[static_cast<std::size_t>(cycle[static_cast<std::size_t>(j)])] = cycle[static_cast<std::size_t>((j + shift) % len)];
  }
  return Permutation(std::move(out));
}

BigInt Permutation::order() const {
  BigInt out = 1;
  for (const auto& cycle : cycles()) out = boost::multiprecision::lcm(out, BigInt(cycle.size()));
  return out;
}

std::uint64_t Permutation::order_u64() const {
  const BigInt o = order();
  if (o > BigInt(std::numeric_limits<std::uint64_t>::max()))
    throw std::overflow_error("Permutation::order_u64: the order does not fit in 64 bits");
  return static_cast<std::uint64_t>(o);
}

namespace {

// Uniform on [0, bound) without modulo bias: words below 2^64 mod bound are rejected.
std::uint64_t uniform_below(PhiloxStream& rng, std::uint64_t bound) {
  const std::uint64_t reject_below = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t word = rng.bits();
    if (word >= reject_below) return word % bound;
  }
}

}  // namespace

Permutation random_permutation(int n, PhiloxStream& rng) {
  if (n <= 0) throw std::invalid_argument("random_permutation: size must be >= 1");
  std::vector<int> image(static_cast<std::size_t>(n));
  std::iota(image.begin(), image.end(), 0);
  // Fisher–Yates: slot i takes a uniform choice among the i + 1 elements not yet placed.
  for (int i = n - 1; i > 0; --i)
    std::swap(image[static_cast<std::size_t>(i)], image[uniform_below(rng, static_cast<std::uint64_t>(i) + 1)]);
  return Permutation(std::move(image));
}

Permutation random_permutation(int n, std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  PhiloxStream rng(seed, stream, index);
  return random_permutation(n, rng);
}

PermutationPowers::PermutationPowers(const Permutation& pi, std::int64_t length) : length_(length), m_(pi.size()) {
  if (length <= 0) throw std::invalid_argument("PermutationPowers: length must be >= 1");
  if (length > std::numeric_limits<std::int32_t>::max() / m_)
    throw std::invalid_argument("PermutationPowers: length * size exceeds the int32 range of one table");
  table_.resize(static_cast<std::size_t>(length * m_));
  std::iota(table_.begin(), table_.begin() + m_, 0);
  for (std::int64_t i = 1; i < length; ++i)
    for (int a = 0; a < m_; ++a)  // π^i(a) = π(π^{i−1}(a))
      table_[static_cast<std::size_t>(i * m_ + a)] = pi(table_[static_cast<std::size_t>((i - 1) * m_ + a)]);
}

}  // namespace favorlab::permattn_standin
