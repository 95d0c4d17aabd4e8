// `favorlab unbiased` — Lemma 1: the trig, positive and hyperbolic estimators are unbiased for SM, and the
// regularized (smreg) estimator for SMREG, with iid and with orthogonal projections.
// Per point: mean of the estimates against the exact value, its standard error and z. One check per
// estimator × coupling, two-sided z tests with Bonferroni over the grid; points whose error distribution is too skewed
// for a z test at this trial count (computed a priori from the exact feature moments) are inconclusive.
#include <cmath>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "features/family_theory.hpp"
#include "mc/estimator_sweep.hpp"

namespace favorlab {

namespace {

class UnbiasedExperiment final : public EstimatorGridExperiment {
 public:
  UnbiasedExperiment() : EstimatorGridExperiment({"trig", "positive", "hyperbolic", "smreg"}, {"iid", "orthogonal"}) {}
  std::string name() const override { return "unbiased"; }
  std::string summary() const override {
    return "Lemma 1: trig/positive/hyperbolic estimators unbiased for SM, smreg for SMREG (iid and orthogonal)";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 20000 : 200000; }

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

    std::int64_t evaluations = 0;
    double seconds = 0;
    for (std::size_t ci = 0; ci < couplings.size(); ++ci) {
      const Coupling coupling = couplings[ci];
      SweepConfig config{grid_.d, coupling, specs, points, ctx.seed, static_cast<std::uint64_t>(coupling),
                         ctx.trials, ctx.threads, grid_.parameters};
      const SweepResult sweep = run_estimator_sweep(config, part_progress(ctx.progress, ci, couplings.size()));
      evaluations += sweep.evaluations;
      seconds += sweep.seconds;

      for (std::size_t s = 0; s < specs.size(); ++s) {
        const Family e = specs[s].estimator;
        const std::string target = family_info(e).target == KernelTarget::regularized_softmax ? "SMREG" : "SM";
        ClaimCheck check("Lemma 1: E[" + std::string(estimator_name(e)) + " estimate] = " + target,
                         std::string(coupling_name(coupling)) + " projections, d=" + std::to_string(grid_.d) +
                             ", m=" + std::to_string(grid_.m) + ", " + std::to_string(points.size()) + " points",
                         grid_.alpha, points.size());
        for (std::size_t p = 0; p < points.size(); ++p) {
          const SweepCell& cell = sweep.cell(s, p);
          const double truth = sweep.truth[s * points.size() + p];
          PointEvidence ev{truth + cell.error.mean(), truth, cell.error.standard_error(), kRoundingAllowance * truth,
                           skew[s * points.size() + p], cell.error.count(), cell.nonfinite, point_label(points[p])};
          const PointVerdict v = check.judge(ev);
          Json row = estimator_row(e, coupling, grid_.d, grid_.m, points[p]);
          row["truth"] = truth;
          row["mean"] = ev.empirical;
          row["stderr"] = ev.standard_error;
          row["mean_skewness"] = number_or_null(ev.skewness);  // for compare
          // The closed-form variance of one error draw, exact for iid projections only: compare's Chebyshev bound.
          row["mean_draw_variance"] =
              coupling == Coupling::iid ? number_or_null(variance[s * points.size() + p]) : Json(nullptr);
          row["z"] = v.z;
          row["trials"] = cell.error.count();
          row["nonfinite"] = cell.nonfinite;
          row["status"] = v.status;
          row["trials_needed"] = trials_json(v.trials_needed);
          result.rows.push_back(row);
        }
        result.checks.push_back(check.result());
      }
    }
    result.measurements["estimator_evaluations"] = evaluations;
    result.measurements["evaluations_per_second"] = seconds > 0 ? static_cast<double>(evaluations) / seconds : 0.0;
    return result;
  }

};

}  // namespace

std::unique_ptr<Experiment> make_unbiased_experiment() { return std::make_unique<UnbiasedExperiment>(); }

}  // namespace favorlab
