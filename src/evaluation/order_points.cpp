#include "evaluation/order_points.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "io/format_number.hpp"
#include "perm/landau.hpp"
#include "perm/order_asymptotics.hpp"
#include "perm/order_histogram.hpp"
#include "perm/permutation.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/second_order_edgeworth.hpp"

namespace favorlab {

namespace {

double log_order(std::uint64_t order) { return std::log(static_cast<double>(order)); }

// PF: "the dimension of queries / keys per attention head is 64, corresponding to an average order of over 3000",
// decided by an exact rational comparison; the detail says how little of the law the mean describes.
Check claim_3000(const OrderDistribution& dist, const OrderSummary& s, double mc_mean, double mc_se) {
  const double p_above = probability_order_above(dist, kOrderClaimMean);
  const bool holds = dist.moment(1) > BigRational(static_cast<int>(kOrderClaimMean));
  std::ostringstream d;
  d << "exact E[order] = " << format_fixed(s.mean, 4) << " (" << (holds ? "above" : "not above")
    << " 3000, exact rational comparison; by " << format_fixed(s.mean - kOrderClaimMean, 2)
    << "), so the claim holds for the mean as worded. But the mean is carried by a heavy right tail (skewness "
    << format_fixed(s.skewness, 1) << ", SD " << format_fixed(s.sd, 0) << "): the exact median is " << s.median
    << ", the typical order exp(E[ln order]) = " << format_fixed(s.typical, 1) << ", and only "
    << format_fixed(100 * p_above, 2) << "% of permutations of 64 have order > 3000. Monte Carlo mean "
    << format_fixed(mc_mean, 1) << " +- " << format_fixed(mc_se, 1) << " (s.e.).";
  return exact_check("PermuteFormer: the average order of a random permutation of 64 elements is over 3000",
                     "n = 64, exact distribution over S_64", holds ? 1 : 0, holds ? 0 : 1, s.mean, d.str(),
                     std::max(0.0, (s.mean - kOrderClaimMean) / kOrderClaimMean));
}

// An exact size's fields: its Monte Carlo means judged against the exact law, its figures in both rows.
void exact_fields(const OrderPoint& p, int look, int bins, OrderJudges& judges, Json& row, Json& hist) {
  const double trials = static_cast<double>(p.trials);
  const OrderSummary& s = p.summary;
  const auto [v, vl] = judge_order_point(judges, p, look);
  const ChernoffMeanCheck::Interval interval =
      judges.mean.interval(*p.law, {p.order.mean, s.mean, 1e-12 * s.mean, p.trials, "", look});
  row["exact_mean_order"] = s.mean;
  row["exact_mean_order_fraction"] = p.dist.moment(1).str();
  row["exact_sd_order"] = s.sd;
  row["exact_skewness_order"] = s.skewness;
  row["exact_variance_order"] = s.sd * s.sd;  // of one draw: compare's Chebyshev bound past the skewness gate
  row["exact_skewness_log_order"] = s.skewness_log;
  row["exact_excess_kurtosis_order"] = s.excess_kurtosis;
  row["exact_median_order"] = s.median;
  row["exact_typical_order"] = s.typical;
  row["exact_mean_log_order"] = s.mean_log;
  row["exact_var_log_order"] = s.variance_log;
  row["exact_distinct_orders"] = p.dist.orders.size();
  row["exact_seconds"] = p.exact_seconds;
  row["mc_mean_order"] = p.order.mean;
  row["mc_stderr"] = s.sd / std::sqrt(trials);
  row["mc_stderr_sample"] = std::sqrt(p.order.variance / trials);
  // The Chernoff interval on E[order]: [mc_mean_order - mc_interval_above, mc_mean_order + mc_interval_below].
  row["mc_interval_above"] = interval.above;
  row["mc_interval_below"] = interval.below;
  if (look >= 0) row["look"] = look;
  row["z"] = v.z;
  row["status"] = v.status;
  row["trials_needed"] = trials_json(v.trials_needed);
  row["mc_mean_log_order"] = p.log.mean;
  row["mc_log_stderr"] = std::sqrt(s.variance_log / trials);
  row["z_log"] = vl.z;
  row["status_log"] = vl.status;
  row["trials_needed_log"] = trials_json(vl.trials_needed);
  hist["exact_probability"] = log_order_histogram(p.dist, kOrderLogBin, bins);
  hist["exact_mean_log_order"] = s.mean_log;
  hist["exact_var_log_order"] = s.variance_log;
  // The histogram row repeats the order row's mean of ln(order): compare judges it with the same figures.
  hist["trials"] = p.trials;
  hist["mc_log_stderr"] = std::sqrt(s.variance_log / trials);
  hist["exact_skewness_log_order"] = s.skewness_log;
}

// A size past the exact limit: the sample's own figures, not tested.
void sampled_fields(const OrderPoint& p, Json& row, Json& hist) {
  const double trials = static_cast<double>(p.trials);
  row["exact_mean_order"] = nullptr;
  row["exact_sd_order"] = nullptr;
  row["mc_mean_order"] = p.order.mean;
  row["mc_stderr"] = std::sqrt(p.order.variance / trials);
  row["mc_stderr_sample"] = std::sqrt(p.order.variance / trials);
  row["status"] = "not_tested";
  row["mc_mean_log_order"] = p.log.mean;
  row["mc_log_stderr"] = std::sqrt(p.log.variance / trials);  // no exact variance here: the sample's
  hist["trials"] = p.trials;
  hist["mc_log_stderr"] = std::sqrt(p.log.variance / trials);
}

}  // namespace

void extend_orders(OrderPoint& p, std::uint64_t seed, int threads, std::int64_t to_trials, const ProgressFn& progress) {
  const std::uint64_t stream = 1000 + static_cast<std::uint64_t>(p.n);
  const int n = p.n;
  p.tally = run_parallel_trials(
      to_trials - p.trials, threads, ValueCounts<std::uint64_t>{},
      [&](std::int64_t t, ValueCounts<std::uint64_t>& acc) {
        PhiloxStream rng(seed, stream, static_cast<std::uint64_t>(t));
        ++acc.counts[random_permutation(n, rng).order_u64()];
      },
      progress, p.trials, &p.tally);
  p.trials = to_trials;
  p.order = sample_moments(p.tally, [](std::uint64_t o) { return static_cast<double>(o); });
  p.log = sample_moments(p.tally, log_order);
}

void add_exact_law(OrderPoint& p) {
  const auto start = std::chrono::steady_clock::now();
  p.dist = order_distribution(p.n);
  p.summary = summarize(p.dist);
  std::vector<double> values, probabilities;
  for (std::size_t j = 0; j < p.dist.orders.size(); ++j) {
    values.push_back(static_cast<double>(p.dist.orders[j]));
    probabilities.push_back(p.dist.probability(j).convert_to<double>());
  }
  p.law.emplace(std::move(values), std::move(probabilities), p.summary.mean);
  p.exact = true;
  p.exact_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

OrderJudges order_judges(const std::string& where, double alpha, std::size_t exact_points) {
  return {ChernoffMeanCheck("E[order] of a uniform permutation of S_n = sum over cycle types of lcm/z (exact)", where,
                            alpha, exact_points),
          ClaimCheck("E[ln order] = its exact value from the order distribution", where, alpha, exact_points)};
}

std::pair<PointVerdict, PointVerdict> judge_order_point(OrderJudges& judges, const OrderPoint& p, int look) {
  const double trials = static_cast<double>(p.trials);
  const OrderSummary& s = p.summary;
  const std::string label = "n=" + std::to_string(p.n);
  ChernoffEvidence mean{p.order.mean, s.mean, 1e-12 * s.mean, p.trials, label, look};
  PointEvidence log{p.log.mean, s.mean_log, std::sqrt(s.variance_log / trials), 1e-12 * std::max(1.0, s.mean_log),
                    s.skewness_log, p.trials, 0, label};
  log.look = look;
  const double log_alpha = judges.log.point_alpha(log);  // the second-order requirement at the look's own α
  log.min_trials = trials_for_second_order_z_test(s.skewness_log, s.excess_kurtosis_log,
                                                  two_sided_critical_z(log_alpha), log_alpha);
  return {judges.mean.judge(*p.law, mean), judges.log.judge(log)};
}

void add_order_rows(const OrderPoint& p, int look, OrderJudges& judges, Result& result) {
  const LandauResult g = landau(p.n);
  // "heads": null is the key field of the heads rows, which these rows do not have.
  Json row{{"kind", "order"}, {"n", p.n}, {"heads", nullptr}, {"trials", p.trials}};
  Json hist{{"kind", "log_order_histogram"}, {"n", p.n}, {"heads", nullptr}, {"bin_width", kOrderLogBin}};
  const int bins = static_cast<int>(std::floor(std::log(g.value.convert_to<double>()) / kOrderLogBin)) + 1;
  hist["bin_count"] = bins;
  hist["mc_counts"] = binned_counts(p.tally, log_order, kOrderLogBin, bins);
  if (p.exact)
    exact_fields(p, look, bins, judges, row, hist);
  else
    sampled_fields(p, row, hist);
  // For compare: every order lies in [1, g(n)] (its log in [0, ln g(n)]), whatever the tail.
  row["order_range"] = g.value.convert_to<double>() - 1;
  row["log_order_range"] = std::log(g.value.convert_to<double>());
  hist["log_order_range"] = std::log(g.value.convert_to<double>());
  row["mc_median_order"] = p.tally.quantile(0.5);
  row["mc_var_log_order"] = p.log.variance;
  row["landau"] = g.value.str();
  row["landau_log10"] = std::log10(g.value.convert_to<double>());
  row["landau_cycle_type"] = g.cycle_type;
  row["mc_max_order"] = p.tally.counts.rbegin()->first;
  row["erdos_turan_mean_log"] = erdos_turan_mean_log(p.n);
  row["erdos_turan_var_log"] = erdos_turan_variance_log(p.n);
  row["goh_schmutz_log_mean"] = goh_schmutz_log_mean(p.n);
  row["goh_schmutz_mean_order"] = std::exp(goh_schmutz_log_mean(p.n));
  hist["erdos_turan_mean_log"] = erdos_turan_mean_log(p.n);
  hist["erdos_turan_var_log"] = erdos_turan_variance_log(p.n);
  hist["mc_mean_log_order"] = p.log.mean;
  hist["mc_var_log_order"] = p.log.variance;
  result.rows.push_back(row);
  result.rows.push_back(hist);
  if (p.exact && p.n == kOrderClaimN)
    result.checks.push_back(
        claim_3000(p.dist, p.summary, p.order.mean, p.summary.sd / std::sqrt(static_cast<double>(p.trials))));
}

}  // namespace favorlab
