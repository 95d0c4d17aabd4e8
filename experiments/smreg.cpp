// `favorlab smreg` — Theorem 1: the regularized softmax kernel SMREG against SM.
// SMREG/SM depends on x, y only through ‖z‖ = ‖x + y‖ (and d); rows use the pair x = y = z/2 (kernels/smreg_ratio.hpp).
// Rows of kind "ratio", one per (d, ‖z‖): the ratio from the Bessel closed form and from the Poisson series (eq. 30),
// 1 − ratio from a positive-term series, and a Monte Carlo estimate of the smreg estimator (iid rows of norm √d).
// Rows of kind "bound", one per (C, d): the infimum of the ratio over pairs allowed by ‖A‖∞ ≤ C (attained at
// ‖z‖ = 2√(ln C), kernels/theorem1_bound.hpp) and d·(1 − inf ratio) next to the claimed constant 2.
// Checks:
//   a. series = closed form within a relative tolerance kRatioTolerance on the ratio (floating-point error analysis
//      below), worst discrepancy reported;
//   b. Monte Carlo mean of the smreg estimator = SMREG (two-sided z, Bonferroni over all (d, ‖z‖); heavy-tailed points
//      inconclusive with the trials a reliable z test would need, computed a priori from the exact feature moments);
//      the points it leaves open judged again by importance sampling ("..., importance-sampled", d ≥ 2): half the
//      draws plain, half with one row tilted by the von Mises–Fisher law at κ = √d‖z‖ normalised by the moment
//      series, not by the Bessel form it is judged against (mc/importance_coupled.hpp: importance_sampled_mean);
//      combined point by point with the plain line in "..., plain or importance-sampled";
//   c. SMREG ≤ SM at every point (within kRatioTolerance);
//   d. one per C: inf ratio ≥ 1 − 2/d + o(1/d), i.e. lim d (1 − inf ratio) ≤ 2; that limit is (2 ln C)².
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "evaluation/theorem1_points.hpp"
#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "features/family_theory.hpp"
#include "io/format_number.hpp"
#include "kernels/smreg_ratio.hpp"
#include "kernels/theorem1_bound.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_coupled.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/either_check.hpp"

namespace favorlab {

namespace {

// Relative tolerance on SMREG/SM (absolute on its log) for "two computations agree" and "ratio ≤ 1".
// Error analysis: the closed form is lgamma(d/2) + (1 − d/2) ln(t/2) + ln I_ν(t) − w; at the worst grid point
// (d = 256, ‖z‖ = 37.6) these terms are each ≲ 1e3 in size, each rounded to ≲ 2 ulps (2.2e-16 relative; Boost's I_ν is
// evaluated in 80-bit long double), so the result carries an absolute error ≲ 4·1e3·2.2e-16 ≈ 1e-12. The series adds
// ≲ a few thousand log-terms (k ln w, lgamma(k+1), Σ ln(1 + 2j/d), each ≲ 1e4) of which only the ~√w around the
// Poisson mode matter; their rounding is ≲ 1e-12 as well. 1e-10 leaves a factor ~50 above both bounds and is still
// six orders of magnitude below any effect the checks look for (the smallest gap 1 − ratio on the default grid is
// ~1e-12 only at ‖z‖ = 0.01, where both forms are evaluated by positive-term series).
constexpr double kRatioTolerance = 1e-10;

// The regularized estimator's unbiasedness, SMREG's setup in Theorem 1; `unbiased` judges the same claim on its grid.
const std::string kSetupClaim = "Theorem 1 (setup): E[smreg estimate] = SMREG";

// Streams of the importance-sampled runs, above every sweep's (the dimension d): base + point index.
constexpr std::uint64_t kSmregImportanceStream = std::uint64_t{1} << 40;

struct SmregOptions {
  std::vector<int> dims{2, 4, 8, 16, 32, 64, 128, 256};
  std::vector<double> z_norms{0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 25, 30, 35, 37};
  std::vector<double> bounds{1.1, 1.5, 2, 2.5, 3, 5, 10, 100};
  std::vector<int> asymptote_dims{1024, 16384, 262144, 4194304};
  int m = 16;
  double alpha = 1e-3;
  std::int64_t importance_trials = -1;  // -1: by run size (importance_trials_for)

