// `favorlab moments` — two lemmas of the Performers paper about moments:
//   Lemma 3 / eq. 22: A(2k, d) = E[(ωᵀe₁/‖ω‖)^{2k}] = (2k−1)!!/(d(d+2)⋯(d+2k−2)), odd moments 0. Monte Carlo of
//     u₁ = ωᵀe₁/‖ω‖ (ω ~ N(0, I_d)) at each --d and power 1..2·max-k, each mean against the formula by a two-sided
//     z test (Bonferroni over the check's points). The skewness and kurtosis of u₁^n are exact from A(n), …, A(4n),
//     so points whose z test is unreliable at this trial count (high powers at large d; first- and second-order
//     Edgeworth terms) are inconclusive, with the trials they would need.
//   Lemma 6 (proof of Theorem 2): τ(d_1..d_m) = Π μ(d_i)/μ(Σ d_i) ≤ d/(d+2) for even d_i with ≥ 2 non-zero, m ≤ d.
//     Exhaustive over all such compositions with total degree ≤ --tau-max-degree, for every d in
//     [--tau-d-min, --tau-d-max], through integer partitions (kernels/tau_maximum.hpp); the maximiser is compared with
//     the bound exactly in integers. Checks: the bound, and the proof's claim that (2, 2, 0, …) is the maximiser.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "experiments/experiment.hpp"
#include "kernels/chi_moments.hpp"
#include "kernels/sphere_moments.hpp"
#include "kernels/tau_maximum.hpp"
#include "mc/sphere_moment_sweep.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/second_order_edgeworth.hpp"

namespace favorlab {

namespace {

// A composition of length m from its non-zero parts: "(2, 2)", "(2, 2, 0)", "(2, 2, 0, …, 0)".
std::string composition_text(const std::vector<int>& parts, int m) {
  std::ostringstream s;
  s << "(";
  for (std::size_t i = 0; i < parts.size(); ++i) s << (i ? ", " : "") << parts[i];
  const int zeros = m - static_cast<int>(parts.size());
  if (zeros == 1) s << ", 0";
  if (zeros == 2) s << ", 0, 0";
  if (zeros > 2) s << ", 0, …, 0";
  s << ")";
  return s.str();
}

const char* exact_relation(int sign) { return sign < 0 ? "below" : sign > 0 ? "above" : "equal"; }

class MomentsExperiment final : public Experiment {
 public:
  std::string name() const override { return "moments"; }
  std::string summary() const override {
    return "Lemma 3: moments A(2k, d) of u1 = w1/|w| by Monte Carlo; Lemma 6: tau <= d/(d+2) by exhaustive search";
  }
  // Paper-sized: 3e8, since the heaviest point, u₁¹² at d = 128 (a-priori skewness 597), needs 2.7e8 trials for a
  // reliable z test at the check's α (5e7 left it and u₁¹² at d = 64, 8.7e7, open). About 6 minutes on 2 cores.
  std::int64_t default_trials(bool quick) const override { return quick ? 1'000'000 : 300'000'000; }
  Distribution distribution() const override { return Distribution::trial_blocks; }

