// `favorlab unbiased` — Lemma 1: the trig, positive and hyperbolic estimators are unbiased for SM, and the
// regularized (smreg) estimator for SMREG, with iid and with orthogonal projections.
// Per point: mean of the estimates against the exact value, its standard error and z. One check per
// estimator × coupling, two-sided z tests with Bonferroni over the grid; points whose error distribution is too skewed
// for a z test at this trial count (computed a priori from the exact feature moments) are inconclusive. Positive and
// hyperbolic features are tested again by importance sampling under the proposal that makes every weighted estimate
// SM, with iid and orthogonal rows alike (mc/importance_coupled.hpp): "..., importance-sampled", with no Monte Carlo
// variance to overcome at the points whose plain errors are far too skewed.
#include <cmath>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "features/family_theory.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/sweep_set.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled runs, disjoint from the sweeps' (the coupling codes): base + check·2³² + point.
constexpr std::uint64_t kImportanceStream = 0x1900'0000ULL;

class UnbiasedExperiment final : public EstimatorGridExperiment {
 public:
  UnbiasedExperiment() : EstimatorGridExperiment({"trig", "positive", "hyperbolic", "smreg"}, {"iid", "orthogonal"}) {}
  std::string name() const override { return "unbiased"; }
  std::string summary() const override {
    return "Lemma 1: trig/positive/hyperbolic estimators unbiased for SM, smreg for SMREG (iid and orthogonal)";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 20000 : 200000; }
  bool takes_looks() const override { return true; }

  Result run(const RunContext& ctx) override {
    const auto points = grid_.points();
    const auto estimators = grid_.parsed_estimators();
    const auto couplings = grid_.parsed_couplings();
    Result result;
    result.experiment = name();
    result.params = grid_.params();
    result.params["row_schema"] = estimator_row_schema(false);

    std::vector<EstimatorSpec> specs;
    for (Family e : estimators) specs.push_back({e, grid_.m});
    // Skewness of one error draw: exact for iid features; for orthogonal rows (same marginals, coupled) the iid value
    // stands in, since the coupling changes the dependence, not the tail of each feature.
    estimator_truths(specs, points, grid_.d);  // refuses overflowing kernel values before the slower theory below
    std::vector<double> skew(specs.size() * points.size()), variance(specs.size() * points.size());
    for (std::size_t s = 0; s < specs.size(); ++s)
      for (std::size_t p = 0; p < points.size(); ++p) {
        const ErrorMoments em = error_moments(specs[s].estimator, points[p], grid_.d, grid_.m);
        skew[s * points.size() + p] = em.error_skewness;
        variance[s * points.size() + p] = em.variance;
      }

    // Every coupling's pilot, then looks over all their cells at once (cell = coupling · per_coupling + spec ·
    // points + point), so that a budget stops every coupling at the same look.
    std::vector<SweepConfig> configs;
    for (Coupling coupling : couplings)
      configs.push_back({grid_.d, coupling, specs, points, ctx.seed, static_cast<std::uint64_t>(coupling), ctx.trials,
                         ctx.threads, grid_.parameters});
    SweepSet sweeps(configs, ctx.progress);
    const std::size_t per_coupling = sweeps.cells_per_sweep();
    const auto claim = [&](std::size_t ci, std::size_t s) {
      const Family e = specs[s].estimator;
      const std::string target = family_info(e).target == KernelTarget::regularized_softmax ? "SMREG" : "SM";
      return ClaimCheck("Lemma 1: E[" + std::string(estimator_name(e)) + " estimate] = " + target,
                        std::string(coupling_name(couplings[ci])) + " projections, d=" + std::to_string(grid_.d) +
                            ", m=" + std::to_string(grid_.m) + ", " + std::to_string(points.size()) + " points",
                        grid_.alpha, points.size());
    };
    const auto evidence = [&](std::size_t cell, int look) {
      const std::size_t local = cell % per_coupling;
      const SweepCell& c = sweeps.cell(cell);
      const double truth = sweeps.truth(cell);
      PointEvidence ev{truth + c.error.mean(), truth,       c.error.standard_error(), kRoundingAllowance * truth,
                       skew[local],         c.error.count(), c.nonfinite, point_label(points[local % points.size()])};
      ev.look = ctx.looks.sequential() ? look : -1;  // a fixed-size run is judged at the whole α
      return ev;
    };
    std::vector<ClaimCheck> scratch;  // judges of the looks; the checks below judge each point at its last look
    for (std::size_t ci = 0; ci < couplings.size(); ++ci)
      for (std::size_t s = 0; s < specs.size(); ++s) scratch.push_back(claim(ci, s));
    const LookRecord looks = sweeps.take_looks(
        ctx.looks, [&](std::size_t cell, int look) { return scratch[cell / points.size()].judge(evidence(cell, look)); },
        ctx.progress);

    for (std::size_t ci = 0; ci < couplings.size(); ++ci) {
      for (std::size_t s = 0; s < specs.size(); ++s) {
        const Family e = specs[s].estimator;
        ClaimCheck check = claim(ci, s);
        for (std::size_t p = 0; p < points.size(); ++p) {
          const std::size_t local = s * points.size() + p, cell = ci * per_coupling + local;
          const PointEvidence ev = evidence(cell, looks.cell_look[cell]);
          const PointVerdict v = check.judge(ev);
          Json row = estimator_row(e, couplings[ci], grid_.d, grid_.m, points[p]);
          row["truth"] = ev.theory;
          row["mean"] = ev.empirical;
          row["stderr"] = ev.standard_error;
          row["mean_skewness"] = number_or_null(ev.skewness);  // for compare
          // The closed-form variance of one error draw, exact for iid projections (coupled rows: add_compare_fields):
          // what compare scales its tests to.
          row["mean_draw_variance"] = couplings[ci] == Coupling::iid ? number_or_null(variance[local]) : Json(nullptr);
          add_compare_fields(row, grid_.parameters);  // coupled rows: exact variance or bound; bounded estimators: ranges
          row["z"] = v.z;
          row["trials"] = ev.trials;
          row["nonfinite"] = ev.nonfinite;
          if (ctx.looks.sequential()) row["look"] = looks.cell_look[cell];
          row["status"] = v.status;
          row["trials_needed"] = trials_json(v.trials_needed);
          result.rows.push_back(row);
        }
        result.checks.push_back(check.result());
        if (is_importance_estimator(e) && is_importance_coupling(couplings[ci]))
          importance_check(result, e, couplings[ci], ci * specs.size() + s, points, ctx);
      }
    }
    report_looks(ctx.looks, looks, result);
    result.measurements["estimator_evaluations"] = sweeps.evaluations();
    result.measurements["evaluations_per_second"] =
        sweeps.seconds() > 0 ? static_cast<double>(sweeps.evaluations()) / sweeps.seconds() : 0.0;
    return result;
  }

