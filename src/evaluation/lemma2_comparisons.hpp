#pragma once
// The comparisons of `favorlab mse` (Lemma 2 and Fig. 2), on MSEs from one sweep or from independent
// importance-sampled runs:
//   ratio       MSE(trig)/MSE(positive) grows as SM → 0: along x_norm = y_norm = r at each fixed cos in (−1, 0)
//               (SM = exp(r² cos) falls as r grows) log R_b − log R_a ≥ 0 between consecutive r, one-sided;
//   hyperbolic  hyperbolic with m beats positive with 2m: MSE_hyp(m) − MSE_pos(2m) ≤ 0 at every point, one-sided.
// MSEs of one sweep share ω trial by trial: their standard errors come from the delta method with the covariances of
// the squared errors (mc/estimator_sweep.hpp: mse_combination_stderr), which the sweep tracks for the cell pairs
// lemma2_combined_cells names; independent runs' errors add in quadrature.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/geometry.hpp"
#include "mc/estimator_sweep.hpp"
#include "stats/check.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

// One cell's MSE with its standard error, the a-priori skewness of one squared error, and its counts.
struct MseFigure {
  double mse = 0, stderr_ = 0, skewness = 0;
  std::int64_t trials = 0, nonfinite = 0;
};

// The verdict of each point (or step) a check judged, with its label.
using JudgedPoints = std::vector<std::pair<std::string, PointVerdict>>;

// The claims without their method (", importance-sampled" or ", plain or importance-sampled" is appended).
extern const std::string kLemma2RatioClaim;       // "Lemma 2: MSE(trig)/MSE(positive) grows as SM -> 0"
extern const std::string kLemma2HyperbolicClaim;  // "Lemma 2: hyperbolic with m beats positive with 2m"
std::string lemma2_ratio_where(int m);
std::string lemma2_hyperbolic_where(int m, std::size_t points);

// The index of spec (e, m) in `specs`, if there.
std::optional<std::size_t> find_estimator_spec(const std::vector<EstimatorSpec>& specs, Family e, int m);

// The consecutive points a → b of the ratio check's paths (cos fixed in (−1, 0), x_norm = y_norm = r ascending).
std::vector<std::pair<std::size_t, std::size_t>> lemma2_ratio_steps(const std::vector<Geometry>& points);

// The cells whose MSEs the two checks combine, as pairs whose squared-error covariance the sweep must track.
CellPairs lemma2_combined_cells(const std::vector<EstimatorSpec>& specs, int m, const std::vector<Geometry>& points);

// The ratio check from trig's and positive's figures per point (specs t_spec, pos_spec of `sweep`). sampled: pos holds
// independent importance-sampled figures, so only the trig terms share a covariance. Appends each step's verdict to
// `judged`. A grid without a path judges nothing and says how to add one.
Check lemma2_ratio_check(const std::vector<Geometry>& points, const SweepResult& sweep, std::size_t t_spec,
                         std::size_t pos_spec, const std::vector<MseFigure>& trig, const std::vector<MseFigure>& pos,
                         bool sampled, int m, double alpha, JudgedPoints& judged);

// The hyperbolic check from hyperbolic's figures at m and positive's at 2m (specs h_spec, pos2_spec of `sweep`).
// sampled: both from independent importance-sampled runs (the specs are then unused).
Check lemma2_hyperbolic_check(const std::vector<Geometry>& points, const SweepResult& sweep, std::size_t h_spec,
                              std::size_t pos2_spec, const std::vector<MseFigure>& hyp,
                              const std::vector<MseFigure>& pos2, bool sampled, int m, double alpha,
                              JudgedPoints& judged);

// `claim` judged by plain Monte Carlo and by importance sampling at the same points, in the same order, combined point
// by point (stats/either_check.hpp); none where either method judged nothing.
std::optional<Check> plain_or_sampled_line(const std::string& claim, const std::string& where,
                                           const JudgedPoints& plain, const JudgedPoints& sampled,
                                           std::int64_t importance_trials);

}  // namespace favorlab