  // Rows: one per (d, power) and one per dimension of the Lemma 6 search (--tau-d-min..--tau-d-max, up to 1e5);
  // the Monte Carlo keeps a wave of 2·max-k moments per block, the search a few vectors of its degree.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double powers = 2.0 * max_k_;
    const double rows = static_cast<double>(dims_.size()) * powers + std::max(0.0, 1.0 + tau_d_max_ - tau_d_min_);
    return estimate(rows_bytes(rows, 24) + wave_accumulators(static_cast<double>(ctx.trials), powers * 40),
                    "--tau-d-max, --d or --max-k");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--d", dims_, "Dimensions of the Monte Carlo of Lemma 3, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--max-k", max_k_, "Lemma 3: even powers 2..2k and odd powers 1..2k-1 of u1")->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each Monte Carlo check (Bonferroni)")
        ->capture_default_str();
    app.add_option("--tau-d-min", tau_d_min_, "Lemma 6: smallest dimension searched")->capture_default_str();
    app.add_option("--tau-d-max", tau_d_max_, "Lemma 6: largest dimension searched")->capture_default_str();
    app.add_option("--tau-max-degree", tau_max_degree_, "Lemma 6: largest total degree d_1 + ... + d_m searched")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    validate();
    Result result;
    result.experiment = name();
    result.params = Json{{"d", dims_},
                         {"max_k", max_k_},
                         {"alpha", alpha_},
                         {"tau_d_min", tau_d_min_},
                         {"tau_d_max", tau_d_max_},
                         {"tau_max_degree", tau_max_degree_}};
    // For compare: sphere-moment rows pair by (d, power), tau rows by d (their power is null). Each Monte Carlo mean
    // of u1^power is a statistic with its exact skewness and variance of one draw; closed forms and the exhaustive
    // search's figures are exact, all but the margins near 0, which are rounding residues of equal numbers.
    result.params["row_schema"] = Json{
        {"key", Json::array({"kind", "d", "power"})},
        {"statistics", Json::array({Json{{"value", "mean"}, {"stderr", "stderr"}, {"count", "trials"},
                                         {"count_param", "trials"}, {"skewness", "skewness"},
                                         {"variance", "draw_variance"}}})},
        {"exact", Json::array({"k", "a_theory", "excess_kurtosis", "m", "max_degree", "max_tau", "argmax",
                               "argmax_parts", "bound", "exact_comparison", "runner_up_tau", "runner_up",
                               "partitions_evaluated", "compositions_checked", "partitions_above_bound",
                               "partitions_at_bound", "exact_comparisons"})},
        {"verdict", "status"}};
    run_lemma3(ctx, result);
    run_lemma6(result);
    return result;
  }

