#pragma once
// A claim "P[event] ≤ bound" tested at many points from exceedance counts (a tail bound such as Theorem 3).
// Each point gets an exact two-sided Clopper–Pearson interval (stats/clopper_pearson.hpp) at level 1 − α/points
// (Bonferroni over the check's points). A point is
//   violated      when the interval's lower end exceeds the bound (the data rule the bound out),
//   holds         otherwise — and "confirmed" when even the upper end is below the bound,
//   inconclusive  when some draws were not finite (they cannot be counted either way).
// Only the lower tail of each interval can produce a violation, so the family's false-violation rate is ≤ α/2.
// The check: violated if any point is; otherwise inconclusive if any point is; otherwise holds.
#include <cstdint>
#include <string>

#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

struct TailPointEvidence {
  std::int64_t exceed = 0;     // draws with event (estimate > a)
  std::int64_t trials = 0;     // finite draws
  std::int64_t nonfinite = 0;  // draws that produced NaN or ±Inf
  double bound = 0;            // the claimed upper bound on the probability
  std::string label;           // where the point is, for the check's detail
};

struct TailPointVerdict {
  std::string status;
  double p_hat = 0;
  ProportionInterval interval;
  double margin = 0;       // bound − lower end: negative exactly when violated
  bool confirmed = false;  // upper end < bound
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
  std::size_t held_ = 0, violated_ = 0, inconclusive_ = 0, confirmed_ = 0;
  double worst_ratio_ = -1, tightest_ratio_ = -1;  // largest lower/bound and p_hat/bound seen
  std::string worst_label_, tightest_label_, inconclusive_reason_;
};

}  // namespace favorlab
