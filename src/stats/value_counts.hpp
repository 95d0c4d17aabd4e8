#pragma once
// A mergeable empirical distribution of a discrete sample: value → count. Merging adds counts key by key and every
// figure below sums in key order, so results are identical for any thread count or merge order (run_parallel_trials,
// and the exchange between MPI ranks through `fields()`, mc/block_codec.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace favorlab {

template <class Key>
struct ValueCounts {
  std::map<Key, std::int64_t> counts;

  auto fields() { return std::tie(counts); }
  void merge(const ValueCounts& other) {
    for (const auto& [k, c] : other.counts) counts[k] += c;
  }
  std::int64_t total() const {
    std::int64_t t = 0;
    for (const auto& kv : counts) t += kv.second;
    return t;
  }
  // Smallest value with empirical CDF ≥ q (the largest value when rounding leaves the CDF short of q; 0 when empty).
  double quantile(double q) const {
    const double need = q * static_cast<double>(total());
    std::int64_t cumulative = 0;
    for (const auto& [k, c] : counts) {
      cumulative += c;
      if (static_cast<double>(cumulative) >= need) return static_cast<double>(k);
    }
    return counts.empty() ? 0.0 : static_cast<double>(counts.rbegin()->first);
  }
  // Sample values ≥ threshold.
  std::int64_t count_at_least(const Key& threshold) const {
    std::int64_t n = 0;
    for (auto it = counts.lower_bound(threshold); it != counts.end(); ++it) n += it->second;
    return n;
  }
};

struct SampleMoments {
  double mean = 0, variance = 0;  // variance with n − 1 (0 for a single value); both NaN for an empty sample
};

// Mean and variance of transform(value) over the sample, two passes (the mean first, then squared deviations).
template <class Key, class F>
SampleMoments sample_moments(const ValueCounts<Key>& t, F transform) {
  const double n = static_cast<double>(t.total());
  double sum = 0;
  for (const auto& [k, c] : t.counts) sum += static_cast<double>(c) * transform(k);
  SampleMoments m;
  m.mean = sum / n;
  double ss = 0;
  for (const auto& [k, c] : t.counts) {
    const double x = transform(k) - m.mean;
    ss += static_cast<double>(c) * x * x;
  }
  m.variance = n > 1 ? ss / (n - 1) : 0.0;
  return m;
}

// Histogram of transform(value) in `bins` bins of `width` from 0: bin ⌊transform(value)/width⌋, clamped into
// [0, bins − 1]: the last bin also takes everything above, the first everything below 0 (and NaN). bins < 1 counts
// as 1; width > 0.
template <class Key, class F>
std::vector<std::int64_t> binned_counts(const ValueCounts<Key>& t, F transform, double width, int bins) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(std::max(bins, 1)), 0);
  const std::size_t last = out.size() - 1;
  for (const auto& [k, c] : t.counts) {
    const double bin = std::floor(transform(k) / width);
    out[bin >= static_cast<double>(last) ? last : bin > 0 ? static_cast<std::size_t>(bin) : 0] += c;
  }
  return out;
}

}  // namespace favorlab
