#include "perm/distinct_orders.hpp"

#include <stdexcept>
#include <string>

#include "perm/primes.hpp"

namespace favorlab {

std::vector<double> distinct_order_counts(int n) {
  if (n < 0) return {};
  if (n > 1024) throw std::invalid_argument("distinct_order_counts: n must be at most 1024, got " + std::to_string(n));
  std::vector<double> exact_sum(static_cast<std::size_t>(n) + 1, 0.0);  // sets of prime powers with this sum
  exact_sum[0] = 1;
  for (int p : primes_up_to(n)) {
    std::vector<double> with = exact_sum;
    for (int power = p; power <= n; power *= p)  // p·power ≤ 1024² fits an int
      for (int sum = power; sum <= n; ++sum)
        with[static_cast<std::size_t>(sum)] += exact_sum[static_cast<std::size_t>(sum - power)];
    exact_sum = with;
  }
  std::vector<double> out(exact_sum.size());
  double distinct = 0;
  for (std::size_t s = 0; s < exact_sum.size(); ++s) out[s] = distinct += exact_sum[s];
  return out;
}

}  // namespace favorlab
