#include "perm/order_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace favorlab {

namespace {

std::uint64_t lcm_u64(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t step = b / std::gcd(a, b);
  if (a > std::numeric_limits<std::uint64_t>::max() / step)
    throw std::overflow_error("order_distribution: an order exceeds 64 bits");
  return a * step;
}

double to_double(const BigRational& r) { return r.convert_to<double>(); }

// The DP's counts are below n! ≤ 256! < 2^1700: a fixed-width unsigned integer keeps them on the stack, with none of
// cpp_int's heap allocations in the inner loop (docs/performance.md#tried-and-dropped).
using Count = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    1728, 1728, boost::multiprecision::unsigned_magnitude, boost::multiprecision::unchecked, void>>;

}  // namespace

OrderDistribution order_distribution(int n) {
  if (n <= 0 || n > 256)
    throw std::invalid_argument("order_distribution: n must lie in [1, 256], got " + std::to_string(n));
  BigInt factorial = 1;
  for (int i = 2; i <= n; ++i) factorial *= static_cast<unsigned>(i);

  std::vector<std::unordered_map<std::uint64_t, Count>> states(static_cast<std::size_t>(n) + 1);
  states[0].emplace(1, Count(factorial));
  for (int k = 1; k <= n; ++k) {
    // Descending s: the targets s + c·k were already visited for this k, so no cycle length is added twice over.
    for (int s = n - k; s >= 0; --s) {
      for (const auto& [order, weight] : states[static_cast<std::size_t>(s)]) {
        const std::uint64_t target_order = lcm_u64(order, static_cast<std::uint64_t>(k));
        Count current = weight;
        for (int c = 1; s + c * k <= n; ++c) {
          current /= static_cast<unsigned>(k * c);  // exact: n!/z of a cycle type of s + c·k ≤ n elements
          states[static_cast<std::size_t>(s + c * k)][target_order] += current;
        }
      }
    }
  }

  OrderDistribution d;
  d.n = n;
  d.permutations = factorial;
  std::vector<std::pair<std::uint64_t, BigInt>> final_states;
  for (const auto& [order, count] : states[static_cast<std::size_t>(n)]) final_states.emplace_back(order, BigInt(count));
  std::sort(final_states.begin(), final_states.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  BigInt total = 0;
  for (auto& [order, count] : final_states) {
    d.orders.push_back(order);
    total += count;
    d.counts.push_back(std::move(count));
  }
  if (total != factorial) throw std::logic_error("order_distribution: counts do not sum to n!");
  return d;
}

BigRational OrderDistribution::moment(int k) const {
  if (k < 0) throw std::invalid_argument("OrderDistribution::moment: k must be >= 0");
  BigInt sum = 0;
  for (std::size_t j = 0; j < orders.size(); ++j) {
    BigInt power = 1;
    for (int i = 0; i < k; ++i) power *= orders[j];
    sum += counts[j] * power;
  }
  return BigRational(sum, permutations);
}

BigRational OrderDistribution::probability(std::size_t j) const { return BigRational(counts.at(j), permutations); }

std::uint64_t OrderDistribution::quantile(const BigRational& q) const {
  if (q <= 0 || q > 1) throw std::invalid_argument("OrderDistribution::quantile: q must lie in (0, 1]");
  BigInt cumulative = 0;
  for (std::size_t j = 0; j < orders.size(); ++j) {
    cumulative += counts[j];
    if (BigRational(cumulative, permutations) >= q) return orders[j];
  }
  return orders.back();
}

BigRational expected_order(int n) { return order_distribution(n).moment(1); }

OrderSummary summarize(const OrderDistribution& d) {
  OrderSummary s;
  const BigRational m1 = d.moment(1), m2 = d.moment(2), m3 = d.moment(3), m4 = d.moment(4);
  const BigRational c2 = m2 - m1 * m1;
  const BigRational c3 = m3 - 3 * m1 * m2 + 2 * m1 * m1 * m1;
  const BigRational c4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 * m1 * m1 * m1;
  s.mean = to_double(m1);
  const double var = to_double(c2);
  s.sd = std::sqrt(var);
  s.skewness = var > 0 ? to_double(c3) / (var * s.sd) : 0.0;
  s.excess_kurtosis = var > 0 ? to_double(c4) / (var * var) - 3 : 0.0;
  s.median = d.quantile(BigRational(1, 2));

  // ln(order) in double: each probability is exact, then rounded once; central moments by a second pass.
  std::vector<double> p(d.orders.size());
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = to_double(d.probability(j));
  double mean_log = 0;
  for (std::size_t j = 0; j < p.size(); ++j) mean_log += p[j] * std::log(static_cast<double>(d.orders[j]));
  double c2l = 0, c3l = 0, c4l = 0;
  for (std::size_t j = 0; j < p.size(); ++j) {
    const double x = std::log(static_cast<double>(d.orders[j])) - mean_log;
    c2l += p[j] * x * x;
    c3l += p[j] * x * x * x;
    c4l += p[j] * x * x * x * x;
  }
  s.mean_log = mean_log;
  s.variance_log = c2l;
  s.skewness_log = c2l > 0 ? c3l / std::pow(c2l, 1.5) : 0.0;
  s.excess_kurtosis_log = c2l > 0 ? c4l / (c2l * c2l) - 3 : 0.0;
  s.typical = std::exp(mean_log);
  return s;
}

}  // namespace favorlab
