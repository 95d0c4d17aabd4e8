#include "evaluation/heads_lcm_points.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "evaluation/order_points.hpp"
#include "io/format_number.hpp"
#include "perm/heads_lcm.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

ValueCounts<double> sample_heads_lcm(int heads, int head_size, std::int64_t trials, std::uint64_t seed, int threads,
                                     const ProgressFn& progress) {
  const std::uint64_t stream = 2000 + static_cast<std::uint64_t>(heads);
  return run_parallel_trials(
      trials, threads, ValueCounts<double>{},
      [&](std::int64_t t, ValueCounts<double>& acc) {
        PhiloxStream rng(seed, stream, static_cast<std::uint64_t>(t));
        ++acc.counts[log10_lcm_of_orders(random_heads(heads, head_size, rng))];
      },
      progress);
}

Json heads_lcm_row(int heads, int head_size, const ValueCounts<double>& t, const HeadsLcmMaximum& mx, double alpha) {
  const std::int64_t trials = t.total();
  const SampleMoments m = sample_moments(t, [](double v) { return v; });
  const std::int64_t reach = t.count_at_least(kLcmClaimLog10 - 1e-9);
  const int bins = static_cast<int>(std::floor(mx.log10_upper_bound / kOrderLogBin)) + 1;
  Json row{{"kind", "heads_lcm"}, {"n", nullptr}, {"heads", heads}, {"head_size", head_size}, {"trials", trials}};
  row["mc_mean_log10_lcm"] = m.mean;
  row["mc_stderr_log10_lcm"] = std::sqrt(m.variance / static_cast<double>(trials));
  row["skewness_log10_lcm"] = nullptr;  // no a-priori skewness is known: compare gates the mean as heavy-tailed
  row["mc_sd_log10_lcm"] = std::sqrt(m.variance);
  row["mc_q05_log10_lcm"] = t.quantile(0.05);
  row["mc_q25_log10_lcm"] = t.quantile(0.25);
  row["mc_median_log10_lcm"] = t.quantile(0.5);
  row["mc_q75_log10_lcm"] = t.quantile(0.75);
  row["mc_q95_log10_lcm"] = t.quantile(0.95);
  row["mc_max_log10_lcm"] = t.counts.rbegin()->first;
  row["mc_fraction_at_least_1e27"] = static_cast<double>(reach) / static_cast<double>(trials);
  row["mc_count_at_least_1e27"] = reach;
  row["mc_fraction_at_least_1e27_upper"] = clopper_pearson(reach, trials, alpha).upper;
  row["max_lcm"] = mx.value.str();
  row["max_log10_lcm"] = mx.log10_value;
  row["max_exact"] = mx.exact;
  row["max_search_nodes"] = mx.nodes;
  row["max_heads_cycles"] = mx.heads;
  row["upper_bound_lcm"] = mx.upper_bound.str();
  row["upper_bound_log10_lcm"] = mx.log10_upper_bound;
  row["bin_width"] = kOrderLogBin;
  row["bin_count"] = bins;
  row["mc_counts"] = binned_counts(t, [](double v) { return v; }, kOrderLogBin, bins);
  return row;
}

Check heads_lcm_claim(int head_size, const std::map<int, HeadsLcmMaximum>& maxima,
                      const std::map<int, ValueCounts<double>>& tallies) {
  const bool reuse = head_size == kLcmClaimHeadSize;
  const HeadsLcmMaximum mx = reuse && maxima.count(kLcmClaimHeads) ? maxima.at(kLcmClaimHeads)
                                                                    : max_heads_lcm(kLcmClaimHeadSize, kLcmClaimHeads);
  BigInt target = 1;
  for (int i = 0; i < 27; ++i) target *= 10;
  int fewest = 0;  // the fewest heads of size 64 that reach 1e27 at all
  for (int h = 1; h <= kLcmClaimHeads && fewest == 0; ++h)
    if (max_heads_lcm(kLcmClaimHeadSize, h).value >= target) fewest = h;
  const bool reachable = mx.exact && mx.value >= target;
  std::vector<int> one_to_64(kLcmClaimHeadSize);
  for (int i = 0; i < kLcmClaimHeadSize; ++i) one_to_64[static_cast<std::size_t>(i)] = i + 1;
  std::ostringstream d;
  d << "max over 12-tuples of permutations of 64 of the lcm of their orders = " << mx.value.str() << " = 10^"
    << format_fixed(mx.log10_value, 3) << (mx.exact ? " (exact branch and bound)" : " (search incomplete)")
    << (mx.value == lcm_of_lengths(one_to_64) ? ", which is lcm(1..64), the largest lcm of any integers <= 64" : "")
    << " (single-pool bound 10^" << format_fixed(mx.log10_upper_bound, 3) << "); 1e27 is first reachable with "
    << fewest << " heads. So 'up to 1e27' holds as the maximum";
  if (reuse && tallies.count(kLcmClaimHeads)) {
    const ValueCounts<double>& t = tallies.at(kLcmClaimHeads);
    const std::int64_t reach = t.count_at_least(kLcmClaimLog10 - 1e-9);
    d << ", not as a typical value: for 12 random heads the median lcm is 10^" << format_fixed(t.quantile(0.5), 2)
      << " (quantiles 5%/95%: 10^" << format_fixed(t.quantile(0.05), 2) << " / 10^"
      << format_fixed(t.quantile(0.95), 2) << "), and " << reach << " of " << t.total()
      << " Monte Carlo draws reach 1e27";
  }
  d << ".";
  Check lcm = exact_check("PermuteFormer: the lcm of the heads' orders can be up to 1e27 for head size 64",
                          "12 heads (BERT-base) of size 64, maximum over all permutations", reachable ? 1 : 0,
                          !reachable && mx.exact ? 1 : 0, mx.log10_value, d.str());
  if (!reachable && !mx.exact) set_point_counts(lcm, 0, 0, 1);  // the search bound was not exact: undecided
  return lcm;
}

}  // namespace favorlab