 private:
  // Lemma 1 for (e, c) under mean_tuned_proposal, a mixture over the rows (mc/importance_coupled.hpp): every weighted
  // estimate is SM, so each point's standard error is rounding and the a-priori skewness 0
  // (docs/theory.md#importance-sampling-for-coupled-rows). Annotates the check's rows, the last points.size().
  void importance_check(Result& result, Family e, Coupling c, std::size_t index, const std::vector<Geometry>& points,
                        const RunContext& ctx) const {
    ClaimCheck check("Lemma 1: E[" + std::string(estimator_name(e)) + " estimate] = SM, importance-sampled",
                     std::string(coupling_name(c)) + " projections, d=" + std::to_string(grid_.d) + ", m=" +
                         std::to_string(grid_.m) + ", " + std::to_string(points.size()) + " points, " +
                         std::to_string(kZeroVarianceTrials) +
                         " draws each, the proposal under which each weighted estimate is SM (zero variance)",
                     grid_.alpha, points.size());
    const std::size_t first_row = result.rows.size() - points.size();
    for (std::size_t p = 0; p < points.size(); ++p) {
      const CoupledImportanceSampledMse r = importance_sampled_coupled_mse(
          e, c, points[p], grid_.d, grid_.m, kZeroVarianceTrials, ctx.seed, kImportanceStream + (index << 32) + p,
          ctx.threads, mean_tuned_row_proposal(e, points[p]));
      Json& row = result.rows[first_row + p];
      const double truth = row["truth"].get<double>();
      const PointVerdict v = check.judge({r.estimate_mean, truth, r.estimate_stderr, kRoundingAllowance * truth, 0.0,
                                          r.trials, r.nonfinite, point_label(points[p])});
      row["is_mean"] = r.estimate_mean;
      row["is_stderr"] = r.estimate_stderr;
      row["is_trials"] = r.trials;
      row["is_mean_status"] = v.status;
    }
    result.checks.push_back(check.result());
  }
};

}  // namespace

std::unique_ptr<Experiment> make_unbiased_experiment() { return std::make_unique<UnbiasedExperiment>(); }

}  // namespace favorlab
