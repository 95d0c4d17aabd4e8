#include "perm/primes.hpp"

namespace favorlab {

std::vector<int> primes_up_to(int n) {
  std::vector<int> primes;
  if (n < 2) return primes;
  std::vector<char> composite(static_cast<std::size_t>(n) + 1, 0);
  for (int p = 2; p <= n; ++p) {
    if (composite[static_cast<std::size_t>(p)]) continue;
    primes.push_back(p);
    for (std::int64_t q = static_cast<std::int64_t>(p) * p; q <= n; q += p) composite[static_cast<std::size_t>(q)] = 1;
  }
  return primes;
}

int largest_prime_power_exponent(int p, int n) {
  int e = 0;
  for (std::int64_t q = p; q <= n; q *= p) ++e;
  return e;
}

}  // namespace favorlab
