#include "stats/claim_check.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "stats/edgeworth.hpp"
#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {
constexpr double kHugeZ = 1e300;  // a difference beyond the allowance with zero standard error
}

ClaimCheck::ClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points, Sides sides)
    : claim_(std::move(claim)), where_(std::move(where)), sides_(sides),
      point_alpha_(bonferroni_alpha(family_alpha, points)),
      z_crit_(sides == Sides::two ? two_sided_critical_z(point_alpha_) : one_sided_critical_z(point_alpha_)) {}

PointVerdict ClaimCheck::judge(const PointEvidence& p) {
  PointVerdict v;
  const double diff = p.empirical - p.theory;
  const double excess = sides_ == Sides::two ? std::abs(diff) - p.allowance : diff - p.allowance;
  // Differences within the rounding allowance count as zero (exact points can have a vanishing SE).
  if (std::abs(diff) > p.allowance)
    v.z = p.standard_error > 0 ? diff / p.standard_error : std::copysign(kHugeZ, diff);
  // The Edgeworth shift concerns one tail; a one-sided test spends all of α there, a two-sided one half.
  const double tail_alpha = sides_ == Sides::two ? point_alpha_ : 2 * point_alpha_;
  v.trials_needed = std::max(trials_for_reliable_z_test(p.skewness, z_crit_, tail_alpha), p.min_trials);

  if (p.nonfinite > 0) {
    v.status = "inconclusive";
    inconclusive_reason_ = std::to_string(p.nonfinite) + " non-finite estimates at " + p.label;
  } else if (p.trials < v.trials_needed) {
    v.status = "inconclusive";
    most_trials_needed_ = std::max(most_trials_needed_, v.trials_needed);
  } else {
    v.status = excess > z_crit_ * p.standard_error ? "violated" : "holds";
  }

  if (v.status == "holds") ++held_;
  if (v.status == "violated") ++violated_;
  if (v.status == "inconclusive") ++inconclusive_;
  if (sides_ == Sides::upper && v.status == "holds" && v.z < -z_crit_) ++confirmed_;
  // The point nearest to violating: the largest |z| for equality, the largest z for "empirical ≤ theory".
  const double badness = sides_ == Sides::two ? std::abs(v.z) : v.z;
  if (v.status != "inconclusive" && (worst_label_.empty() || badness > worst_badness_)) {
    worst_badness_ = badness;
    worst_z_ = v.z;
    worst_label_ = p.label;
  }
  return v;
}

Check ClaimCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  c.status = violated_ > 0 ? "violated" : inconclusive_ > 0 ? "inconclusive" : "holds";
  c.statistic = worst_z_;
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_ << " inconclusive; critical |z| "
    << z_crit_ << " (family alpha split over " << (held_ + violated_ + inconclusive_) << " points)";
  if (!worst_label_.empty())
    s << (sides_ == Sides::two ? "; largest |z| " : "; largest z ") << (sides_ == Sides::two ? std::abs(worst_z_) : worst_z_)
      << " at " << worst_label_;
  if (sides_ == Sides::upper) s << "; " << confirmed_ << " points confirm the inequality significantly (z < -" << z_crit_ << ")";
  if (most_trials_needed_ == std::numeric_limits<std::int64_t>::max())
    s << "; some heavy-tailed points are out of reach of a z test (more than 9e18 trials needed)";
  else if (most_trials_needed_ > 0)
    s << "; heavy-tailed points need up to " << static_cast<double>(most_trials_needed_)
      << " trials for a trustworthy z test";
  if (!inconclusive_reason_.empty()) s << "; " << inconclusive_reason_;
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
