// `favorlab mse` — Lemma 2 and the comparison of Fig. 2.
// Empirical MSE of trig, positive and hyperbolic estimators (iid projections by default) with its standard error from
// the sample 4th moment, against the closed forms of Lemma 2. Checks:
//   1. each closed form, point by point (two-sided z, Bonferroni; heavy-tailed points inconclusive, with the trials
//      they would need) — Lemma 2's, or for --estimators gerf, oprf, sderf their exact variances (family table);
//   2. MSE(trig)/MSE(positive) grows as SM → 0: along x_norm = y_norm = r at each fixed cos < 0 (SM = exp(r² cos)
//      falls as r grows) the empirical ratio must not fall significantly between consecutive r;
//   3. hyperbolic with m beats positive with 2m: MSE_hyp(m) − MSE_pos(2m) must not be significantly positive;
//   4. Lemma 2 for positive and hyperbolic (iid; positive also at check 3's 2m) again, by importance sampling along
//      x + y (mc/importance_mse.hpp): light-tailed, so conclusive where the plain Monte Carlo of check 1 is not; the
//      same for gerf, oprf and sderf's exact variances (mc/importance_gerf.hpp: also scaled across x + y). The run's
//      weighted mean is recorded beside it (is_mean); Lemma 1 itself is `unbiased`'s;
//   5. checks 2 and 3 again with the positive (and hyperbolic) MSEs from the importance-sampled runs of check 4, which
//      are independent of the sweep and of each other (trig keeps its plain, light-tailed Monte Carlo); and check 3
//      on Lemma 2's closed forms, whose margin at large ‖z‖ is far below what any Monte Carlo resolves;
//   6. each claim of checks 1-3 judged both ways also gets a line "..., plain or importance-sampled" that combines
//      the plain and the importance-sampled verdict point by point (stats/either_check.hpp).
// Checks 2 and 3 (evaluation/lemma2_comparisons.hpp) take covariances into account where MSEs share a sweep.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "evaluation/lemma2_comparisons.hpp"
#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "features/family_theory.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_gerf.hpp"
#include "mc/importance_mse.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled checks (disjoint from the sweep's, which are the coupling codes).
constexpr std::uint64_t kMseImportanceStream = 0x1500'0000ULL;

class MseExperiment final : public EstimatorGridExperiment {
 public:
  MseExperiment() : EstimatorGridExperiment({"trig", "positive", "hyperbolic"}, {"iid"}) {}
  std::string name() const override { return "mse"; }
  std::string summary() const override {
    return "Lemma 2 and Fig. 2: MSE of trig/positive/hyperbolic estimators against the closed forms";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 100000 : 1000000; }
  bool adds_positive_at_double_m(const std::vector<Family>& estimators) const override {
    return std::find(estimators.begin(), estimators.end(), Family::hyperbolic) != estimators.end();
  }

