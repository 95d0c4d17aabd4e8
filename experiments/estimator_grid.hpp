#pragma once
// Options shared by the estimator experiments (unbiased, mse): dimension, features, the geometry grid
// (the cross product of --x-norm × --y-norm × --cos), estimators, couplings and the family-wise α of each check.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "experiments/experiment.hpp"
#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/importance_coupled.hpp"
#include "results/result.hpp"
#include "stats/claim_check.hpp"
#include "stats/exact_inequality.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

struct EstimatorGridOptions {
  int d = 16;
  int m = 16;
  std::vector<int> dims;  // non-empty: a list of dimensions, m = d at each (--d takes the list; no --m)
  std::vector<double> x_norms{0.1, 0.5, 1.0, 1.5};
  std::vector<double> y_norms{0.1, 0.5, 1.0, 1.5};
  std::vector<double> cosines{-1, -0.99, -0.9, -0.7, -0.5, -0.25, 0, 0.25, 0.5, 0.7, 0.9, 0.99, 1};
  std::vector<std::string> estimators;
  std::vector<std::string> couplings;
  double alpha = 1e-3;
  FeatureParameters parameters;  // gerf's A (recorded in params only when gerf runs)

  void add_to(CLI::App& app);
  std::vector<Geometry> points() const;           // validated; throws std::invalid_argument
  std::vector<Family> parsed_estimators() const;
  std::vector<Coupling> parsed_couplings() const;
  Json params() const;
};

// The sizes that set the memory of one run_estimator_sweep (mc/estimator_sweep.hpp).
struct SweepSize {
  double d = 0;
  double max_m = 0;        // rows of the trial's projection: the largest m of the specs
  double max_columns = 0;  // feature columns of the widest spec (2m for trig and hyperbolic)
  double specs = 0, points = 0;
  double pairs = 0;        // squared-error pairs tracked
  Coupling coupling = Coupling::iid;
};

// The peak bytes of run_estimator_sweep (mc/estimator_sweep.cpp): per concurrent trial block the projection of
// max_m rows (with the d×d blocks of its coupling), one spec's copy of its rows and the features of X and Y at every
// point; the wave of block accumulators (48 B a cell, 32 B a pair). Rows are the caller's.
double estimator_sweep_bytes(const SweepSize& size, std::int64_t trials, int threads);

// Base of the estimator experiments: owns the grid options and registers them.
class EstimatorGridExperiment : public Experiment {
 public:
  void add_options(CLI::App& app) override { grid_.add_to(app); }
  Distribution distribution() const override { return Distribution::trial_blocks; }
  // One sweep per coupling (and per dimension of a --d list), one after another; their rows add up.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override;

 protected:
  EstimatorGridExperiment(std::vector<std::string> estimators, std::vector<std::string> couplings) {
    grid_.estimators = std::move(estimators);
    grid_.couplings = std::move(couplings);
  }
  // Whether the sweep adds positive features at 2m to the estimators at m (mse: hyperbolic with m against positive
  // with 2m).
  virtual bool adds_positive_at_double_m(const std::vector<Family>& estimators) const {
    (void)estimators;
    return false;
  }
  EstimatorGridOptions grid_;
};

// Row fields every estimator row shares: estimator, coupling, d, m, x_norm, y_norm, cos_angle.
Json estimator_row(Family e, Coupling c, int d, int m, const Geometry& g);

// For compare (results/result_compare.hpp), what bounds the spread of one draw of a row's error e and squared error
// e² where its coupling has no closed-form variance, read from the row's own fields (estimator_row's and truth):
//   mean_draw_variance        a coupled row's exact MSE (features/family_theory.hpp exact_mse), where one exists and
//                             the row has none: the variance of one draw of an unbiased estimate;
//   mean_draw_variance_bound, mse_draw_variance_bound   the estimate is the mean of m per-row terms g_i, so
//                             Var(e) ≤ max Var(g_i) (Cauchy–Schwarz) and Var(e²) ≤ E[e⁴] ≤ max E[g_i⁴] (Jensen):
//                             orthogonal and simplex rows, each of the iid law, from the error moments of one feature;
//                             hadamard and givens rows of positive features (chi_d norms, directions of another law),
//                             from Λ e^{ωᵀz} ≤ Λ e^{r‖z‖} and the chi MGF (kernels/chi_moments.hpp);
//   mean_range, mse_range     where every estimate lies in a known interval [lo, hi]: trig features (|cos| ≤ 1, any
//                             rows) and positive features on rows of norm √d (smreg, any rows): hi − lo, and
//                             max(hi − truth, truth − lo)².
// And on hadamard and givens rows it nulls mean_skewness and mse_skewness: the iid value is no stand-in for rows of
// another law, so compare never z-tests them on it. Leaves a field it cannot fill alone (absent).
void add_compare_fields(Json& row, const FeatureParameters& params = {});

// params.row_schema of the estimator experiments (results/result_compare.hpp: what `favorlab compare` pairs and tests):
// key = the fields of estimator_row; statistics mean ± stderr (skewness mean_skewness; the spread of one draw:
// mean_draw_variance, mean_draw_variance_bound, mean_range, add_compare_fields) and, with_mse, mse ± mse_stderr
// (mse_skewness; mse_draw_variance, mse_draw_variance_bound, mse_range), both over `trials` (params.trials at look
// `look`, less `nonfinite`), and the importance-sampled is_mean ± is_stderr and is_mse ± is_mse_stderr
// (is_mean_skewness, is_mse_skewness) over `is_trials` (params.importance_trials); rounding relative to the truth
// (squared for MSEs); exact truth (and mse_theory); verdict status.
Json estimator_row_schema(bool with_mse);

// The is_* fields of a row from an importance-sampled run with coupled rows (mc/importance_coupled.hpp) and the
// verdict of its MSE: is_mean, is_stderr, is_mse, is_mse_stderr, is_trials, is_mse_skewness (the gate's figure),
// is_z, is_status, is_trials_needed, is_proposal_mean, is_proposal_sd.
void add_importance_fields(Json& row, const CoupledImportanceSampledMse& r, const PointVerdict& v);

// "x_norm=…, y_norm=…, cos=…" for check details.
std::string point_label(const Geometry& g);

}  // namespace favorlab