  void validate() const {
    if (dims.empty()) throw std::invalid_argument("--d needs at least one dimension");
    for (int d : dims)
      if (d <= 0) throw std::invalid_argument("--d values must be positive, got " + std::to_string(d));
    for (int d : asymptote_dims)
      if (d <= 0) throw std::invalid_argument("--asymptote-d values must be positive, got " + std::to_string(d));
    if (z_norms.empty()) throw std::invalid_argument("--z-norm needs at least one value");
    for (double z : z_norms) validate_ratio_z_norm(z, "--z-norm");
    if (m <= 0) throw std::invalid_argument("--m must be positive, got " + std::to_string(m));
    if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (importance_trials != -1 && (importance_trials < 0 || importance_trials == 1))
      throw std::invalid_argument("--importance-trials must be 0 (skip) or at least 2, got " +
                                  std::to_string(importance_trials));
    for (double c : bounds) {
      if (!std::isfinite(c) || c < 1) throw std::invalid_argument("--C values must be finite and >= 1, got " + format_number(c));
      validate_ratio_z_norm(theorem1_max_z_norm(c), "--C (as the largest |z| = 2 sqrt(ln C))");
    }
  }
  std::int64_t importance_trials_for(std::int64_t plain_trials) const {
    return importance_trials != -1 ? importance_trials : default_importance_mean_trials(plain_trials);
  }
  Json params(std::int64_t plain_trials) const {
    return Json{{"d", dims},       {"z_norm", z_norms}, {"C", bounds}, {"asymptote_d", asymptote_dims},
                {"m", m},          {"estimator", "smreg"}, {"coupling", "iid"}, {"alpha", alpha},
                {"ratio_tolerance", kRatioTolerance}, {"importance_trials", importance_trials_for(plain_trials)}};
  }
};

// A point of the Monte Carlo line that its plain run left open: its row, its index over (d, |z|), and what the
// importance-sampled line needs to judge it.
struct OpenPoint {
  std::size_t row, point;
  int d;
  Geometry g;
  double truth;
  std::string label;
};

// What the plain Monte Carlo line leaves: its verdict and label per (d, |z|), the points it left open for the
// importance-sampled line, and the sweeps' estimator evaluations.
struct PlainLine {
  std::vector<OpenPoint> open;  // the points the plain line leaves open, for the importance-sampled line
  std::vector<PointVerdict> plain;
  std::vector<std::string> labels;
  std::int64_t evaluations = 0;
};


class SmregExperiment final : public Experiment {
 public:
  std::string name() const override { return "smreg"; }
  std::string summary() const override {
    return "Theorem 1: SMREG/SM (Bessel form, series, Monte Carlo), SMREG <= SM, and the 1 - 2/d lower bound";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 20000 : 200000; }
  Distribution distribution() const override { return Distribution::trial_blocks; }

  // One estimator sweep per --d (smreg at m, iid rows of norm √d, x = y = z/2 at every --z-norm), one after another;
  // a ratio row per (d, |z|) and a bound row per (C, d) over --d and --asymptote-d.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    const double points = static_cast<double>(o_.z_norms.size());
    double peak = 0;
    for (int d : o_.dims)
      peak = std::max(peak, estimator_sweep_bytes({static_cast<double>(d), static_cast<double>(o_.m),
                                                   static_cast<double>(o_.m), 1, points},
                                                  ctx.trials, ctx.threads));
    const double rows = static_cast<double>(o_.dims.size()) * points +
                        static_cast<double>(o_.bounds.size()) *
                            static_cast<double>(o_.dims.size() + o_.asymptote_dims.size());
    return memory::estimate(peak + memory::rows_bytes(rows, 28), "--m, --d, --z-norm or --C");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--d", o_.dims, "Dimensions, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--z-norm", o_.z_norms, "Norms of z = x + y, comma-separated (at most 37.677)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--C", o_.bounds, "Bounds C >= 1 on the attention matrix entries for the lower-bound rows")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--asymptote-d", o_.asymptote_dims,
                   "Extra (large) dimensions for the lower-bound rows only, to show the limit d -> infinity")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--m", o_.m, "Random features of the Monte Carlo smreg estimator")->capture_default_str();
    app.add_option("--alpha", o_.alpha, "Family-wise false-failure rate of the Monte Carlo check")
        ->capture_default_str();
    app.add_option("--importance-trials", o_.importance_trials,
                   "Trials per point of the importance-sampled line at the points the plain Monte Carlo left open "
                   "(0: none; default: as many as --trials)");
  }