  void add_options(CLI::App& app) override {
    EstimatorGridExperiment::add_options(app);
    app.add_option("--importance-trials", importance_trials_,
                   "Trials per point of the importance-sampled checks (0: skip them); 1e5 settle every default point")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    if (importance_trials_ < 0 || importance_trials_ == 1)
      throw std::invalid_argument("--importance-trials must be 0 (skip) or at least 2, got " +
                                  std::to_string(importance_trials_));
    const auto points = grid_.points();
    const auto estimators = grid_.parsed_estimators();
    const auto couplings = grid_.parsed_couplings();
    const int m = grid_.m, d = grid_.d;
    Result result;
    result.experiment = name();
    result.params = grid_.params();
    result.params["row_schema"] = estimator_row_schema(true);
    result.params["importance_trials"] = importance_trials_;  // the is_* figures' count (compare checks it)

    std::vector<EstimatorSpec> specs;
    for (Family e : estimators) specs.push_back({e, m});
    if (adds_positive_at_double_m(estimators)) specs.push_back({Family::positive, 2 * m});  // for check 3

    std::int64_t evaluations = 0;
    double seconds = 0;
    std::map<Family, std::vector<MseFigure>> sampled;  // check 4's MSE figures, for check 5
    // Progress: the sweeps, then the importance-sampled runs (one part per run, one step per point).
    const auto importance_run = [&](Family e, int ms) {
      return importance_trials_ > 0 && (is_importance_estimator(e) || has_gerf_importance(e)) &&
             (ms == m || (e == Family::positive && ms == 2 * m));
    };
    std::size_t importance_runs = 0, importance_done = 0;
    if (std::find(couplings.begin(), couplings.end(), Coupling::iid) != couplings.end())
      for (const EstimatorSpec& spec : specs) importance_runs += importance_run(spec.estimator, spec.m) ? 1 : 0;
    const ProgressFn sweep_progress = importance_runs > 0 ? part_progress(ctx.progress, 0, 2) : ctx.progress;
    const ProgressFn importance_progress = part_progress(ctx.progress, 1, 2);
    for (std::size_t ci = 0; ci < couplings.size(); ++ci) {
      const Coupling coupling = couplings[ci];
      const bool iid = coupling == Coupling::iid;
      SweepConfig config{d, coupling, specs, points, ctx.seed, static_cast<std::uint64_t>(coupling), ctx.trials,
                         ctx.threads, grid_.parameters};
      const SweepResult sweep = run_estimator_sweep(config, part_progress(sweep_progress, ci, couplings.size()),
                                                    iid ? lemma2_combined_cells(specs, m, points) : CellPairs{});
      evaluations += sweep.evaluations;
      seconds += sweep.seconds;

      // figures[spec][point]
      std::vector<std::vector<MseFigure>> figures(specs.size(), std::vector<MseFigure>(points.size()));
      for (std::size_t s = 0; s < specs.size(); ++s) {
        const Family e = specs[s].estimator;
        const int ms = specs[s].m;
        const JudgedPoints plain = add_spec_rows(result, sweep, specs[s], s, coupling, points, figures[s]);
        // The closed forms again by importance sampling (mc/importance_mse.hpp; gerf, oprf, sderf:
        // mc/importance_gerf.hpp): light-tailed where the plain Monte Carlo above is not, so its verdicts are
        // conclusive where plain MC cannot be (iid, at the grid's m, and positive's 2m of check 3; the rows of
        // those points get the is_* fields). Check 5 takes the m-feature runs.
        if (iid && importance_run(e, ms)) {
          std::vector<MseFigure> figures_is =
              importance_checks(result, e, ms, points, ctx, s * points.size(), result.rows.size() - points.size(),
                                plain, part_progress(importance_progress, importance_done++, importance_runs));
          if (ms == m) sampled[e] = std::move(figures_is);
        }
      }
      if (iid) add_comparisons(result, points, sweep, specs, figures, sampled);
    }
    result.measurements["estimator_evaluations"] = evaluations;
    result.measurements["evaluations_per_second"] = seconds > 0 ? static_cast<double>(evaluations) / seconds : 0.0;
    return result;
  }

 private:
  // Spec s of one sweep: its rows, with check 1 where the family has a closed form for these rows (iid); sets the
  // spec's MSE figures. Returns check 1's verdicts (empty without it), which check 6 combines.
  JudgedPoints add_spec_rows(Result& result, const SweepResult& sweep, const EstimatorSpec& spec, std::size_t s,
                       Coupling coupling, const std::vector<Geometry>& points, std::vector<MseFigure>& figures) const {
    const int d = grid_.d, ms = spec.m;
    const Family e = spec.estimator;
    const FamilyInfo& family = family_info(e);
    const bool iid = coupling == Coupling::iid;
    std::optional<ClaimCheck> check;
    JudgedPoints plain;
    if (iid && family.iid_mse != nullptr)
      check.emplace(std::string(family.mse_source) + ": MSE(" + std::string(estimator_name(e)) + ") closed form",
                    "iid projections, d=" + std::to_string(d) + ", m=" + std::to_string(ms) + ", " +
                        std::to_string(points.size()) + " points",
                    grid_.alpha, points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
      const SweepCell& cell = sweep.cell(s, p);
      const double truth = sweep.truth[s * points.size() + p];
      const ErrorMoments em = error_moments(e, points[p], d, ms, grid_.parameters);
      MseFigure& f = figures[p];
      f = {cell.error.mean_square(), cell.error.mean_square_stderr(), em.squared_error_skewness, cell.error.count(),
           cell.nonfinite};
      Json row = estimator_row(e, coupling, d, ms, points[p]);
      row["truth"] = truth;
      row["mean"] = truth + cell.error.mean();
      row["stderr"] = cell.error.standard_error();
      row["mse"] = f.mse;
      row["mse_stderr"] = f.stderr_;
      // The a-priori skewness and closed-form variances of one draw of e and e²: what `favorlab compare` gates a
      // figure on and holds a heavy-tailed one to (Chebyshev); coupled rows: bounds; bounded estimators: ranges.
      add_draw_fields(row, em, iid, grid_.parameters);
      row["trials"] = f.trials;
      row["nonfinite"] = f.nonfinite;
      if (check) {
        const double theory = family.iid_mse(points[p], d, ms, grid_.parameters);
        const double allowance = std::pow(kRoundingAllowance * truth, 2);
        const PointVerdict v = check->judge(
            {f.mse, theory, f.stderr_, allowance, f.skewness, f.trials, f.nonfinite, point_label(points[p])});
        plain.emplace_back(point_label(points[p]), v);
        row["mse_theory"] = theory;
        row["z"] = v.z;
        row["status"] = v.status;
        row["trials_needed"] = trials_json(v.trials_needed);
      } else {
        row["mse_theory"] = nullptr;
      }
      result.rows.push_back(row);
    }
    if (check) result.checks.push_back(check->result());
    return plain;
  }

