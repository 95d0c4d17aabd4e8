#pragma once
// The points of `favorlab smreg`: a ratio row per (d, ‖z‖), SMREG/SM by the Bessel form and by the series beside the
// smreg estimator's Monte Carlo mean, and a bound row per (C, d). Theorem 1's checks decided without sampling
// (docs/theory.md#the-regularized-kernel-smreg-theorem-1), over those points, each within a relative tolerance on
// SMREG/SM that the caller derives from floating-point error analysis:
//   eq. 30       the Poisson series of SMREG/SM equals the Bessel closed form;
//   SMREG ≤ SM   at every point, by both computations;
//   the bound    per C: inf SMREG/SM ≥ 1 − 2/d + o(1/d) as claimed (its limit d(1 − inf ratio) = (2 ln C)² ≤ 2), and
//                as corrected, d(1 − inf ratio) ≤ (2 ln C)² at every d (kernels/theorem1_bound.hpp).
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "kernels/error_moments.hpp"
#include "kernels/geometry.hpp"
#include "mc/estimator_sweep.hpp"
#include "results/result.hpp"
#include "stats/check.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

// "d=16, |z|=0.5": the label of a point.
std::string smreg_point_label(int d, double z_norm);

// The largest value seen and where.
struct LargestSeen {
  double value = -std::numeric_limits<double>::infinity();
  std::string where;
  void see(double v, const std::string& at);
};

// What the series and upper checks collect over every ratio and bound point.
struct SmregRatioTally {
  LargestSeen discrepancy, largest_log_ratio;
  std::size_t compared = 0, strictly_below = 0, unavailable = 0, unavailable_asymptote = 0;
  std::string unavailable_where;

  // One point: the log ratio by the Bessel form and by the series, and the gap 1 − ratio. required: a point the checks
  // must compare (not one of the extra asymptote dimensions). The Bessel form runs in 80-bit long double and for very
  // large d its I_{d/2−1} underflows (log → −inf): such a point is counted as unavailable, not compared.
  void compare(double log_exact, double log_series, double gap, const std::string& at, bool required);
};

// A point's SMREG/SM three ways: the Bessel closed form (log; −inf where it underflows), the Poisson series (log),
// and 1 − ratio by a positive-term series.
struct SmregRatio {
  double log_exact = 0, log_series = 0, gap = 0;
};
SmregRatio smreg_ratio(double z_norm, int d);

// The "ratio" row of (d, ‖z‖): estimator_row's fields for smreg on iid rows, the three ratios, the Monte Carlo mean
// `ev` of the sweep's `cell` judged `v`, and what compare reads about one draw (em: the point's error moments).
Json smreg_ratio_row(int d, int m, double z_norm, const Geometry& g, const SmregRatio& ratio, const PointEvidence& ev,
                     const PointVerdict& v, const SweepCell& cell, const ErrorMoments& em);

Check smreg_series_check(const SmregRatioTally& tally, double tolerance);
Check smreg_upper_check(const SmregRatioTally& tally, double tolerance);

// The bound rows of one C ("kind": "bound", one per d of dims ∪ asymptote_dims, sorted, each compared into `tally`)
// appended to `rows` (a JSON array), and the two checks of C: as claimed and as corrected.
struct Theorem1BoundChecks {
  Check claimed, corrected;
};
Theorem1BoundChecks theorem1_bound_rows(double c, const std::vector<int>& dims, const std::vector<int>& asymptote_dims,
                                        double tolerance, SmregRatioTally& tally, Json& rows);

}  // namespace favorlab
