#pragma once
// A claim "P[event] ≤ bound" tested at many points (a tail bound such as Theorem 3), each point by one of three
// methods (docs/theory.md#deciding-a-tail-point):
//   count    exceedances of the event in N draws, with an exact two-sided Clopper–Pearson interval
//            (stats/clopper_pearson.hpp);
//   support  the event is impossible (the threshold lies at or above the largest value the estimate can take): P = 0,
//            no interval; the count is kept only as a cross-check (an exceedance there refutes the maximum);
//   tilted   an importance-sampled estimate whose every draw lies in [0, R] (mc/tilted_tail.hpp): Hoeffding's
//            relative-entropy limits for the mean of a bounded variable, exact in level for any law on [0, R], widened
//            by the estimate's stated numerical factors.
// Intervals are two-sided at level 1 − α/points (Bonferroni over the check's points); a sampled point is
//   violated      when the interval's lower end exceeds the bound (the data rule the bound out),
//   holds         when its upper end lies at or below the bound (the data confirm it),
//   inconclusive  otherwise ("not refuted"), with the draws that would likely settle it, or when some counted draws
//                 were not finite (they cannot be counted either way).
// An exact point holds (P = 0 ≤ bound); it is violated only if the count saw the impossible event. Only the caller
// knows that the event is impossible: a counted point with a bound of 0 never holds.
// Only the lower end of each interval can produce a violation, so the family's false-violation rate is ≤ α/2.
// Power: the weakest sampled point's — the relative tightening of every bound, max over sampled points of
// 1 − lower/bound, that would have turned each one violated (exact points are true for every bound ≥ 0 and take no
// part); margin: the smallest relative room, 1 − upper/bound, by which a sampled point holds.
// The check: violated if any point is; holds if at least one point was judged and all hold; else inconclusive.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

// Draws N at which the Clopper–Pearson interval (level 1 − α) around the frequency exceed/trials, held fixed, would
// lie wholly on one side of the bound: exact (no normal approximation, which overstates zero-count points by orders
// of magnitude); +∞ where the frequency equals the bound, and above 9e18 where the doubling search gives up.
double clopper_pearson_draws(std::int64_t exceed, std::int64_t trials, double bound, double alpha);
// The same, saturated: kOutOfReach where it is not finite or passes 9e18.
std::int64_t clopper_pearson_trials(std::int64_t exceed, std::int64_t trials, double bound, double alpha);

// Hoeffding's (1963, Theorem 1) relative-entropy limits for the mean μ of n iid variables in [0, 1] with sample mean
// x̄: P[x̄ ≤ μ − t] ≤ exp(−n KL(μ − t ‖ μ)) and the same upwards, KL the Bernoulli relative entropy, for every law on
// [0, 1]. The limits {q : n KL(x̄ ‖ q) ≤ log(2/α)} each miss μ with probability ≤ α/2 (two-sided level ≥ 1 − α);
// computed by bisection and returned on the conservative side. Throws std::invalid_argument for x̄ outside [0, 1],
// n < 1 or α outside (0, 1).
struct MeanLimits {
  double lower = 0, upper = 1;
};
MeanLimits bounded_mean_limits(double mean, std::int64_t n, double alpha);
// Draws at which the limit on the side of `target` would clear it at the same sample mean: log(2/α)/KL(x̄ ‖ target);
// +∞ when x̄ = target.
double bounded_mean_draws(double mean, double target, double alpha);

enum class TailMethod { count, support, tilted };
const char* tail_method_name(TailMethod method);  // "count", "support", "tilted"

struct TailPointEvidence {
  std::int64_t exceed = 0;     // draws with event (estimate > a)
  std::int64_t trials = 0;     // finite draws
  std::int64_t nonfinite = 0;  // draws that produced NaN or ±Inf
  double bound = 0;            // the claimed upper bound on the probability
  std::string label;           // where the point is, for the check's detail
};

struct TiltedTailEvidence {
  double mean_ratio = 0;   // mean over the draws of Y/R, each in [0, 1]
  std::int64_t trials = 0;
  double range = 0;        // R: every draw of Y lies in [0, R]
  // The draws' expected Y/R lies in [low_factor·P/R − shift, high_factor·P/R + shift] (the estimate's numerics).
  double low_factor = 1, high_factor = 1, shift = 0;
  double bound = 0;
  std::string label;
};

struct TailPointVerdict {
  Verdict status = Verdict::inconclusive;
  double p_hat = 0;               // the point's estimate of P (0 at an exact point)
  ProportionInterval interval;    // the interval for P the verdict rests on ([0, 0] at an exact point)
  double margin = 0;              // bound − lower end: negative exactly when violated
  bool confirmed = false;         // upper end ≤ bound (the point holds)
  double draws_needed = 0;        // inconclusive: draws of its method at which the interval would likely clear it
};

class TailBoundCheck {
 public:
  TailBoundCheck(std::string claim, std::string where, double family_alpha, std::size_t points);

  TailPointVerdict judge(const TailPointEvidence& point);          // count
  TailPointVerdict judge_support(const TailPointEvidence& point);  // the event is impossible: P = 0
  TailPointVerdict judge_tilted(const TiltedTailEvidence& point);
  // Why some open points could not be decided otherwise (said once each, at the end of the detail).
  void add_note(const std::string& note);
  Check result() const;
  double point_alpha() const { return point_alpha_; }

 private:
  void record(const TailPointVerdict& v, double bound, const std::string& label, bool sampled);
  std::string claim_, where_;
  double point_alpha_;
  std::int64_t held_ = 0, violated_ = 0, inconclusive_ = 0, counted_ = 0, support_ = 0, tilted_ = 0;
  double most_draws_ = 0, most_tilted_draws_ = 0;  // the open count and tilted points' largest needs
  std::string reach_reason_, tilted_reach_reason_;  // what the largest need is, in words
  double worst_ratio_ = -1, tightest_ratio_ = -1;  // largest lower/bound and p_hat/bound seen
  double power_ = std::numeric_limits<double>::quiet_NaN();
  double confirmed_margin_ = std::numeric_limits<double>::quiet_NaN();
  std::string worst_label_, tightest_label_, inconclusive_reason_, power_label_, margin_label_;
  std::vector<std::string> notes_;
};

}  // namespace favorlab
