#pragma once
// A claim of a paper tested at many points with z intervals (docs/judging.md#verdicts).
// Each point compares an empirical figure with its theoretical value through its own standard error; with
// d = empirical − theory, h = z·SE (z from the family α split over the points, Bonferroni) and a the rounding
// allowance (a fixed multiple of machine ε times the scale, never sampling noise):
//   equality claims (Sides::two), judged by an equivalence test (TOST) against a stated relative margin δ:
//     violated      |d| − a > h                      (the interval excludes the theory beyond rounding)
//     holds         |d| + h ≤ δ·scale + a            (the interval lies inside theory ± δ·scale)
//   one-sided claims "empirical ≤ theory" (Sides::upper):
//     violated      d − a > h                        (the interval lies above the theory)
//     holds         d + h ≤ a                        (the interval lies at or below it)
//   inconclusive otherwise, with the trials that would likely settle the point if its figures persisted.
// `scale` is what δ and the reported power are relative to (default |theory|). A point with SE = 0 (an exact
// estimator) is decided by the allowance alone.
// A point is also inconclusive — never silently passed — when an estimate, the theory or the SE is not finite, or
// when the a-priori skewness of the averaged quantity makes the z interval unreliable at this trial count
// (stats/edgeworth.hpp), or another criterion the caller supplies (min_trials) asks for more trials than were run.
// Power: the relative deviation of the theory (as a fraction of scale) that would have made every sampled point
// violated on these data — the weakest point's, for equality max over points of (|d| + h + a)/scale, for one-sided
// claims the largest tightening (h + a − d)/scale (0 at a violated point), reported with where it is. Points exact to
// rounding (half-width h ≤ a: an SE of rounding noise, e.g. x = −y) count toward power and the one-sided margin only
// when no point was sampled.
// Sequential checks (PointEvidence::look ≥ 0): each point is judged at its look's share of α (stats/look_spending.hpp),
// split over the points as above; the detail names the scheme and the deepest look.
// Critical value and trials: `critical` and the detail give what was used (Student's t where a point gives degrees of
// freedom); trials_needed comes from the normal limit z_crit·SE, which the t interval tends to as trials grow.
// Out of reach (trials_needed = INT64_MAX in memory): Check::out_of_reach says why; result files write null + reason.
// The claim's status: violated if any point is; holds if at least one point was judged and all hold; else
// inconclusive.
#include <cstdint>
#include <limits>
#include <string>

#include "stats/check.hpp"

namespace favorlab {

struct PointEvidence {
  double empirical = 0;
  double theory = 0;
  double standard_error = 0;
  double allowance = 0;
  double skewness = 0;          // skewness of one draw of the averaged quantity, known before sampling
  std::int64_t trials = 0;
  std::int64_t nonfinite = 0;   // draws that produced NaN or ±Inf (excluded from the figures above)
  std::string label;            // where the point is, for the check's detail
  std::int64_t min_trials = 0;  // a trial requirement from another reliability criterion (e.g. second-order Edgeworth)
  double scale = std::numeric_limits<double>::quiet_NaN();  // what the margin is relative to; NaN: |theory|
  // > 0: the SE is itself estimated from this many degrees of freedom (e.g. a jackknife over G blocks: G − 1), so the
  // point's critical value is Student's t quantile at the point α instead of the normal one.
  double degrees_of_freedom = 0;
  // ≥ 0: the look of a sequential check this evidence comes from (stats/look_spending.hpp): the point is judged at the
  // α that look spends. −1: a fixed-size run, judged at the whole α.
  int look = -1;
};

struct PointVerdict {
  Verdict status = Verdict::inconclusive;
  double z = 0;                     // (empirical − theory)/SE; 0 where |difference| is within the allowance
  std::int64_t trials_needed = 0;   // for a reliable z interval at this point's α, or to settle an open interval
  bool reliable = false;            // the figures are finite and the z interval trustworthy at this trial count
  // Reliable points: the relative deviation of the theory this point would have caught (the check's power at this
  // point), and whether its interval is wider than the rounding allowance (a sampled point, not one exact to rounding).
  double power = std::numeric_limits<double>::quiet_NaN();
  bool sampled = false;
};

class ClaimCheck {
 public:
  enum class Sides { two, upper };  // upper: the claim is empirical ≤ theory
  // equivalence_margin: δ of equality claims (relative to each point's scale); ignored for one-sided claims.
  ClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points, Sides sides = Sides::two,
             double equivalence_margin = kDefaultEquivalenceMargin);

  PointVerdict judge(const PointEvidence& point);
  Check result() const;
  double critical_z() const { return z_crit_; }
  // The critical value a point is judged with: critical_z(), or Student's t quantile at the point α when the point
  // gives degrees of freedom (for intervals reported beside the verdict).
  double critical_value(const PointEvidence& point) const;
  // The per-point α a point is judged at: the family α split over the points, of its look's share when it has one.
  double point_alpha(const PointEvidence& point) const;

  static constexpr double kDefaultEquivalenceMargin = 0.02;

 private:
  // Adds a reliable point judge() decided to the counts: its verdict, its power and margin where they count, and
  // whether it is the worst point so far.
  void tally_point(const PointEvidence& p, const PointVerdict& v, double scale, double point_power,
                   double point_margin);

  std::string claim_, where_;
  Sides sides_;
  double family_alpha_, margin_, point_alpha_, z_crit_;
  int deepest_look_ = -1;  // the latest look a judged point came from (−1: none was sequential)
  std::int64_t held_ = 0, violated_ = 0, inconclusive_ = 0, confirmed_ = 0;
  double worst_z_ = 0, worst_badness_ = 0, worst_margin_ = std::numeric_limits<double>::quiet_NaN();
  std::size_t split_;  // the points the family α is split over (Bonferroni)
  double power_ = std::numeric_limits<double>::quiet_NaN(), confirmed_margin_ = std::numeric_limits<double>::infinity();
  bool sampled_power_ = false;  // power_ comes from sampled points (interval wider than the rounding allowance)
  std::int64_t exact_to_rounding_ = 0;
  bool used_t_ = false;         // some point used Student's t
  double critical_used_ = 0, smallest_df_ = std::numeric_limits<double>::infinity();
  std::string worst_label_, nonfinite_reason_, power_label_, reliability_reach_;
  std::int64_t most_trials_for_reliability_ = 0, most_trials_to_settle_ = 0, unreliable_ = 0, open_ = 0;
};

// Trials n·(h/gap)² at which an interval of half-width h from n trials would shrink to `gap` (kTrialsOutOfReach
// when none would).
std::int64_t trials_to_shrink(std::int64_t trials, double half_width, double gap);

}  // namespace favorlab
