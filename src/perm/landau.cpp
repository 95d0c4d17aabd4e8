#include "perm/landau.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "perm/primes.hpp"

namespace favorlab {

CoprimeProduct max_coprime_product(int budget, int max_part) {
  if (budget <= 0) throw std::invalid_argument("max_coprime_product: budget must be >= 1, got " + std::to_string(budget));
  if (max_part <= 0)
    throw std::invalid_argument("max_coprime_product: max_part must be >= 1, got " + std::to_string(max_part));
  const std::vector<int> primes = primes_up_to(std::min(budget, max_part));
  const auto cap = static_cast<std::size_t>(budget) + 1;
  // best[c]: the largest product of prime powers of the primes seen so far with total ≤ c.
  std::vector<BigInt> best(cap, BigInt(1));
  // exponent[i][c]: the exponent of primes[i] in that maximiser (for reconstruction).
  std::vector<std::vector<int>> exponent(primes.size(), std::vector<int>(cap, 0));
  for (std::size_t i = 0; i < primes.size(); ++i) {
    const int p = primes[i];
    std::vector<BigInt> next = best;
    for (int c = 0; c <= budget; ++c) {
      std::int64_t q = p;
      for (int e = 1; q <= c && q <= max_part; ++e, q *= p) {
        const BigInt candidate = best[static_cast<std::size_t>(c - q)] * static_cast<unsigned>(q);
        if (candidate > next[static_cast<std::size_t>(c)]) {
          next[static_cast<std::size_t>(c)] = candidate;
          exponent[i][static_cast<std::size_t>(c)] = e;
        }
      }
    }
    best = std::move(next);
  }
  CoprimeProduct out;
  out.value = best[static_cast<std::size_t>(budget)];
  int c = budget;
  for (std::size_t i = primes.size(); i-- > 0;) {
    const int e = exponent[i][static_cast<std::size_t>(c)];
    if (e == 0) continue;
    int q = 1;
    for (int k = 0; k < e; ++k) q *= primes[i];
    out.parts.push_back(q);
    c -= q;
  }
  std::sort(out.parts.begin(), out.parts.end(), std::greater<>());
  return out;
}

LandauResult landau(int n) {
  if (n <= 0) throw std::invalid_argument("landau: n must be >= 1, got " + std::to_string(n));
  const CoprimeProduct best = max_coprime_product(n, n);
  LandauResult out{best.value, best.parts};
  int used = 0;
  for (int q : best.parts) used += q;
  out.cycle_type.insert(out.cycle_type.end(), static_cast<std::size_t>(n - used), 1);
  return out;
}

}  // namespace favorlab
