#include "kernels/tau_maximum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/chi_moments.hpp"

namespace favorlab {

namespace {

// Extends `parts` (non-increasing so far, last part ≤ largest) by partitions of `rest` with parts ≤ largest.
void extend_partition(int rest, int largest, int max_parts, std::vector<int>& parts,
                      const std::function<void(const std::vector<int>&)>& visit) {
  if (rest == 0) {
    visit(parts);
    return;
  }
  if (static_cast<int>(parts.size()) == max_parts) return;
  for (int p = std::min(rest, largest); p >= 1; --p) {
    parts.push_back(p);
    extend_partition(rest - p, p, max_parts, parts, visit);
    parts.pop_back();
  }
}

}  // namespace

void for_each_partition(int n, int max_parts, const std::function<void(const std::vector<int>&)>& visit) {
  if (n < 1) throw std::invalid_argument("partitions need n >= 1, got " + std::to_string(n));
  if (max_parts < 1) throw std::invalid_argument("partitions need max_parts >= 1, got " + std::to_string(max_parts));
  std::vector<int> parts;
  parts.reserve(static_cast<std::size_t>(std::min(n, max_parts)));
  extend_partition(n, n, max_parts, parts, visit);
}

double compositions_of_multiset(const std::vector<int>& parts, int m) {
  const int k = static_cast<int>(parts.size());
  if (k > m) return 0;
  // m (m−1) ⋯ (m−k+1) places for the k parts, divided by the orderings of equal parts; parts may come in any order.
  std::vector<int> sorted = parts;
  std::sort(sorted.begin(), sorted.end());
  double count = 1;
  for (int i = 0; i < k; ++i) count *= m - i;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    for (std::size_t c = 2; c <= j - i; ++c) count /= static_cast<double>(c);
    i = j;
  }
  return count;
}

double tau_rounding_tolerance(int d, int max_total) {
  const double largest_lgamma = std::abs(std::lgamma((d + std::max(max_total, 0)) / 2.0));
  return 16 * std::numeric_limits<double>::epsilon() * (max_total / 2 + 1) * std::max(1.0, largest_lgamma);
}

TauSearchResult search_tau_maximum(const TauSearchSpec& s) {
  if (s.d < 1) throw std::invalid_argument("tau search needs d >= 1, got " + std::to_string(s.d));
  if (s.max_parts < 1) throw std::invalid_argument("tau search needs m >= 1, got " + std::to_string(s.max_parts));
  if (s.part_step < 1) throw std::invalid_argument("tau search needs part step >= 1");
  if (s.min_nonzero < 1) throw std::invalid_argument("tau search needs at least one non-zero part");
  const int units = s.max_total / s.part_step;  // total degree in units of part_step
  if (units < s.min_nonzero || s.max_parts < s.min_nonzero)
    throw std::invalid_argument("tau search: total degree " + std::to_string(s.max_total) + " with " +
                                std::to_string(s.max_parts) + " parts admits no composition with " +
                                std::to_string(s.min_nonzero) + " non-zero parts that are multiples of " +
                                std::to_string(s.part_step));

  // log μ_d(step·a) for a = 0..units, so that each partition costs a sum of table entries.
  std::vector<double> log_mu(static_cast<std::size_t>(units) + 1);
  for (int a = 0; a <= units; ++a) log_mu[static_cast<std::size_t>(a)] = log_chi_moment(s.d, s.part_step * a);

  TauSearchResult r;
  r.log_bound = std::log(static_cast<double>(s.d)) - std::log(s.d + 2.0);
  r.rounding_tolerance = tau_rounding_tolerance(s.d, s.max_total);
  r.max_log_tau = r.runner_up_log_tau = -std::numeric_limits<double>::infinity();
  const bool exact_possible = s.part_step % 2 == 0;
  std::vector<int> scaled;
  for (int n = s.min_nonzero; n <= units; ++n) {
    for_each_partition(n, s.max_parts, [&](const std::vector<int>& parts) {
      if (static_cast<int>(parts.size()) < s.min_nonzero) return;
      double value = -log_mu[static_cast<std::size_t>(n)];
      for (int a : parts) value += log_mu[static_cast<std::size_t>(a)];
      ++r.partitions_evaluated;
      r.compositions_covered += compositions_of_multiset(parts, s.max_parts);
      const double excess = value - r.log_bound;
      if (exact_possible && excess > -kExactScreen * r.rounding_tolerance) {
        scaled.assign(parts.begin(), parts.end());
        for (int& a : scaled) a *= s.part_step;
        const int sign = exact_tau_vs_lemma6_bound(s.d, scaled);
        ++r.exact_comparisons;
        r.partitions_above_bound += sign > 0;
        r.partitions_at_bound += sign == 0;
      } else if (!exact_possible) {
        r.partitions_above_bound += excess > r.rounding_tolerance;
        r.partitions_at_bound += std::abs(excess) <= r.rounding_tolerance;
      }
      if (value > r.max_log_tau) {
        r.runner_up_log_tau = r.max_log_tau;
        r.runner_up = std::move(r.argmax);
        r.max_log_tau = value;
        r.argmax = parts;
      } else if (value > r.runner_up_log_tau) {
        r.runner_up_log_tau = value;
        r.runner_up = parts;
      }
    });
  }
  for (int& a : r.argmax) a *= s.part_step;
  for (int& a : r.runner_up) a *= s.part_step;
  return r;
}

}  // namespace favorlab
