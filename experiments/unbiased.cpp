// `favorlab unbiased` — Lemma 1: the trig, positive and hyperbolic estimators are unbiased for SM, and the
// regularized (smreg) estimator for SMREG (Theorem 1's setup, the claim `smreg` also judges), with iid and with
// orthogonal projections.
// Per point: mean of the estimates against the exact value, its standard error and z. One check per
// estimator × coupling, two-sided z tests with Bonferroni over the grid; points whose error distribution is too skewed
// for a z test at this trial count (computed a priori from the exact feature moments) are inconclusive.
// Positive, hyperbolic and smreg points the plain pilot left open are judged again by importance sampling under a
// defensive proposal, half plain and half with one row tilted, whose untilted rows come from the experiment's own
// sampler (mc/importance_coupled.hpp: importance_sampled_mean): "..., importance-sampled", combined point by point with
// the plain line in "..., plain or importance-sampled". With --until-conclusive the plain line then takes looks at the
// points neither method settled. Last, the zero-variance proposal's identity: every weighted estimate equals SM
// whatever rows were drawn, a check of the map's algebra (its own claim, kind identity), not of any law.
#include <cmath>
#include <optional>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "features/family_theory.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/sweep_set.hpp"
#include "stats/either_check.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled runs, disjoint from the sweeps' (the coupling codes): base + check·2³² + point.
constexpr std::uint64_t kUnbiasedImportanceStream = 0x1900'0000ULL;
constexpr std::uint64_t kIdentityStream = 0x1C00'0000ULL;
constexpr std::int64_t kDefaultImportanceTrials = -1;  // --importance-trials not given: by run size

// The estimators and couplings the importance-sampled line covers: chi-norm rows of iid, orthogonal or simplex blocks
// (positive, hyperbolic), or iid and orthogonal rows of norm √d (smreg); Hadamard and Givens blocks are only
// approximately Haar, so conditioning on a row (a reflection) would not give their law.
bool sampled_again(Family e, Coupling c) {
  if (e == Family::smreg) return c == Coupling::iid || c == Coupling::orthogonal;
  return is_importance_estimator(e) && is_importance_coupling(c);
}

// The claim an estimator's mean is judged under: Lemma 1's for estimators of SM; for the regularized estimator the
// unbiasedness that Theorem 1 sets up, one claim with `smreg`'s line of the same words.
std::string unbiasedness_claim(Family e) {
  if (family_info(e).target == KernelTarget::regularized_softmax)
    return "Theorem 1 (setup): E[" + std::string(estimator_name(e)) + " estimate] = SMREG";
  return "Lemma 1: E[" + std::string(estimator_name(e)) + " estimate] = SM";
}

class UnbiasedExperiment final : public EstimatorGridExperiment {
 public:
  UnbiasedExperiment() : EstimatorGridExperiment({"trig", "positive", "hyperbolic", "smreg"}, {"iid", "orthogonal"}) {}
  std::string name() const override { return "unbiased"; }
  std::string summary() const override {
    return "Lemma 1: trig/positive/hyperbolic estimators unbiased for SM, smreg for SMREG (iid and orthogonal)";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 20000 : 200000; }
  bool takes_looks() const override { return true; }

  void add_options(CLI::App& app) override {
    EstimatorGridExperiment::add_options(app);
    app.add_option("--importance-trials", importance_trials_,
                   "Trials per point of the importance-sampled Lemma 1 line at the points the plain pilot left open "
                   "(0: none; default: as many as --trials)");
  }

