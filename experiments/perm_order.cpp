// `favorlab perm-order` — PermuteFormer's claims about the order of random permutations
// (docs/theory.md#order-of-a-random-permutation).
//   Per n (--n): the exact distribution of the order of a uniform permutation of S_n (perm/order_distribution.hpp;
//   n ≤ --exact-max-n), hence exact E[order], SD, skewness, kurtosis, median and E[ln order]; a Monte Carlo sample of
//   --trials permutations (Fisher–Yates on PhiloxStream, stream 1000 + n); Landau's g(n); the Goh–Schmutz and
//   Erdős–Turán asymptotics. Histograms of ln(order), Monte Carlo counts beside exact probabilities.
//   Per H (--heads): H heads of size --head-size, each with its own uniform permutation; the Monte Carlo distribution of
//   log10 of the lcm of their orders (--head-trials trials, stream 2000 + H) and the exact maximum over all H-tuples
//   (perm/max_heads_lcm.hpp) with its proven single-pool upper bound.
// Checks (evaluation/order_points.hpp, evaluation/heads_lcm_points.hpp): (1) exact E[order] = Monte Carlo mean,
// judged by the Chernoff interval of the mean from the exact law of the order (stats/chernoff_interval.hpp): a bound at
// every trial count, so no skewness gate; with --until-conclusive the sizes still open draw more permutations in looks
// (docs/judging.md#looks-until-conclusive). (2) E[ln order] by a two-sided z test with its exact SD, gated by its exact
// skewness and kurtosis (first- and second-order Edgeworth); far less skewed, it tests the sampler sharply. Both are
// judged on the same permutations: a size draws on while either check is open there. (3) PF: "average order over
// 3000" at n = 64, decided exactly from E[order], with the median, exp(E ln order) and P(order > 3000) in the detail.
// (4) PF: the lcm over heads "can be up to 1e27" at head size 64 with BERT-base's 12 heads: decided exactly from the
// maximum reachable, with the Monte Carlo median and P(lcm ≥ 1e27) in the detail.
#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>

#include "evaluation/heads_lcm_points.hpp"
#include "evaluation/order_points.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "mc/joint_verdict.hpp"
#include "perf/memory_estimate.hpp"
#include "perm/distinct_orders.hpp"
#include "perm/order_asymptotics.hpp"

namespace favorlab {

namespace {

class PermOrderExperiment final : public Experiment {
 public:
  std::string name() const override { return "perm-order"; }
  std::string summary() const override {
    return "PermuteFormer: order of random permutations (exact E[order], Landau, Erdos-Turan) and lcm over heads";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 20'000 : 1'000'000; }
  Distribution distribution() const override { return Distribution::trial_blocks; }
  bool takes_looks() const override { return true; }

  // The exact order distribution of the largest n ≤ --exact-max-n (perm/order_distribution.cpp): its DP keeps, for
  // every s ≤ n, one 1728-bit count per distinct order of S_s (≈ 350 B with its hash node; 1.4 million entries at
  // n = 128, 26 million at n = 200). The Monte Carlo tallies: one map node per distinct order (64 B), all --heads
  // tallies of --head-trials draws kept to the end.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const int exact_max_n = resolved_exact_max_n(ctx.quick);
    int largest = 0;
    for (int n : ns_)
      if (n <= std::min(exact_max_n, 256)) largest = std::max(largest, n);
    double distinct = 0, states = 0;  // distinct orders of S_largest, and their total over s ≤ largest
    for (double count : distinct_order_counts(largest)) {
      distinct = count;
      states += count;
    }
    const double trials = static_cast<double>(ctx.trials);
    const double head_trials = static_cast<double>(resolved_head_trials(ctx.trials));
    const double tallies = std::min(trials, distinct) * 64 + wave_accumulators(trials, 32 * 64) +
                           static_cast<double>(heads_.size()) * head_trials * 64;
    double heads_max = 0;
    for (int h : heads_) heads_max = std::max<double>(heads_max, h);
    return estimate(states * 350 + tallies + 60 * heads_max * head_size_ * kDouble +
                        rows_bytes(2 * static_cast<double>(ns_.size() + heads_.size()), 30),
                    "--exact-max-n, --n or --head-trials");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--n", ns_, "Permutation sizes, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--heads", heads_, "Numbers of heads H for the lcm over heads, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--head-size", head_size_, "Size of each head's permutation")->capture_default_str();
    app.add_option("--head-trials", head_trials_,
                   "Monte Carlo trials per H (0: --trials, at most 200000: a trial draws H permutations)")
        ->capture_default_str();
    app.add_option("--exact-max-n", exact_max_n_option_,
                   "Largest n whose exact order distribution is computed (-1: 128, or 64 with --quick, where the "
                   "exact DP at n = 128 alone takes several seconds)")
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each Monte Carlo check (Bonferroni)")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    validate();
    exact_max_n_ = resolved_exact_max_n(ctx.quick);
    const std::int64_t head_trials = resolved_head_trials(ctx.trials);
    Result result;
    result.experiment = name();
    result.params = Json{{"n", ns_},         {"heads", heads_},           {"head_size", head_size_},
                         {"head_trials", head_trials}, {"exact_max_n", exact_max_n_}, {"alpha", alpha_}};
    result.params["row_schema"] = row_schema();
    const std::size_t parts = ns_.size() + heads_.size();
    run_orders(ctx, parts, result);
    run_heads(ctx, head_trials, parts, result);
    return result;
  }

