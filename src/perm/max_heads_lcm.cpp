#include "perm/max_heads_lcm.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "perm/landau.hpp"
#include "perm/primes.hpp"

namespace favorlab {

namespace {

constexpr double kLogMargin = 1e-9;  // far above the rounding of a sum of ≤ 200 logs, far below log(1 + 1/g) gaps

struct Search {
  int n = 0;
  std::vector<int> primes;                      // descending
  std::vector<double> log_p;
  std::vector<std::vector<double>> relax;       // relax[i][c]: best Σ log over primes[i..] with total ≤ c
  std::vector<int> free;                        // remaining capacity of each head
  std::vector<int> placed_exponent, placed_head;
  double current = 0, best = -1;
  std::vector<int> best_exponent, best_head;
  std::int64_t nodes = 0, limit = 0;
  bool aborted = false, optimal = false;
  double root_bound = 0;        // relax[0][budget]: reaching it (exactly) ends the search
  BigInt root_bound_value;

  BigInt product(const std::vector<int>& exponent) const {
    BigInt out = 1;
    for (std::size_t i = 0; i < primes.size(); ++i)
      for (int k = 0; k < exponent[i]; ++k) out *= static_cast<unsigned>(primes[i]);
    return out;
  }

  void leaf() {
    bool better = current > best + kLogMargin;
    if (!better && current >= best - kLogMargin) better = product(placed_exponent) > product(best_exponent);
    if (better) {
      best = current;
      best_exponent = placed_exponent;
      best_head = placed_head;
      // A packing that attains the single-pool relaxation is optimal: nothing is left to search.
      if (best >= root_bound - kLogMargin && product(best_exponent) == root_bound_value) optimal = true;
    }
  }

  void dfs(std::size_t i, int total_free) {
    if (aborted || optimal) return;
    if (++nodes > limit) {
      aborted = true;
      return;
    }
    if (i == primes.size()) {
      leaf();
      return;
    }
    if (current + relax[i][static_cast<std::size_t>(total_free)] < best - kLogMargin) return;
    const int p = primes[i];
    int e_max = largest_prime_power_exponent(p, n);
    std::int64_t q = 1;
    for (int k = 0; k < e_max; ++k) q *= p;
    for (int e = e_max; e >= 1; --e, q /= p) {
      // Best fit: heads ordered by remaining capacity, smallest that fits first; equal capacities are one choice.
      std::vector<std::pair<int, int>> fits;
      for (std::size_t h = 0; h < free.size(); ++h)
        if (free[h] >= q) fits.emplace_back(free[h], static_cast<int>(h));
      std::sort(fits.begin(), fits.end());
      int last_capacity = -1;
      for (const auto& [capacity, h] : fits) {
        if (capacity == last_capacity) continue;
        last_capacity = capacity;
        free[static_cast<std::size_t>(h)] -= static_cast<int>(q);
        placed_exponent[i] = e;
        placed_head[i] = h;
        current += e * log_p[i];
        dfs(i + 1, total_free - static_cast<int>(q));
        current -= e * log_p[i];
        placed_exponent[i] = 0;
        placed_head[i] = -1;
        free[static_cast<std::size_t>(h)] += static_cast<int>(q);
      }
    }
    dfs(i + 1, total_free);
  }
};

}  // namespace

HeadsLcmMaximum max_heads_lcm(int n, int heads, std::int64_t node_limit) {
  if (n <= 0) throw std::invalid_argument("max_heads_lcm: head size n must be >= 1, got " + std::to_string(n));
  if (heads <= 0) throw std::invalid_argument("max_heads_lcm: heads must be >= 1, got " + std::to_string(heads));
  if (static_cast<std::int64_t>(heads) * n > 1'000'000)
    throw std::invalid_argument("max_heads_lcm: heads * n must be <= 1e6");
  const int budget = heads * n;

  Search s;
  s.n = n;
  s.primes = primes_up_to(n);
  std::reverse(s.primes.begin(), s.primes.end());
  for (int p : s.primes) s.log_p.push_back(std::log(static_cast<double>(p)));
  const std::size_t k = s.primes.size();
  s.relax.assign(k + 1, std::vector<double>(static_cast<std::size_t>(budget) + 1, 0.0));
  for (std::size_t i = k; i-- > 0;) {
    const int p = s.primes[i];
    for (int c = 0; c <= budget; ++c) {
      double best = s.relax[i + 1][static_cast<std::size_t>(c)];
      std::int64_t q = p;
      for (int e = 1; q <= c && q <= n; ++e, q *= p)
        best = std::max(best, s.relax[i + 1][static_cast<std::size_t>(c - q)] + e * s.log_p[i]);
      s.relax[i][static_cast<std::size_t>(c)] = best;
    }
  }
  s.free.assign(static_cast<std::size_t>(heads), n);
  s.placed_exponent.assign(k, 0);
  s.placed_head.assign(k, -1);
  s.best_exponent.assign(k, 0);
  s.best_head.assign(k, -1);
  s.limit = node_limit;
  const CoprimeProduct bound = max_coprime_product(budget, n);
  s.root_bound = s.relax[0][static_cast<std::size_t>(budget)];
  s.root_bound_value = bound.value;
  s.dfs(0, budget);

  HeadsLcmMaximum out;
  out.value = s.product(s.best_exponent);
  out.log10_value = s.best < 0 ? 0.0 : s.best / std::log(10.0);
  out.heads.assign(static_cast<std::size_t>(heads), {});
  for (std::size_t i = 0; i < k; ++i) {
    if (s.best_exponent[i] == 0) continue;
    int q = 1;
    for (int e = 0; e < s.best_exponent[i]; ++e) q *= s.primes[i];
    out.heads[static_cast<std::size_t>(s.best_head[i])].push_back(q);
  }
  for (auto& h : out.heads) std::sort(h.begin(), h.end(), std::greater<>());
  out.upper_bound = bound.value;
  out.log10_upper_bound = s.relax[0][static_cast<std::size_t>(budget)] / std::log(10.0);
  out.exact = !s.aborted;
  out.nodes = s.nodes;
  return out;
}

}  // namespace favorlab