  Result run(const RunContext& ctx) override {
    const std::int64_t is_trials = importance_trials(ctx.trials);
    const auto points = grid_.points();
    const auto estimators = grid_.parsed_estimators();
    const auto couplings = grid_.parsed_couplings();
    Result result;
    result.experiment = name();
    result.params = grid_.params();
    result.params["importance_trials"] = is_trials;
    result.params["row_schema"] = estimator_row_schema(false);

    std::vector<EstimatorSpec> specs;
    for (Family e : estimators) specs.push_back({e, grid_.m});
    // Skewness of one error draw: exact for iid features; for orthogonal rows (same marginals, coupled) the iid value
    // stands in, since the coupling changes the dependence, not the tail of each feature.
    estimator_truths(specs, points, grid_.d);  // refuses overflowing kernel values before the slower theory below
    std::vector<ErrorMoments> theory;  // per spec · points + point
    for (const EstimatorSpec& spec : specs)
      for (const Geometry& x : points) theory.push_back(error_moments(spec.estimator, x, grid_.d, grid_.m));

    // Every coupling's pilot, then the importance-sampled runs, then looks over all cells at once (cell = coupling ·
    // per_coupling + spec · points + point), so that a budget stops every coupling at the same look.
    std::vector<SweepConfig> configs;
    for (Coupling coupling : couplings)
      configs.push_back({grid_.d, coupling, specs, points, ctx.seed, static_cast<std::uint64_t>(coupling), ctx.trials,
                         ctx.threads, grid_.parameters});
    SweepSet sweeps(configs, part_progress(ctx.progress, 0, 3));
    const std::size_t per_coupling = sweeps.cells_per_sweep(), np = points.size();
    const auto where = [&](std::size_t ci) { return where_of(couplings[ci], np); };
    const auto claim_of = [&](std::size_t s) { return unbiasedness_claim(specs[s].estimator); };
    const auto evidence = [&](std::size_t cell, int look) {
      const std::size_t local = cell % per_coupling;
      const SweepCell& c = sweeps.cell(cell);
      const double truth = sweeps.truth(cell);
      PointEvidence ev{truth + c.error.mean(), truth,       c.error.standard_error(), kRoundingAllowance * truth,
                       theory[local].error_skewness, c.error.count(), c.nonfinite, point_label(points[local % np])};
      ev.look = ctx.looks.sequential() ? look : -1;  // a fixed-size run is judged at the whole α
      return ev;
    };
    std::vector<ClaimCheck> scratch;  // judges of the pilot and the looks; the checks below judge each point once
    for (std::size_t ci = 0; ci < couplings.size(); ++ci)
      for (std::size_t s = 0; s < specs.size(); ++s) scratch.push_back(ClaimCheck(claim_of(s), where(ci), grid_.alpha, np));

    const Sampled sampled = importance_lines(sweeps, scratch, evidence, specs, couplings, points, is_trials, ctx,
                                             part_progress(ctx.progress, 1, 3));
    const LookRecord looks = sweeps.take_looks(
        ctx.looks,
        [&](std::size_t cell, int look) {
          if (sampled.settled(cell)) return sampled.verdicts[cell];  // no plain looks where the other line decided
          return scratch[cell / np].judge(evidence(cell, look));
        },
        part_progress(ctx.progress, 2, 3));
    for (std::size_t ci = 0; ci < couplings.size(); ++ci) {
      for (std::size_t s = 0; s < specs.size(); ++s) {
        const Family e = specs[s].estimator;
        ClaimCheck check(claim_of(s), where(ci), grid_.alpha, np);
        std::optional<EitherCheck> either;
        if (sampled.checks[ci * specs.size() + s])
          either.emplace(plain_or_importance_sampled(claim_of(s), where(ci), is_trials));
        for (std::size_t p = 0; p < np; ++p) {
          const std::size_t local = s * np + p, cell = ci * per_coupling + local;
          const PointEvidence ev = evidence(cell, looks.cell_look[cell]);
          const PointVerdict v = check.judge(ev);
          if (either) either->add(v, sampled.verdicts[cell], ev.label);
          result.rows.push_back(point_row(ev, v, e, couplings[ci], points[p], theory[local].variance, sampled, cell,
                                          ctx.looks.sequential() ? looks.cell_look[cell] : -1));
        }
        result.checks.push_back(check.result());
        if (sampled.checks[ci * specs.size() + s]) {
          result.checks.push_back(*sampled.checks[ci * specs.size() + s]);
          result.checks.push_back(either->result());
        }
      }
    }
    for (std::size_t s = 0; s < specs.size(); ++s)
      if (is_importance_estimator(specs[s].estimator)) identity_check(result, specs[s].estimator, points, ctx);
    report_looks(ctx.looks, looks, result);
    add_measurements(result, sweeps);
    return result;
  }

