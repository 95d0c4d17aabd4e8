#include "perm/heads_lcm.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "perm/primes.hpp"

namespace favorlab {

namespace {

void require_heads(const std::vector<Permutation>& heads) {
  if (heads.empty()) throw std::invalid_argument("lcm of heads: need at least one head");
  for (const Permutation& h : heads)
    if (h.size() != heads.front().size()) throw std::invalid_argument("lcm of heads: heads of different sizes");
}

}  // namespace

BigInt lcm_of_orders(const std::vector<Permutation>& heads) {
  require_heads(heads);
  BigInt out = 1;
  for (const Permutation& h : heads) out = boost::multiprecision::lcm(out, h.order());
  return out;
}

double log10_lcm_of_orders(const std::vector<Permutation>& heads) {
  require_heads(heads);
  const int n = heads.front().size();
  std::vector<char> present(static_cast<std::size_t>(n) + 1, 0);
  for (const Permutation& h : heads)
    for (int len : h.cycle_type()) present[static_cast<std::size_t>(len)] = 1;
  double out = 0;
  for (int p : primes_up_to(n)) {
    int best = 0;
    for (int len = p; len <= n; len += p) {
      if (!present[static_cast<std::size_t>(len)]) continue;
      int e = 0;
      for (int v = len; v % p == 0; v /= p) ++e;
      if (e > best) best = e;
    }
    out += best * std::log10(static_cast<double>(p));
  }
  return out;
}

std::vector<Permutation> random_heads(int heads, int n, PhiloxStream& rng) {
  if (heads <= 0) throw std::invalid_argument("random_heads: heads must be >= 1, got " + std::to_string(heads));
  std::vector<Permutation> out;
  out.reserve(static_cast<std::size_t>(heads));
  for (int h = 0; h < heads; ++h) out.push_back(random_permutation(n, rng));
  return out;
}

}  // namespace favorlab