 private:
  // For compare: order and histogram rows pair by n, heads rows by H (key kind × n × heads, the other one null). The
  // Monte Carlo means are statistics, gated by their exact skewness where the exact distribution was computed, and
  // past that gate held to a distribution-free bound from the range every draw lies in (an order in [1, g(n)], its
  // log in [0, ln g(n)], g Landau's function; log10 lcm over heads in [0, its upper bound]); P(lcm >= 1e27) is a
  // binomial count. Counts: params.trials (orders, with looks trials·2^k) and params.head_trials (heads). Quantiles and
  // histograms are not declared (no standard error); closed forms and the exact search are exact fields.
  static Json row_schema() {
    auto statistic = [](const char* value, const char* stderr_field, const char* skewness, const char* variance,
                        const char* range) {
      Json s{{"value", value},
             {"stderr", stderr_field},
             {"count", "trials"},
             {"count_param", Json::array({"trials", "head_trials"})},
             {"skewness", skewness},
             {"range", range}};
      if (variance != nullptr) s["variance"] = variance;
      return s;
    };
    return Json{
        {"key", Json::array({"kind", "n", "heads"})},
        {"statistics",
         Json::array({statistic("mc_mean_order", "mc_stderr", "exact_skewness_order", "exact_variance_order",
                                "order_range"),
                      statistic("mc_mean_log_order", "mc_log_stderr", "exact_skewness_log_order", "exact_var_log_order",
                                "log_order_range"),
                      statistic("mc_mean_log10_lcm", "mc_stderr_log10_lcm", "skewness_log10_lcm", nullptr,
                                "upper_bound_log10_lcm"),
                      Json{{"value", "mc_fraction_at_least_1e27"}, {"successes", "mc_count_at_least_1e27"},
                           {"count", "trials"}, {"count_param", Json::array({"trials", "head_trials"})},
                           {"kind", "binomial"}}})},
        {"exact", Json::array({"exact_mean_order", "exact_mean_order_fraction", "exact_sd_order",
                               "exact_excess_kurtosis_order", "exact_median_order", "exact_typical_order",
                               "exact_mean_log_order", "exact_distinct_orders", "exact_probability", "landau",
                               "landau_log10", "landau_cycle_type", "erdos_turan_mean_log", "erdos_turan_var_log",
                               "goh_schmutz_log_mean", "goh_schmutz_mean_order", "bin_width", "bin_count", "head_size",
                               "max_lcm", "max_log10_lcm", "max_exact", "max_search_nodes", "max_heads_cycles",
                               "upper_bound_lcm", "upper_bound_log10_lcm"})},
        {"verdict", "status"}};
  }