 private:
  // --importance-trials as given (0 or at least 2), else as many as the plain trials allow.
  std::int64_t importance_trials(std::int64_t trials) const {
    if (importance_trials_ == kDefaultImportanceTrials) return default_importance_mean_trials(trials);
    if (importance_trials_ < 0 || importance_trials_ == 1)
      throw std::invalid_argument("--importance-trials must be 0 (skip) or at least 2, got " +
                                  std::to_string(importance_trials_));
    return importance_trials_;
  }

  static void add_measurements(Result& result, const SweepSet& sweeps) {
    result.measurements["estimator_evaluations"] = sweeps.evaluations();
    result.measurements["evaluations_per_second"] =
        sweeps.seconds() > 0 ? static_cast<double>(sweeps.evaluations()) / sweeps.seconds() : 0.0;
  }

  std::string where_of(Coupling coupling, std::size_t points) const {
    return std::string(coupling_name(coupling)) + " projections, d=" + std::to_string(grid_.d) +
           ", m=" + std::to_string(grid_.m) + ", " + std::to_string(points) + " points";
  }

  // The importance-sampled line per (coupling, estimator): a run at each cell the plain pilot left open, its
  // verdict, and the check (none for trig, or where no cell was open or --importance-trials is 0).
  struct Sampled {
    std::vector<std::optional<CoupledImportanceSampledMse>> runs;  // per cell
    std::vector<PointVerdict> verdicts;                            // per cell; inconclusive where none ran
    std::vector<std::optional<Check>> checks;                      // per (coupling, estimator)
    bool settled(std::size_t cell) const { return runs[cell] && verdicts[cell].status != Verdict::inconclusive; }
  };

  // One point's row: its plain evidence and verdict, and the importance-sampled run where one ran (look: -1 for a
  // fixed-size run). variance: the closed-form variance of one error draw.
  Json point_row(const PointEvidence& ev, const PointVerdict& v, Family e, Coupling coupling, const Geometry& x,
                 double variance, const Sampled& sampled, std::size_t cell, int look) const {
    Json row = estimator_row(e, coupling, grid_.d, grid_.m, x);
    row["truth"] = ev.theory;
    row["mean"] = ev.empirical;
    row["stderr"] = ev.standard_error;
    row["mean_skewness"] = number_or_null(ev.skewness);  // for compare
    // The closed-form variance of one error draw, exact for iid projections (coupled rows: add_compare_fields):
    // what compare scales its tests to.
    row["mean_draw_variance"] = coupling == Coupling::iid ? number_or_null(variance) : Json(nullptr);
    add_compare_fields(row, grid_.parameters);  // coupled rows: exact variance or bound; bounded estimators: ranges
    row["z"] = v.z;
    row["trials"] = ev.trials;
    row["nonfinite"] = ev.nonfinite;
    if (look >= 0) row["look"] = look;
    row["status"] = v.status;
    row["trials_needed"] = trials_json(v.trials_needed);
    if (const auto& r = sampled.runs[cell]) {
      row["is_mean"] = r->estimate_mean;
      row["is_stderr"] = r->estimate_stderr;
      row["is_trials"] = r->trials;
      row["is_mean_skewness"] = r->estimate_gate_skewness();
      row["is_mean_status"] = sampled.verdicts[cell].status;
    }
    return row;
  }

