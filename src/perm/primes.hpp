#pragma once
// The primes ≤ n in increasing order (sieve of Eratosthenes), and the largest power of p that is ≤ n.
// Small helpers for the prime-power arguments of landau.hpp and max_heads_lcm.hpp.
#include <cstdint>
#include <vector>

namespace favorlab {

std::vector<int> primes_up_to(int n);        // empty for n < 2
int largest_prime_power_exponent(int p, int n);  // max e with p^e ≤ n (0 when p > n)

}  // namespace favorlab