  Result run(const RunContext& ctx) override {
    o_.validate();
    Result result;
    result.experiment = name();
    result.params = o_.params(ctx.trials);
    result.params["row_schema"] = row_schema();

    SmregRatioTally tally;
    const std::size_t points = o_.z_norms.size();
    ClaimCheck mc(kSetupClaim,
                  "Monte Carlo against the Bessel form, iid rows of norm sqrt(d), m=" + std::to_string(o_.m) + ", " +
                      std::to_string(o_.dims.size() * points) + " points (d x |z|), x = y = z/2",
                  o_.alpha, o_.dims.size() * points);
    const PlainLine line = add_ratio_rows(result, tally, mc, ctx);

    std::vector<Theorem1BoundChecks> bounds;
    for (double c : o_.bounds)
      bounds.push_back(theorem1_bound_rows(c, o_.dims, o_.asymptote_dims, kRatioTolerance, tally, result.rows));

    result.checks.push_back(smreg_series_check(tally, kRatioTolerance));
    result.checks.push_back(mc.result());
    if (o_.importance_trials_for(ctx.trials) > 0 && !line.open.empty())
      importance_lines(result, line.open, line.plain, line.labels, o_.importance_trials_for(ctx.trials), ctx);
    result.checks.push_back(smreg_upper_check(tally, kRatioTolerance));
    for (Theorem1BoundChecks& b : bounds) result.checks.push_back(std::move(b.claimed));
    for (Theorem1BoundChecks& b : bounds) result.checks.push_back(std::move(b.corrected));
    result.measurements["estimator_evaluations"] = line.evaluations;
    return result;
  }

 private:
  // The ratio rows, per d one estimator sweep over every |z| (in order): each point's series against the Bessel form
  // (into tally) and its Monte Carlo mean judged by the plain line (mc).
  PlainLine add_ratio_rows(Result& result, SmregRatioTally& tally, ClaimCheck& mc, const RunContext& ctx) const {
    const std::size_t points = o_.z_norms.size();
    PlainLine line;
    for (std::size_t di = 0; di < o_.dims.size(); ++di) {
      const int d = o_.dims[di];
      std::vector<Geometry> geometries;
      for (double z : o_.z_norms) geometries.push_back(smreg_ratio_geometry(z));
      // One Philox stream per dimension: the d = 16 numbers do not change when another d joins the list.
      const SweepConfig config{d, Coupling::iid, {{Family::smreg, o_.m}}, geometries, ctx.seed,
                               static_cast<std::uint64_t>(d), ctx.trials, ctx.threads, FeatureParameters{}};
      const SweepResult sweep = run_estimator_sweep(config, part_progress(ctx.progress, di, o_.dims.size()));
      line.evaluations += sweep.evaluations;
      for (std::size_t p = 0; p < points; ++p) {
        const double z = o_.z_norms[p];
        const Geometry& g = geometries[p];
        const SmregRatio ratio = smreg_ratio(z, d);
        tally.compare(ratio.log_exact, ratio.log_series, ratio.gap, smreg_point_label(d, z), true);
        const SweepCell& cell = sweep.cell(0, p);
        const double truth = sweep.truth[p];
        const ErrorMoments em = error_moments(Family::smreg, g, d, o_.m);
        const PointEvidence ev{truth + cell.error.mean(), truth, cell.error.standard_error(), kRoundingAllowance * truth,
                               em.error_skewness, cell.error.count(), cell.nonfinite, smreg_point_label(d, z)};
        const PointVerdict v = mc.judge(ev);
        const Json row = smreg_ratio_row(d, o_.m, z, g, ratio, ev, v, cell, em);
        line.plain.push_back(v);
        line.labels.push_back(smreg_point_label(d, z));
        // The tilted sampler needs a sphere of dimension ≥ 2: at d = 1 the plain line alone judges.
        if (v.status == Verdict::inconclusive && d >= 2)
          line.open.push_back({result.rows.size(), di * points + p, d, g, truth, smreg_point_label(d, z)});
        result.rows.push_back(row);
      }
    }
    return line;
  }

