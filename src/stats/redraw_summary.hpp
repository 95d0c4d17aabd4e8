#pragma once
// Statistics of feature redrawing (Performers Fig. 15, `favorlab redraw`): output MSEs of FAVOR under independent
// projection draws, of single draws or of averages of k draws.
//   summary           mean ± SE of the finite MSEs, their sample skewness and a jackknife upper bound on it (the
//                     reliability gate of z tests on the mean, stats/skewness_bound.hpp); non-finite values apart
//   distribution      median, 90 %/99 % quantiles, best and worst of the finite MSEs, and the "unlucky" draws whose
//                     MSE exceeds factor × median (a non-finite MSE counts as unlucky) with a Clopper–Pearson interval
//   bias–variance     B and V of one draw (stats/bias_variance.hpp) with delete-a-block jackknife SEs; the average of
//                     k independent draws has expected MSE B + V/k
//   gaps              the redraw claims' differences k·MSE_k − MSE_1 and MSE_k − B − V/k, estimated from the groups'
//                     cross products U (docs/theory.md#redrawing-averages-of-k-draws): lighter-tailed than any MSE
#include <cstdint>
#include <string>
#include <vector>

#include "stats/bias_variance.hpp"
#include "stats/check.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

struct MseSummary {
  std::int64_t count = 0;      // finite values
  std::int64_t nonfinite = 0;
  double mean = 0;             // of the finite values (0 when none)
  double stderr_ = 0;          // of the mean; NaN with fewer than 2 finite values
  double skewness = 0;         // sample skewness; 0 with fewer than 3 values or no spread
  double skewness_bound = 0;   // jackknife upper bound over `blocks` blocks: the gate's skewness, never the sample one
};
MseSummary summarize_mse(const std::vector<double>& values, int blocks);

struct DrawDistribution {
  std::int64_t draws = 0;      // all values
  std::int64_t nonfinite = 0;
  double median = 0, q90 = 0, q99 = 0, best = 0, worst = 0;  // of the finite values; NaN when none
  double unlucky_threshold = 0;                              // factor × median
  std::int64_t unlucky = 0;                                  // values not ≤ the threshold, non-finite ones included
  double unlucky_fraction = 0;
  ProportionInterval unlucky_interval;  // Clopper–Pearson at level 1 − alpha
  double worst_over_median() const { return worst / median; }
};
// Throws std::invalid_argument for no values.
DrawDistribution draw_distribution(const std::vector<double>& values, double unlucky_factor, double alpha);

struct BiasVarianceFigures {
  double bias_sq = 0, bias_sq_stderr = 0;
  double variance = 0, variance_stderr = 0;
  std::int64_t draws = 0;
  double bias_share() const { return bias_sq / (bias_sq + variance); }
};
// The split from all blocks, SEs by the jackknife over the blocks (at least 2).
BiasVarianceFigures bias_variance_figures(const std::vector<ErrorBlock>& blocks);

// The law's prediction B + V/k for the MSE of the average of k draws, with its jackknife SE.
struct MsePrediction {
  double value = 0;
  double stderr_ = 0;
};
MsePrediction averaged_mse_prediction(const std::vector<ErrorBlock>& blocks, int k);

// An unbiased estimate of a claim's difference, judged against 0: value ± stderr_ (Student's t with
// degrees_of_freedom where > 0, else normal), from `count` groups whose statistic's skewness is gated by
// skewness_bound (stats/skewness_bound.hpp); groups with a non-finite cross product are left out and counted.
struct RedrawGap {
  double value = 0, stderr_ = 0, degrees_of_freedom = 0, skewness_bound = 0;
  std::int64_t count = 0, nonfinite = 0;
};
// k·MSE_k − MSE_1 = E[(k − 1)U]: the mean of (k − 1)·U over the groups (k ≥ 2).
RedrawGap one_over_k_gap(const std::vector<double>& cross, int k, int blocks);
// MSE_k − B − V/k = (k − 1)/k · (E U − B): with B̂ from the single draws (`singles`, its jackknife SE over
// `jackknife_blocks` blocks), the standard errors combined and Welch–Satterthwaite degrees of freedom.
RedrawGap law_gap(const std::vector<double>& cross, int k, int blocks, const BiasVarianceFigures& singles,
                  int jackknife_blocks);

// A check none of whose `points` any number of draws settles, for a proven reason (e.g. an output with no mean):
// every point inconclusive, trials_needed out of reach, `reason` in out_of_reach and the detail.
Check unreachable_check(std::string claim, std::string where, std::size_t points, const std::string& reason);

// The size of sample a at which a z test on the difference of the means of a and b (independent samples, b grown in
// proportion) is reliable: each mean needs trials_for_reliable_z_test(its skewness bound, z, tail_alpha) values, so
// a needs count_a · max(need_a/count_a, need_b/count_b); saturates at 9e18.
std::int64_t reliable_size_for_difference(const MseSummary& a, const MseSummary& b, double z, double tail_alpha);

}  // namespace favorlab
