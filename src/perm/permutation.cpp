#include "perm/permutation.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "rng/uniform_index.hpp"

namespace favorlab {

namespace {

void require_size(int n, const char* what) {
  if (n <= 0) throw std::invalid_argument(std::string(what) + ": permutation size must be >= 1, got " + std::to_string(n));
}

}  // namespace

Permutation::Permutation(std::vector<int> image) : image_(std::move(image)) {
  require_size(static_cast<int>(image_.size()), "Permutation");
  std::vector<char> seen(image_.size(), 0);
  for (int b : image_) {
    if (b < 0 || b >= size() || seen[static_cast<std::size_t>(b)])
      throw std::invalid_argument("Permutation: image is not a bijection of {0, ..., n-1}");
    seen[static_cast<std::size_t>(b)] = 1;
  }
}

Permutation Permutation::identity(int n) {
  require_size(n, "Permutation::identity");
  std::vector<int> image(static_cast<std::size_t>(n));
  std::iota(image.begin(), image.end(), 0);
  return Permutation(std::move(image));
}

Permutation Permutation::inverse() const {
  std::vector<int> inv(image_.size());
  for (std::size_t a = 0; a < image_.size(); ++a) inv[static_cast<std::size_t>(image_[a])] = static_cast<int>(a);
  return Permutation(std::move(inv));
}

Permutation Permutation::power(std::int64_t k) const {
  if (k < 0) {
    // π^k = (π^{-1})^{−k}, written as (π^{-1})^{−(k+1)} ∘ π^{-1} so that INT64_MIN is never negated.
    const Permutation inv = inverse();
    return compose(inv.power(-(k + 1)), inv);
  }
  // On a cycle (c_0 … c_{ℓ−1}), π^k sends c_j to c_{(j + k) mod ℓ}.
  std::vector<int> out(image_.size());
  for (const auto& cycle : cycles()) {
    const std::int64_t len = static_cast<std::int64_t>(cycle.size());
    const std::int64_t shift = k % len;
    for (std::int64_t j = 0; j < len; ++j)
      out[static_cast<std::size_t>(cycle[static_cast<std::size_t>(j)])] =
          cycle[static_cast<std::size_t>((j + shift) % len)];
  }
  return Permutation(std::move(out));
}

std::vector<std::vector<int>> Permutation::cycles() const {
  std::vector<std::vector<int>> out;
  std::vector<char> seen(image_.size(), 0);
  for (int start = 0; start < size(); ++start) {
    if (seen[static_cast<std::size_t>(start)]) continue;
    std::vector<int> cycle;
    for (int a = start; !seen[static_cast<std::size_t>(a)]; a = image_[static_cast<std::size_t>(a)]) {
      seen[static_cast<std::size_t>(a)] = 1;
      cycle.push_back(a);
    }
    out.push_back(std::move(cycle));
  }
  return out;
}

std::vector<int> Permutation::cycle_type() const {
  std::vector<int> lengths;
  std::vector<char> seen(image_.size(), 0);
  for (int start = 0; start < size(); ++start) {
    if (seen[static_cast<std::size_t>(start)]) continue;
    int len = 0;
    for (int a = start; !seen[static_cast<std::size_t>(a)]; a = image_[static_cast<std::size_t>(a)]) {
      seen[static_cast<std::size_t>(a)] = 1;
      ++len;
    }
    lengths.push_back(len);
  }
  std::sort(lengths.begin(), lengths.end(), std::greater<>());
  return lengths;
}

BigInt Permutation::order() const { return lcm_of_lengths(cycle_type()); }

std::uint64_t Permutation::order_u64() const {
  std::uint64_t order = 1;
  for (int len : cycle_type()) {
    const std::uint64_t l = static_cast<std::uint64_t>(len);
    const std::uint64_t step = l / std::gcd(order, l);
    if (order > std::numeric_limits<std::uint64_t>::max() / step)
      throw std::overflow_error("Permutation::order_u64: the order does not fit in 64 bits; use order()");
    order *= step;
  }
  return order;
}

bool Permutation::is_identity() const {
  for (int a = 0; a < size(); ++a)
    if (image_[static_cast<std::size_t>(a)] != a) return false;
  return true;
}

Permutation compose(const Permutation& outer, const Permutation& inner) {
  if (outer.size() != inner.size()) throw std::invalid_argument("compose: permutations of different sizes");
  std::vector<int> image(static_cast<std::size_t>(inner.size()));
  for (int a = 0; a < inner.size(); ++a) image[static_cast<std::size_t>(a)] = outer(inner(a));
  return Permutation(std::move(image));
}

Permutation random_permutation(int n, PhiloxStream& rng) {
  require_size(n, "random_permutation");
  std::vector<int> image(static_cast<std::size_t>(n));
  std::iota(image.begin(), image.end(), 0);
  // Fisher–Yates: position i receives a uniform choice among the i + 1 elements not yet placed.
  for (int i = n - 1; i > 0; --i) {
    const auto j = uniform_index(rng, static_cast<std::uint64_t>(i) + 1);
    std::swap(image[static_cast<std::size_t>(i)], image[j]);
  }
  return Permutation(std::move(image));
}

Permutation random_permutation(int n, std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  PhiloxStream rng(seed, stream, index);
  return random_permutation(n, rng);
}

BigInt lcm_of_lengths(const std::vector<int>& lengths) {
  BigInt out = 1;
  for (int len : lengths) {
    if (len <= 0) throw std::invalid_argument("lcm_of_lengths: lengths must be positive");
    out = boost::multiprecision::lcm(out, BigInt(len));
  }
  return out;
}

}  // namespace favorlab
