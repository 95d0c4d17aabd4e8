// `favorlab estimators` — which random-feature estimator of SM(x, y) = exp(xᵀy) is best, and does its theory hold.
// At every point of a grid of ‖x‖, ‖y‖, cos and d (m = d), every family × coupling (positive, hyperbolic, trig, oprf,
// sderf; iid, orthogonal, simplex) gets its exact MSE where a closed form exists and its Monte Carlo MSE; the closed
// forms are checked against Monte Carlo, plainly and by importance sampling, and compared with each other on their
// exact values (OPRF <= positive, simplex <= orthogonal, SDERF <= OPRF): evaluation/estimators_run.hpp.
// `--importance-trials 0` skips the importance-sampled line; --until-conclusive takes looks at the points still open.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "evaluation/estimator_rows.hpp"
#include "evaluation/estimators_run.hpp"
#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"

namespace favorlab {

namespace {

class EstimatorsExperiment final : public EstimatorGridExperiment {
 public:
  EstimatorsExperiment()
      : EstimatorGridExperiment({"positive", "hyperbolic", "trig", "oprf", "sderf"}, {"iid", "orthogonal", "simplex"}) {
    grid_.dims = {4, 16};
    grid_.x_norms = {0.25, 0.5, 1.0};
    grid_.y_norms = {0.25, 0.5, 1.0};
    grid_.cosines = {-0.9, -0.5, 0, 0.5, 0.9};
  }
  std::string name() const override { return "estimators"; }
  std::string summary() const override {
    return "Exact and Monte Carlo MSE of every estimator family x coupling (OPRF, SDERF, simplex, ...)";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 160000 : 1600000; }
  bool takes_looks() const override { return true; }

  void add_options(CLI::App& app) override {
    EstimatorGridExperiment::add_options(app);
    app.add_option("--importance-trials", importance_trials_,
                   "Trials per point of the importance-sampled checks of positive and hyperbolic features (0: skip "
                   "them; default 4000 with --quick, else 200000)");
  }

  Result run(const RunContext& ctx) override {
    auto estimators = grid_.parsed_estimators();
    auto couplings = grid_.parsed_couplings();
    if (grid_.dims.empty()) throw std::invalid_argument("--d needs at least one dimension");
    if (importance_trials_ != kDefaultImportanceTrials && (importance_trials_ < 0 || importance_trials_ == 1))
      throw std::invalid_argument("--importance-trials must be 0 (skip) or at least 2, got " +
                                  std::to_string(importance_trials_));
    const std::int64_t importance_trials =
        importance_trials_ != kDefaultImportanceTrials ? importance_trials_ : ctx.quick ? 4000 : 200000;
    // Progress: the pilots, then the importance-sampled runs; each look then reports its own draws.
    Result result;
    result.experiment = name();
    result.params = grid_.params();
    result.params["importance_trials"] = importance_trials;
    result.params["row_schema"] = row_schema();
    EstimatorsGrid grid{grid_.dims, {}, std::move(estimators), std::move(couplings), grid_.parameters, grid_.alpha,
                        importance_trials};
    for (int d : grid_.dims) {
      EstimatorGridOptions at_d = grid_;
      at_d.d = at_d.m = d;
      grid.points.push_back(at_d.points());
    }
    const EstimatorsOutcome outcome = run_estimators(grid, ctx, result);
    report_looks(ctx.looks, outcome.looks, result);
    result.measurements["estimator_evaluations"] = outcome.evaluations;
    return result;
  }

 private:
  // Rows pair by estimator × coupling × d × m × geometry; the Monte Carlo MSE is the statistic, closed forms exact.
  static Json row_schema() {
    Json schema = estimator_row_schema(true);
    // The MSE and, on positive and hyperbolic rows, the importance-sampled MSE: these rows report no mean. The
    // latter's gate figure is partly sampled (the larger of the sampled skewness and the one-row exact one): the
    // baseline's decides, another seed's is not compared.
    Json weighted = schema["statistics"][3];
    weighted["skewness_sampled"] = true;
    schema["statistics"] = Json::array({schema["statistics"][1], weighted});
    schema["exact"] = Json::array({"truth", "z_norm", "mse_exact", "reference_mse"});
    return schema;
  }

  static constexpr std::int64_t kDefaultImportanceTrials = std::numeric_limits<std::int64_t>::min();  // by run size
  std::int64_t importance_trials_ = kDefaultImportanceTrials;
};

}  // namespace

std::unique_ptr<Experiment> make_estimators_experiment() { return std::make_unique<EstimatorsExperiment>(); }

}  // namespace favorlab