  int resolved_exact_max_n(bool quick) const {
    return exact_max_n_option_ >= 0 ? exact_max_n_option_ : (quick ? 64 : 128);
  }
  std::int64_t resolved_head_trials(std::int64_t trials) const {
    return head_trials_ > 0 ? head_trials_ : std::min<std::int64_t>(trials, 200'000);
  }

  void validate() const {
    if (ns_.empty()) throw std::invalid_argument("--n needs at least one size");
    for (int n : ns_)
      if (n < 2 || n > 256) throw std::invalid_argument("--n values must lie in [2, 256], got " + std::to_string(n));
    if (heads_.empty()) throw std::invalid_argument("--heads needs at least one value");
    for (int h : heads_)
      if (h < 1 || h > 64) throw std::invalid_argument("--heads values must lie in [1, 64], got " + std::to_string(h));
    if (head_size_ < 2 || head_size_ > 256)
      throw std::invalid_argument("--head-size must lie in [2, 256], got " + std::to_string(head_size_));
    if (head_trials_ < 0) throw std::invalid_argument("--head-trials must be >= 0");
    if (exact_max_n_option_ < -1 || exact_max_n_option_ > 200)
      throw std::invalid_argument("--exact-max-n must be -1 (automatic) or lie in [0, 200], got " +
                                  std::to_string(exact_max_n_option_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
  }

  void run_orders(const RunContext& ctx, std::size_t parts, Result& result) const {
    std::vector<OrderPoint> points(ns_.size());
    std::vector<std::size_t> cells;  // the exact sizes: the cells of the looks
    double pilot_seconds = 0, exact_seconds = 0;
    for (std::size_t i = 0; i < ns_.size(); ++i) {
      OrderPoint& p = points[i];
      p.n = ns_[i];
      const auto start = std::chrono::steady_clock::now();
      extend_orders(p, ctx.seed, ctx.threads, ctx.trials, part_progress(ctx.progress, i, parts));
      if (p.n > exact_max_n_) continue;
      pilot_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      add_exact_law(p);
      exact_seconds += p.exact_seconds;
      cells.push_back(i);
    }
    const std::size_t split = std::max<std::size_t>(cells.size(), 1);
    const bool sequential = ctx.looks.sequential();
    const std::string where = std::to_string(cells.size()) + " sizes n <= " + std::to_string(exact_max_n_) + ", " +
                              std::to_string(ctx.trials) + " permutations each" +
                              (sequential ? " in the pilot; open sizes draw more in looks" : "");
    LookRecord looks;
    looks.cell_look.assign(cells.size(), 0);
    if (sequential && !cells.empty()) {
      OrderJudges scratch = order_judges(where, alpha_, split);  // judges of the looks; below: the last look's
      const std::int64_t last = look_trials(ctx.trials, ctx.looks.max_looks - 1);
      looks = run_looks(
          cells.size(), ctx.trials, pilot_seconds, ctx.looks,
          [&](std::size_t c, int look) {
            const auto [mean, log] = judge_order_point(scratch, points[cells[c]], look);
            return joint_verdict({mean, log}, last);
          },
          [&](const std::vector<std::size_t>& open, std::int64_t to) {
            for (std::size_t c : open) extend_orders(points[cells[c]], ctx.seed, ctx.threads, to, {});
          });
      report_looks(ctx.looks, looks, result);
    }
    OrderJudges checks = order_judges(where, alpha_, split);
    for (std::size_t i = 0, c = 0; i < points.size(); ++i)
      add_order_rows(points[i], points[i].exact && sequential ? looks.cell_look[c++] : -1, checks, result);
    if (!cells.empty()) {
      result.checks.push_back(checks.mean.result());
      result.checks.push_back(checks.log.result());
    }
    result.measurements["exact_distribution_seconds"] = exact_seconds;
    result.measurements["goh_schmutz_constant"] = goh_schmutz_constant();
  }

  void run_heads(const RunContext& ctx, std::int64_t head_trials, std::size_t parts, Result& result) const {
    std::map<int, HeadsLcmMaximum> maxima;
    std::map<int, ValueCounts<double>> tallies;
    double max_seconds = 0;
    for (std::size_t i = 0; i < heads_.size(); ++i) {
      const int h = heads_[i];
      tallies[h] = sample_heads_lcm(h, head_size_, head_trials, ctx.seed, ctx.threads,
                                    part_progress(ctx.progress, ns_.size() + i, parts));
      const auto start = std::chrono::steady_clock::now();
      maxima[h] = max_heads_lcm(head_size_, h);
      max_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    for (int h : heads_) result.rows.push_back(heads_lcm_row(h, head_size_, tallies[h], maxima[h], alpha_));
    result.measurements["max_heads_lcm_seconds"] = max_seconds;
    result.checks.push_back(heads_lcm_claim(head_size_, maxima, tallies));
  }

  std::vector<int> ns_{8, 16, 32, 64, 128};
  std::vector<int> heads_{1, 8, 12, 16};
  int head_size_ = 64;
  std::int64_t head_trials_ = 0;
  int exact_max_n_option_ = -1;
  int exact_max_n_ = 128;  // resolved in run()
  double alpha_ = 1e-3;
};

}  // namespace

std::unique_ptr<Experiment> make_perm_order_experiment() { return std::make_unique<PermOrderExperiment>(); }

}  // namespace favorlab