  template <class Evidence>
  Sampled importance_lines(const SweepSet& sweeps, std::vector<ClaimCheck>& pilot, const Evidence& evidence,
                           const std::vector<EstimatorSpec>& specs, const std::vector<Coupling>& couplings,
                           const std::vector<Geometry>& points, std::int64_t trials, const RunContext& ctx,
                           const ProgressFn& progress) const {
    const std::size_t np = points.size(), per = sweeps.cells_per_sweep();
    Sampled out{std::vector<std::optional<CoupledImportanceSampledMse>>(sweeps.cells()),
                std::vector<PointVerdict>(sweeps.cells()), std::vector<std::optional<Check>>(pilot.size())};
    // The cells the pilot left open per (coupling, estimator), judged by scratch checks of the pilot (their verdicts
    // are not kept).
    std::vector<std::vector<std::size_t>> open(pilot.size());
    std::size_t runs = 0, done = 0;
    for (std::size_t ci = 0; ci < couplings.size(); ++ci)
      for (std::size_t s = 0; s < specs.size(); ++s) {
        const Family e = specs[s].estimator;
        if (!sampled_again(e, couplings[ci]) || trials == 0 || (e == Family::smreg && grid_.d < 2)) continue;
        for (std::size_t p = 0; p < np; ++p) {
          const std::size_t cell = ci * per + s * np + p;
          if (pilot[ci * specs.size() + s].judge(evidence(cell, 0)).status == Verdict::inconclusive)
            open[ci * specs.size() + s].push_back(cell), ++runs;
        }
      }
    for (std::size_t ci = 0; ci < couplings.size(); ++ci)
      for (std::size_t s = 0; s < specs.size(); ++s) {
        const Family e = specs[s].estimator;
        const std::vector<std::size_t>& cells = open[ci * specs.size() + s];
        if (cells.empty()) continue;
        ClaimCheck check(unbiasedness_claim(e) + ", importance-sampled",
                         std::string(coupling_name(couplings[ci])) + " projections, d=" + std::to_string(grid_.d) +
                             ", m=" + std::to_string(grid_.m) + ", the " + std::to_string(cells.size()) + " of " +
                             std::to_string(np) + " points the plain pilot left open, " + std::to_string(trials) +
                             " draws each, half plain, half with one row tilted by the zero-variance proposal; "
                             "untilted rows from the experiment's sampler",
                         grid_.alpha, cells.size());
        for (std::size_t cell : cells) {
          const std::size_t p = cell % np;
          const auto& r = out.runs[cell].emplace(importance_sampled_mean(
              e, couplings[ci], points[p], grid_.d, grid_.m, trials, ctx.seed,
              kUnbiasedImportanceStream + ((ci * specs.size() + s) << 32) + p, ctx.threads,
              part_progress(progress, done++, runs)));
          const double truth = sweeps.truth(cell);
          out.verdicts[cell] = check.judge({r.estimate_mean, truth, r.estimate_stderr, kRoundingAllowance * truth,
                                            r.estimate_gate_skewness(), r.trials, r.nonfinite, point_label(points[p])});
        }
        out.checks[ci * specs.size() + s] = check.result();
      }
    return out;
  }

  // The zero-variance proposal's identity for estimator e (iid rows; the coupling cannot matter): every draw's
  // weighted estimate must equal SM to rounding, so this checks the feature map and the weight against each other
  // (docs/theory.md#lemma-1-by-the-zero-variance-proposal). Its own claim, of kind identity.
  void identity_check(Result& result, Family e, const std::vector<Geometry>& points, const RunContext& ctx) const {
    ClaimCheck check("Identity: under the zero-variance proposal every weighted " + std::string(estimator_name(e)) +
                         " estimate equals SM, whatever rows were drawn",
                     "iid rows, d=" + std::to_string(grid_.d) + ", m=" + std::to_string(grid_.m) + ", " +
                         std::to_string(points.size()) + " points, " + std::to_string(kZeroVarianceTrials) +
                         " draws each; a check of the feature map's algebra, not of any law of the rows",
                     grid_.alpha, points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
      const CoupledImportanceSampledMse r = importance_sampled_coupled_mse(
          e, Coupling::iid, points[p], grid_.d, grid_.m, kZeroVarianceTrials, ctx.seed,
          kIdentityStream + (static_cast<std::uint64_t>(e) << 32) + p, ctx.threads, mean_tuned_row_proposal(e, points[p]));
      const double truth = estimator_truth(e, points[p], grid_.d);
      check.judge({r.estimate_mean, truth, r.estimate_stderr, kRoundingAllowance * truth, 0.0, r.trials, r.nonfinite,
                   point_label(points[p])});
    }
    result.checks.push_back(check.result());
  }

  std::int64_t importance_trials_ = kDefaultImportanceTrials;
};

}  // namespace

std::unique_ptr<Experiment> make_unbiased_experiment() { return std::make_unique<UnbiasedExperiment>(); }

}  // namespace favorlab