  // Checks 2, 3, 5 and 6 of the iid sweep, and check 3 on the closed forms. `sampled`: check 4's m-feature figures.
  void add_comparisons(Result& result, const std::vector<Geometry>& points, const SweepResult& sweep,
                       const std::vector<EstimatorSpec>& specs, const std::vector<std::vector<MseFigure>>& figures,
                       std::map<Family, std::vector<MseFigure>>& sampled) const {
    const int m = grid_.m, d = grid_.d;
    JudgedPoints ratio_plain, ratio_sampled, hyp_plain, hyp_sampled;  // checks 2, 3 and 5's verdicts, for check 6
    const double alpha = grid_.alpha;
    const auto t = find_estimator_spec(specs, Family::trig, m), pos = find_estimator_spec(specs, Family::positive, m);
    const auto h = find_estimator_spec(specs, Family::hyperbolic, m);
    const auto pos2 = find_estimator_spec(specs, Family::positive, 2 * m);
    if (t && pos)
      result.checks.push_back(
          lemma2_ratio_check(points, sweep, *t, *pos, figures[*t], figures[*pos], false, m, alpha, ratio_plain));
    if (h && pos2)
      result.checks.push_back(
          lemma2_hyperbolic_check(points, sweep, *h, *pos2, figures[*h], figures[*pos2], false, m, alpha, hyp_plain));
    // Check 5: the same claims on the importance-sampled MSEs (positive at 2m is the m-feature run's MSE halved).
    if (t && sampled.count(Family::positive))
      result.checks.push_back(lemma2_ratio_check(points, sweep, *t, *t, figures[*t], sampled[Family::positive], true,
                                                 m, alpha, ratio_sampled));
    if (sampled.count(Family::hyperbolic) && sampled.count(Family::positive)) {
      std::vector<MseFigure> halved = sampled[Family::positive];
      for (MseFigure& f : halved) f.mse /= 2, f.stderr_ /= 2;
      result.checks.push_back(lemma2_hyperbolic_check(points, sweep, 0, 0, sampled[Family::hyperbolic], halved, true,
                                                      m, alpha, hyp_sampled));
    }
    // Check 6 for checks 2 and 3.
    if (const auto c = either_line(kLemma2RatioClaim, lemma2_ratio_where(m), ratio_plain, ratio_sampled))
      result.checks.push_back(*c);
    const std::string hyperbolic_where = lemma2_hyperbolic_where(m, points.size());
    if (const auto c = either_line(kLemma2HyperbolicClaim, hyperbolic_where, hyp_plain, hyp_sampled))
      result.checks.push_back(*c);
    // Check 3 on the closed forms: MSE_pos(2m) − MSE_hyp(m) = (1 − e^{−‖z‖²}) SM²/(2m), a margin that is a fraction
    // (1 − e^{−‖z‖²})/(e^{‖z‖²} − 1) of either MSE — below any Monte Carlo's resolution where ‖z‖ is large.
    if (h && pos) {
      ExactInequality exact(kLemma2HyperbolicClaim + ", exact values", hyperbolic_where + ", Lemma 2's closed forms");
      for (const Geometry& g : points)
        exact.judge(family_info(Family::hyperbolic).iid_mse(g, d, m, grid_.parameters),
                    family_info(Family::positive).iid_mse(g, d, 2 * m, grid_.parameters), std::exp(2 * g.dot()),
                    point_label(g), std::sqrt(g.z_sq()));
      result.checks.push_back(exact.result());
    }
  }