 private:
  void validate() const {
    if (dims_.empty()) throw std::invalid_argument("--d needs at least one dimension");
    for (int d : dims_)
      if (d < 2) throw std::invalid_argument("--d values must be >= 2 (u1 = +-1 is constant at d = 1), got " +
                                             std::to_string(d));
    if (max_k_ < 1 || max_k_ > 50)
      throw std::invalid_argument("--max-k must lie in [1, 50], got " + std::to_string(max_k_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (tau_d_min_ < 2) throw std::invalid_argument("--tau-d-min must be >= 2 (m <= d needs two parts), got " +
                                                    std::to_string(tau_d_min_));
    if (tau_d_max_ < tau_d_min_) throw std::invalid_argument("--tau-d-max must be >= --tau-d-min");
    if (tau_d_max_ > 100000) throw std::invalid_argument("--tau-d-max must be <= 100000");
    // Partitions of n grow like e^{π√(2n/3)}: 204 226 for degree 100 (n = 50) is about the most a run can afford.
    if (tau_max_degree_ < 4 || tau_max_degree_ > 100)
      throw std::invalid_argument("--tau-max-degree must lie in [4, 100], got " + std::to_string(tau_max_degree_));
  }

  void run_lemma3(const RunContext& ctx, Result& result) const {
    const int max_power = 2 * max_k_;
    const SphereMomentResult mc =
        run_sphere_moment_sweep({dims_, max_power, ctx.seed, ctx.trials, ctx.threads}, ctx.progress);
    const std::size_t points = dims_.size() * static_cast<std::size_t>(max_k_);
    ClaimCheck even("Lemma 3 / eq. 22: E[u1^2k] = (2k-1)!!/(d(d+2)...(d+2k-2))",
                    "u1 = w1/|w|, w ~ N(0, I_d), k = 1.." + std::to_string(max_k_) + ", " +
                        std::to_string(dims_.size()) + " dimensions, " + std::to_string(points) + " points",
                    alpha_, points);
    ClaimCheck odd("Lemma 3: odd moments of u1 vanish",
                   "powers 1, 3, .., " + std::to_string(max_power - 1) + ", " + std::to_string(dims_.size()) +
                       " dimensions, " + std::to_string(points) + " points",
                   alpha_, points);
    const double z_crit = even.critical_z(), point_alpha = bonferroni_alpha(alpha_, points);
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      const int d = dims_[i];
      for (int power = 1; power <= max_power; ++power) {
        const RunningMoments& m = mc.at(i, power);
        const bool is_even = power % 2 == 0;
        const double theory = sphere_moment(power, d);
        // Reliability of the z test from the exact skewness (first-order Edgeworth, inside ClaimCheck) and the exact
        // kurtosis (second order). The second matters for odd powers: u1^{odd} is symmetric (skewness 0), yet at
        // large power and d its kurtosis is so large that the 1/n term distorts the tails at any affordable n.
        const double skew = sphere_power_skewness(power, d), kurtosis = sphere_power_excess_kurtosis(power, d);
        const std::int64_t second_order = trials_for_second_order_z_test(skew, kurtosis, z_crit, point_alpha);
        const std::int64_t nonfinite = std::isfinite(m.mean()) ? 0 : m.count();
        PointEvidence ev{m.mean(),      theory,    m.standard_error(), 1e-12 * theory,
                         skew,          m.count(), nonfinite,
                         "d=" + std::to_string(d) + ", power " + std::to_string(power), second_order};
        // An odd moment is 0: its margin and power are relative to the spread of one draw, √E[u1^(2·power)].
        if (!is_even) ev.scale = std::sqrt(sphere_moment(2 * power, d));
        const PointVerdict v = (is_even ? even : odd).judge(ev);
        Json row{{"kind", "sphere_moment"}, {"d", d}, {"power", power}};
        row["k"] = is_even ? Json(power / 2) : Json(nullptr);
        row["a_theory"] = theory;
        row["mean"] = m.mean();
        row["stderr"] = m.standard_error();
        row["z"] = v.z;
        row["trials"] = m.count();
        row["skewness"] = skew;
        // Var(u1^power) = A(2·power) − A(power)², the closed-form variance of one draw (compare's Chebyshev bound).
        row["draw_variance"] = sphere_moment(2 * power, d) - theory * theory;
        row["excess_kurtosis"] = kurtosis;
        row["status"] = v.status;
        row["trials_needed"] = trials_json(v.trials_needed);
        result.rows.push_back(row);
      }
    }
    result.checks.push_back(even.result());
    result.checks.push_back(odd.result());
    result.measurements["omega_coordinates"] = mc.normal_draws;
    result.measurements["omega_coordinates_per_second"] =
        mc.seconds > 0 ? static_cast<double>(mc.normal_draws) / mc.seconds : 0.0;
  }

  void run_lemma6(Result& result) const {
    std::int64_t partitions = 0, dims_above = 0, dims_not_22 = 0, dims_equal = 0, exact_comparisons = 0, at_bound = 0;
    double compositions = 0, worst_excess = -1, smallest_gap = 1, tolerance = 0;
    int worst_d = 0, smallest_gap_d = 0;
    std::string not_22;
    for (int d = tau_d_min_; d <= tau_d_max_; ++d) {
      const TauSearchResult s = search_tau_maximum({d, d, tau_max_degree_, 2, 2});
      const int exact = exact_tau_vs_lemma6_bound(d, s.argmax);
      // Where the maximiser equals the bound exactly, report it exactly: the log-gamma value differs by rounding only.
      const double bound = lemma6_bound(d), max_tau = exact == 0 ? bound : std::exp(s.max_log_tau);
      const double excess = exact == 0 ? 0.0 : std::expm1(s.max_log_tau - s.log_bound);  // max τ/bound − 1
      // Violated when any partition exceeds the bound beyond rounding, or the maximiser does exactly.
      const bool violated = s.partitions_above_bound > 0 || exact > 0;
      const bool is_22 = s.argmax == std::vector<int>{2, 2};
      const double gap = -std::expm1(s.runner_up_log_tau - s.max_log_tau);  // 1 − runner-up/max
      const bool unique = gap > s.rounding_tolerance;
      Json row{{"kind", "tau"}, {"d", d}, {"power", nullptr}, {"m", d}, {"max_degree", tau_max_degree_},
               {"max_tau", max_tau}};
      row["argmax"] = composition_text(s.argmax, d);
      row["argmax_parts"] = s.argmax;
      row["bound"] = bound;
      row["margin"] = bound - max_tau;
      row["relative_margin"] = excess == 0 ? 0.0 : -excess;
      row["exact_comparison"] = exact_relation(exact);
      row["runner_up_tau"] = std::exp(s.runner_up_log_tau);
      row["runner_up"] = composition_text(s.runner_up, d);
      row["runner_up_margin"] = bound - std::exp(s.runner_up_log_tau);  // how far every other composition stays below
      row["partitions_evaluated"] = s.partitions_evaluated;
      row["compositions_checked"] = s.compositions_covered;
      row["partitions_above_bound"] = s.partitions_above_bound;
      row["partitions_at_bound"] = s.partitions_at_bound;
      row["exact_comparisons"] = s.exact_comparisons;
      row["rounding_tolerance"] = s.rounding_tolerance;
      row["status"] = violated ? "violated" : "holds";
      result.rows.push_back(row);

      partitions += s.partitions_evaluated;
      exact_comparisons += s.exact_comparisons;
      at_bound += s.partitions_at_bound;
      tolerance = std::max(tolerance, s.rounding_tolerance);
      compositions += s.compositions_covered;
      dims_above += violated;
      dims_equal += exact == 0;
      if (worst_d == 0 || excess > worst_excess) {
        worst_excess = excess;
        worst_d = d;
      }
      if (!is_22 || !unique) {
        ++dims_not_22;
        if (not_22.size() < 200) not_22 += " d=" + std::to_string(d) + ": " + composition_text(s.argmax, d) +
                                           (unique ? "" : " (tied)");
      }
      if (smallest_gap_d == 0 || gap < smallest_gap) {
        smallest_gap = gap;
        smallest_gap_d = d;
      }
    }
    const std::int64_t n_dims = tau_d_max_ - tau_d_min_ + 1;
    const std::string where = "d = " + std::to_string(tau_d_min_) + ".." + std::to_string(tau_d_max_) +
                              ", m <= d, even parts, >= 2 non-zero, total degree <= " + std::to_string(tau_max_degree_);
    std::ostringstream detail;
    detail << n_dims - dims_above << " dimensions hold, " << dims_above << " violated; " << partitions
           << " partitions evaluated in log-gamma arithmetic (rounding tolerance up to " << tolerance
           << ", from lgamma's error bound), standing for " << compositions << " compositions; the "
           << exact_comparisons
           << " partitions within " << kExactScreen << " tolerances of d/(d+2) were decided exactly in integers: "
           << at_bound << " equal the bound, the maximiser at " << dims_equal << " of " << n_dims
           << " dimensions (the bound is attained, so the lemma's <= cannot be made strict); "
           << "largest max_tau/bound - 1 = "
           << worst_excess << " at d=" << worst_d;
    result.checks.push_back(exact_check("Lemma 6: tau(d_1..d_m) <= d/(d+2)", where, n_dims - dims_above, dims_above,
                                        worst_excess, detail.str(), std::max(0.0, tolerance - worst_excess)));
    std::ostringstream detail2;
    detail2 << n_dims - dims_not_22 << " of " << n_dims << " dimensions have the unique maximiser (2, 2, 0, ...)";
    if (dims_not_22 > 0) detail2 << "; others:" << not_22;
    detail2 << "; smallest relative gap to the runner-up 1 - tau2/tau1 = " << smallest_gap
            << " at d=" << smallest_gap_d;
    result.checks.push_back(exact_check("Lemma 6 proof: tau is maximised by (2, 2, 0, ...)", where,
                                        n_dims - dims_not_22, dims_not_22, smallest_gap, detail2.str()));
  }

  std::vector<int> dims_{2, 3, 4, 8, 16, 32, 64, 128};
  int max_k_ = 6;
  double alpha_ = 1e-3;
  int tau_d_min_ = 2, tau_d_max_ = 128, tau_max_degree_ = 40;
};

}  // namespace

std::unique_ptr<Experiment> make_moments_experiment() { return std::make_unique<MomentsExperiment>(); }

}  // namespace favorlab