  // The "..., importance-sampled" line at the points the plain line left open (half the draws plain, half with one
  // row tilted; the untilted rows from the experiment's own sampler), and "..., plain or importance-sampled", which
  // combines the two point by point over every (d, |z|). Annotates the open points' rows.
  void importance_lines(Result& result, const std::vector<OpenPoint>& open, const std::vector<PointVerdict>& plain,
                        const std::vector<std::string>& labels, std::int64_t trials, const RunContext& ctx) const {
    const std::string claim = kSetupClaim;
    const std::string where = "Monte Carlo against the Bessel form, iid rows of norm sqrt(d), m=" + std::to_string(o_.m) + ", " +
                              std::to_string(plain.size()) + " points (d x |z|), x = y = z/2";
    ClaimCheck check(claim + ", importance-sampled",
                     "against the Bessel form, iid rows of norm sqrt(d), m=" + std::to_string(o_.m) + ", the " +
                         std::to_string(open.size()) +
                         " of " + std::to_string(plain.size()) + " points the plain line left open, x = y = z/2, " +
                         std::to_string(trials) + " draws each, half plain, half with one row tilted (von "
                         "Mises-Fisher at kappa = sqrt(d)|z|, normalised by the moment series); untilted rows from "
                         "the experiment's sampler",
                     o_.alpha, open.size());
    std::vector<PointVerdict> sampled(plain.size());  // inconclusive where no run was made
    for (std::size_t i = 0; i < open.size(); ++i) {
      const OpenPoint& o = open[i];
      const CoupledImportanceSampledMse r =
          importance_sampled_mean(Family::smreg, Coupling::iid, o.g, o.d, o_.m, trials, ctx.seed,
                                  kSmregImportanceStream + o.point, ctx.threads);
      const PointVerdict v = check.judge({r.estimate_mean, o.truth, r.estimate_stderr, kRoundingAllowance * o.truth,
                                          r.estimate_gate_skewness(), r.trials, r.nonfinite, o.label});
      sampled[o.point] = v;
      Json& row = result.rows[o.row];
      row["is_mean"] = r.estimate_mean;
      row["is_stderr"] = r.estimate_stderr;
      row["is_trials"] = r.trials;
      row["is_mean_skewness"] = r.estimate_gate_skewness();
      row["is_mean_status"] = v.status;
    }
    result.checks.push_back(check.result());
    EitherCheck either = plain_or_importance_sampled(claim, where, trials);
    for (std::size_t i = 0; i < plain.size(); ++i) either.add(plain[i], sampled[i], labels[i]);
    result.checks.push_back(either.result());
  }

  // Ratio rows pair by (d, |z|), bound rows by (C's |z|, d): key kind × d × z_norm. The Monte Carlo mean and the same
  // draws over SM are statistics (counted in params.trials); closed forms exact, except the logs of ratios near 1, whose absolute rounding
  // (~1e-12, above) is not small relative to their size at small |z|.
  static Json row_schema() {
    auto statistic = [](const char* value, const char* stderr_field, const char* variance, const char* scale) {
      return Json{{"value", value},       {"stderr", stderr_field},   {"count", "trials"},
                  {"count_param", "trials"},      {"count_dropped", "nonfinite"},
                  {"skewness", "error_skewness"}, {"variance", variance}, {"rounding_scale", scale},
                  {"rounding_power", 1}};
    };
    return Json{{"key", Json::array({"kind", "d", "z_norm"})},
                {"statistics", Json::array({statistic("mean", "stderr", "mean_draw_variance", "truth"),
                                            statistic("mc_ratio", "mc_stderr", "mc_ratio_draw_variance",
                                                      "ratio_series")})},
                {"exact", Json::array({"C", "w", "x_norm", "y_norm", "cos_angle", "truth", "ratio_exact",
                                       "ratio_series", "ratio_gap", "asymptote_only", "inf_ratio_exact",
                                       "inf_ratio_series", "inf_ratio_gap", "d_gap", "d_gap_limit", "claimed_constant",
                                       "bound_claimed"})},
                {"verdict", "status"}};
  }

  SmregOptions o_;
};

}  // namespace

std::unique_ptr<Experiment> make_smreg_experiment() { return std::make_unique<SmregExperiment>(); }

}  // namespace favorlab
