#pragma once
// The figures the estimator experiments report and judge for each cell (estimator spec × point) of a sweep
// (mc/estimator_sweep.hpp), and the evidence they give about a difference of two MSEs.
//   mean      truth + mean error, with the standard error of the mean
//   mse       mean squared error E[(estimate − truth)²] over the finite estimates, with its standard error
//   relative bias  (mean − truth)/truth, with SE/|truth|
// Cells of different sweeps come from independent streams, so a ratio or difference of their MSEs has the standard
// error of independent estimates (for cells of one sweep use mse_combination_stderr, which has the covariances).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mc/estimator_sweep.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

struct CellFigures {
  double truth = 0;       // what the estimator estimates (SM, or SMREG for smreg)
  double mean = 0;        // truth + mean error
  double stderr_ = 0;     // of the mean
  double mse = 0;
  double mse_stderr = 0;
  std::int64_t trials = 0;     // finite estimates
  std::int64_t nonfinite = 0;  // estimates that were NaN or ±∞ (left out of the figures above)

  double relative_bias() const { return (mean - truth) / truth; }
  double relative_bias_stderr() const { return stderr_ / std::abs(truth); }
};

// One cell's figures, and every cell's, spec-major: [spec * points + point], as SweepResult::truth.
CellFigures cell_figures(const SweepCell& cell, double truth);
std::vector<CellFigures> sweep_figures(const SweepResult& sweep);

// a.mse / b.mse and its delta-method standard error for independent cells: ratio · √((SE_a/MSE_a)² + (SE_b/MSE_b)²).
struct MseRatio {
  double value = 0;
  double stderr_ = 0;
};
MseRatio independent_mse_ratio(const CellFigures& a, const CellFigures& b);

// Evidence for the one-sided claim MSE_a ≤ MSE_b − shift from independent cells: empirical MSE_a − MSE_b + shift
// against 0, standard error √(SE_a² + SE_b²), the smaller of the two trial counts, the non-finite estimates of both.
// `skewness` gates the z interval (an a-priori value), `scale` is what margins and power are relative to (K² for
// Theorem 2), `allowance` the rounding allowance.
PointEvidence mse_difference_evidence(const CellFigures& a, const CellFigures& b, double shift, double allowance,
                                      double skewness, double scale, std::string label);

// Family evaluations and seconds over the sweeps of one run: the measurements every estimator experiment reports.
struct SweepTally {
  std::int64_t evaluations = 0;
  double seconds = 0;
  void add(const SweepResult& sweep) {
    evaluations += sweep.evaluations;
    seconds += sweep.seconds;
  }
  // 0 when no time was measured (no sweep, or one too fast for the clock).
  double per_second() const { return seconds > 0 ? static_cast<double>(evaluations) / seconds : 0.0; }
};

}  // namespace favorlab