  // Lemma 2 at every point by importance sampling; annotates rows[first_row + p] (with the run's weighted mean).
  // Returns the importance-sampled MSE figures per point (a-priori skewness) for check 5.
  // `plain`: check 1's verdicts of e at m (empty where it has none), combined with the importance-sampled closed form
  // by check 6.
  std::vector<MseFigure> importance_checks(Result& result, Family e, int m, const std::vector<Geometry>& points,
                                           const RunContext& ctx, std::size_t stream_base, std::size_t first_row,
                                           const JudgedPoints& plain, const ProgressFn& progress) const {
    const int d = grid_.d;
    const std::string name(estimator_name(e));
    const FamilyInfo& family = family_info(e);
    // positive and hyperbolic: the proposal along x + y of mc/importance_mse.hpp (Lemma 1 and 2 of the paper);
    // gerf, oprf, sderf: mc/importance_gerf.hpp, which also scales ω across x + y (their features see ‖ω‖²).
    const bool lemma = is_importance_estimator(e);
    const std::string where = "iid projections, d=" + std::to_string(d) + ", m=" + std::to_string(m) + ", " +
                              std::to_string(points.size()) + " points, tilted Gaussian proposal along x+y" +
                              (lemma ? "" : ", scaled across it");
    const std::string closed_form = std::string(family.mse_source) + ": MSE(" + name + ") closed form";
    ClaimCheck mse_check(closed_form + ", importance-sampled", where, grid_.alpha, points.size());
    JudgedPoints sampled;
    std::vector<MseFigure> figures;
    for (std::size_t p = 0; p < points.size(); ++p) {
      const std::uint64_t stream = kMseImportanceStream + stream_base + p;
      ImportanceSampledMse is;
      double perp_sd = 1;  // the proposal's sd across x + y (gerf and oprf scale it; 1 elsewhere)
      if (lemma) {
        is = importance_sampled_mse(e, points[p], d, m, importance_trials_, ctx.seed, stream, ctx.threads,
                                    part_progress(progress, p, points.size()));
      } else {
        const GerfImportanceSampledMse g = importance_sampled_gerf_mse(e, points[p], d, m, importance_trials_,
                                                                       ctx.seed, stream, ctx.threads, grid_.parameters,
                                                                       part_progress(progress, p, points.size()));
        is = g;
        perp_sd = g.gerf_proposal.perp_sd;
      }
      const double truth = estimator_truth(e, points[p], d);
      const double theory = family.iid_mse(points[p], d, m, grid_.parameters);
      const std::string label = point_label(points[p]);
      const PointVerdict v = mse_check.judge({is.mse, theory, is.mse_stderr, std::pow(kRoundingAllowance * truth, 2),
                                              is.mse_skewness, is.trials, is.nonfinite, label});
      sampled.emplace_back(label, v);
      add_importance_fields(result.rows[first_row + p], is, v, perp_sd);
      figures.push_back({is.mse, is.mse_stderr, is.mse_skewness, is.trials, is.nonfinite});
    }
    result.checks.push_back(mse_check.result());
    const std::string plain_where = "iid projections, d=" + std::to_string(d) + ", m=" + std::to_string(m) + ", " +
                                    std::to_string(points.size()) + " points";
    if (const auto c = either_line(closed_form, plain_where, plain, sampled)) result.checks.push_back(*c);
    return figures;
  }

  // Check 6: `claim` judged both ways, combined point by point.
  std::optional<Check> either_line(const std::string& claim, const std::string& where, const JudgedPoints& plain,
                                   const JudgedPoints& sampled) const {
    return plain_or_sampled_line(claim, where, plain, sampled, importance_trials_);
  }

  std::int64_t importance_trials_ = 100000;
};

}  // namespace

std::unique_ptr<Experiment> make_mse_experiment() { return std::make_unique<MseExperiment>(); }

}  // namespace favorlab
