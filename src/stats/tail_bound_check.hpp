#pragma once
// A claim "P[event] ≤ bound" tested at many points from exceedance counts (a tail bound such as Theorem 3).
// Each point gets an exact two-sided Clopper–Pearson interval (stats/clopper_pearson.hpp) at level 1 − α/points
// (Bonferroni over the check's points). A point is
//   violated      when the interval's lower end exceeds the bound (the data rule the bound out),
//   holds         when its upper end lies at or below the bound (the data confirm it), or when the bound is 0 (an
//                 exact point: a threshold beyond the support) and nothing exceeded it,
//   inconclusive  otherwise ("not refuted"), with the draws that would likely settle it, or when some draws were not
//                 finite (they cannot be counted either way).
// Only the lower tail of each interval can produce a violation, so the family's false-violation rate is ≤ α/2.
// Power: the weakest point's — the relative tightening of every bound, max over points of 1 − lower/bound, that
// would have turned each point violated (the check is only as strong as its weakest point); margin: the smallest
// relative room, 1 − upper/bound, by which a held point confirms.
// The check: violated if any point is; holds if at least one point was judged and all hold; else inconclusive.
#include <cstdint>
#include <limits>
#include <string>

#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

// Draws N at which the Clopper–Pearson interval (level 1 − α) around the frequency exceed/trials, held fixed, would
// lie wholly on one side of the bound: exact (no normal approximation, which overstates zero-count points by orders
// of magnitude); kOutOfReach where the frequency equals the bound or N would pass 9e18.
std::int64_t clopper_pearson_trials(std::int64_t exceed, std::int64_t trials, double bound, double alpha);

struct TailPointEvidence {
  std::int64_t exceed = 0;     // draws with event (estimate > a)
  std::int64_t trials = 0;     // finite draws
  std::int64_t nonfinite = 0;  // draws that produced NaN or ±Inf
  double bound = 0;            // the claimed upper bound on the probability
  std::string label;           // where the point is, for the check's detail
};

struct TailPointVerdict {
  Verdict status = Verdict::inconclusive;
  double p_hat = 0;
  ProportionInterval interval;
  double margin = 0;       // bound − lower end: negative exactly when violated
  bool confirmed = false;  // upper end ≤ bound (the point holds)
  std::int64_t trials_needed = 0;  // inconclusive: draws at which the interval would likely clear the bound
};

class TailBoundCheck {
 public:
  TailBoundCheck(std::string claim, std::string where, double family_alpha, std::size_t points);

  TailPointVerdict judge(const TailPointEvidence& point);
  Check result() const;
  double point_alpha() const { return point_alpha_; }

 private:
  std::string claim_, where_;
  double point_alpha_;
  std::int64_t held_ = 0, violated_ = 0, inconclusive_ = 0, most_trials_needed_ = 0;
  double worst_ratio_ = -1, tightest_ratio_ = -1;  // largest lower/bound and p_hat/bound seen
  double power_ = std::numeric_limits<double>::quiet_NaN(), confirmed_margin_ = 1;
  std::string worst_label_, tightest_label_, inconclusive_reason_, power_label_;
};

}  // namespace favorlab
