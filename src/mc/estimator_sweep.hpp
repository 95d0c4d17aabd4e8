#pragma once
// Monte Carlo of softmax-kernel estimators over a grid of geometries.
// Each trial draws ONE projection with max(m) rows for the coupling and evaluates every (estimator, m) spec at every
// point with it — specs use its first m rows; smreg rescales them to norm √d — so all figures of one trial share
// their randomness (common random numbers) and a trial costs one draw plus a few small GEMMs.
// Trial t draws from PhiloxStream(seed, stream, t): results do not depend on the thread count.
// Errors are recorded against the estimator's exact mean: SM for trig/positive/hyperbolic, SMREG for smreg.
// Because figures of one trial share ω, two MSEs of one sweep are correlated; `squared_error_pairs` names pairs of
// cells (spec · points + point) whose squared errors' covariance is accumulated as well, so that a figure combining
// MSEs (a ratio, a difference) gets its standard error by the delta method with the covariance, not as if the MSEs
// were independent (which overstated it 5.4× on a ratio step of `mse`, tests/mc/test_lemma_statistical.cpp).
#include <cstdint>
#include <vector>

#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/running_covariance.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

struct EstimatorSpec {
  Family estimator;
  int m;
};

struct SweepConfig {
  int d = 16;
  Coupling coupling = Coupling::iid;
  std::vector<EstimatorSpec> specs;
  std::vector<Geometry> points;
  std::uint64_t seed = 2021;
  std::uint64_t stream = 0;
  std::int64_t trials = 1000;
  int threads = 1;
  FeatureParameters parameters;  // gerf's A
  std::int64_t first_trial = 0;  // the run draws trials [first_trial, first_trial + trials) of the stream
  int draw_rows = 0;             // rows of each trial's projection (0: the largest m of the specs); specs use the first m
};

using CellPairs = std::vector<std::pair<std::size_t, std::size_t>>;  // (spec · points + point) index pairs

struct SweepCell {
  RunningMoments error;       // estimate − truth over the finite estimates
  std::int64_t nonfinite = 0;
};

struct SweepResult {
  std::vector<double> truth;                // [spec * points + point]
  std::vector<SweepCell> cells;             // [spec * points + point]
  std::int64_t evaluations = 0;             // estimator evaluations performed
  double seconds = 0;
  const SweepCell& cell(std::size_t spec, std::size_t point) const { return cells[spec * truth_stride + point]; }
  std::size_t truth_stride = 0;             // number of points
  CellPairs pairs;                                         // the squared_error_pairs of the run
  std::vector<RunningCovariance> pair_covariance;          // of the squared errors, over trials where both are finite

  // Cov(MSE_i, MSE_j) of two cells' mean squared errors: Var(e²)/n for i = j, the tracked covariance over its joint
  // count for a pair in `pairs` (either order); NaN for a pair that was not tracked.
  double mse_covariance(std::size_t i, std::size_t j) const;
};

// The standard error of Σ_k g_k·MSE_{cell_k} (terms: cell, g_k), by the covariances above: the delta method for any
// smooth function of MSEs given its gradient. NaN when a needed covariance was not tracked or the variance comes out
// negative (different finite counts); then callers have no standard error to use.
double mse_combination_stderr(const SweepResult& r, const std::vector<std::pair<std::size_t, double>>& terms);

// The exact mean of the estimator at g: SM for the Gaussian estimators, SMREG for smreg.
double estimator_truth(Family e, const Geometry& g, int d);

// What each spec estimates at each point (SM, or SMREG for smreg), spec-major; throws std::invalid_argument when a
// value overflows or underflows double precision. Cheap: callers run it before any expensive per-point theory.
std::vector<double> estimator_truths(const std::vector<EstimatorSpec>& specs, const std::vector<Geometry>& points,
                                     int d);

// Throws std::invalid_argument on an empty grid or spec list, m ≤ 0, d ≤ 0, trials < 2, threads < 1, a bad geometry,
// or a truth that is not finite in double precision.
SweepResult run_estimator_sweep(const SweepConfig& config, const ProgressFn& progress = {},
                                const CellPairs& squared_error_pairs = {});

// Brings the listed cells (spec · points + point) of `result`, a sweep run with `config`, to `to_trials` trials each:
// it draws the trials each cell has not seen yet from the same streams and evaluates only the specs and points the
// cells name, so a cell ends with the draws of a fixed run of `to_trials` trials (and, as run_parallel_trials continues
// a fold, the same sums when its trial count was a multiple of kTrialBlock; mc/sequential_looks.hpp).
// Throws std::invalid_argument for a cell index beyond the sweep, a cell at or beyond to_trials, or a result that
// tracks squared-error pairs (their covariances would not be extended).
void extend_estimator_sweep(const SweepConfig& config, SweepResult& result, const std::vector<std::size_t>& cells,
                            std::int64_t to_trials, const ProgressFn& progress = {});

}  // namespace favorlab
