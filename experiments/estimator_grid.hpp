#pragma once
// Options shared by the estimator experiments (unbiased, mse): dimension, features, the geometry grid
// (the cross product of --x-norm × --y-norm × --cos), estimators, couplings and the family-wise α of each check.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "evaluation/estimator_rows.hpp"
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

}  // namespace favorlab
