#pragma once
// A claim of a paper tested at many points with z tests (DESIGN.md, "Statistics without flaky tests").
// Each point compares an empirical figure with its theoretical value through its own standard error:
//   two-sided claims (equality):      violated when |empirical − theory| > z·SE + allowance
//   one-sided claims (empirical ≤ t): violated when  empirical − theory  > z·SE + allowance
// z comes from the family-wise α split over all points (Bonferroni). `allowance` absorbs floating-point rounding
// only (a fixed multiple of machine ε times the scale), never sampling noise.
// A point is inconclusive — never silently passed — when its estimates were not all finite, or when the a-priori
// skewness of the averaged quantity makes the z test unreliable at this trial count (stats/edgeworth.hpp), or another
// criterion the caller supplies (min_trials) asks for more trials than were run.
// The claim's status: violated if any conclusive point is; otherwise inconclusive if any point is; otherwise holds.
#include <cstdint>
#include <string>

namespace favorlab {

struct Check {
  std::string claim;
  std::string where;
  std::string status;  // "holds" | "violated" | "inconclusive"
  double statistic = 0;
  std::string detail;
};

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
};

struct PointVerdict {
  std::string status;
  double z = 0;                     // (empirical − theory)/SE; 0 where |difference| is within the allowance
  std::int64_t trials_needed = 0;   // for a reliable z test at this point's α
};

class ClaimCheck {
 public:
  enum class Sides { two, upper };  // upper: the claim is empirical ≤ theory
  ClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points, Sides sides = Sides::two);

  PointVerdict judge(const PointEvidence& point);
  Check result() const;
  double critical_z() const { return z_crit_; }

 private:
  std::string claim_, where_;
  Sides sides_;
  double point_alpha_, z_crit_;
  std::size_t held_ = 0, violated_ = 0, inconclusive_ = 0, confirmed_ = 0;
  double worst_z_ = 0, worst_badness_ = 0;
  std::string worst_label_, inconclusive_reason_;
  std::int64_t most_trials_needed_ = 0;
};

}  // namespace favorlab
