#include "stats/claim_check.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "io/format_number.hpp"
#include "stats/edgeworth.hpp"
#include "stats/look_spending.hpp"
#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {
constexpr double kHugeZ = 1e300;  // a difference beyond the allowance with zero standard error
}  // namespace

std::int64_t trials_to_shrink(std::int64_t trials, double half_width, double gap) {
  if (!(gap > 0) || !std::isfinite(half_width)) return kTrialsOutOfReach;
  const double n = static_cast<double>(trials) * (half_width / gap) * (half_width / gap);
  return n >= 9e18 ? kTrialsOutOfReach : std::max<std::int64_t>(trials + 1, static_cast<std::int64_t>(std::ceil(n)));
}

ClaimCheck::ClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points, Sides sides,
                       double equivalence_margin)
    : claim_(std::move(claim)), where_(std::move(where)), sides_(sides), family_alpha_(family_alpha),
      margin_(equivalence_margin),
      point_alpha_(bonferroni_alpha(family_alpha, std::max<std::size_t>(points, 1))),
      z_crit_(sides == Sides::two ? two_sided_critical_z(point_alpha_) : one_sided_critical_z(point_alpha_)),
      split_(points) {}

PointVerdict ClaimCheck::judge(const PointEvidence& p) {
  PointVerdict v;
  const double d = p.empirical - p.theory, se = p.standard_error, a = p.allowance;
  const double scale = std::isnan(p.scale) ? std::abs(p.theory) : p.scale;
  const bool finite = std::isfinite(p.empirical) && std::isfinite(p.theory) && std::isfinite(se) && se >= 0 &&
                      std::isfinite(a) && std::isfinite(scale);
  if (p.nonfinite > 0 || !finite) {
    ++inconclusive_;
    nonfinite_reason_ = p.nonfinite > 0 ? std::to_string(p.nonfinite) + " non-finite estimates at " + p.label
                                        : "a non-finite estimate, theory or standard error at " + p.label;
    return v;
  }
  // Differences within the rounding allowance count as zero (exact points can have a vanishing SE).
  if (std::abs(d) > a) v.z = se > 0 ? d / se : std::copysign(kHugeZ, d);
  const double alpha = point_alpha(p);
  const double z_crit = p.look < 0 ? z_crit_ : sides_ == Sides::two ? two_sided_critical_z(alpha)
                                                                    : one_sided_critical_z(alpha);
  deepest_look_ = std::max(deepest_look_, p.look);
  // The Edgeworth shift concerns one tail; a one-sided test spends all of α there, a two-sided one half.
  const double tail_alpha = sides_ == Sides::two ? alpha : 2 * alpha;
  const std::int64_t reliable = std::max(trials_for_reliable_z_test(p.skewness, z_crit, tail_alpha), p.min_trials);
  if (p.trials < reliable) {
    ++inconclusive_;
    ++unreliable_;
    v.trials_needed = reliable;
    most_trials_for_reliability_ = std::max(most_trials_for_reliability_, reliable);
    if (reliable == kTrialsOutOfReach && reliability_reach_.empty())
      reliability_reach_ = std::isfinite(p.skewness) ? "skewness too large for a z test at any trial count"
                                                     : "infinite skewness (no third moment): no z test at any trial count";
    return v;
  }
  const double crit = critical_value(p);
  v.reliable = true;
  const double h = crit * se;
  // What a point needs to settle comes from the normal limit: with more trials a Student t interval's degrees of
  // freedom grow too (more jackknife groups), so its quantile tends to z_crit; t's half-width would overstate it.
  const double h_limit = z_crit * se;
  used_t_ = used_t_ || p.degrees_of_freedom > 0;
  critical_used_ = std::max(critical_used_, crit);
  if (p.degrees_of_freedom > 0) smallest_df_ = std::min(smallest_df_, p.degrees_of_freedom);
  double point_power = 0, point_margin = std::numeric_limits<double>::quiet_NaN();
  if (sides_ == Sides::two) {
    const double band = margin_ * scale + a;
    if (std::abs(d) - a > h) {
      v.status = Verdict::violated;
    } else if (std::abs(d) + h <= band) {
      v.status = Verdict::holds;
    } else {
      v.trials_needed = std::abs(d) < band ? trials_to_shrink(p.trials, h_limit, band - std::abs(d))
                                           : trials_to_shrink(p.trials, h_limit, std::abs(d) - a);
    }
    point_power = (std::abs(d) + h + a) / scale;
    point_margin = (band - std::abs(d) - h) / (scale > 0 ? scale : 1);
  } else {
    if (d - a > h) {
      v.status = Verdict::violated;
    } else if (d + h <= a) {
      v.status = Verdict::holds;
    } else {
      v.trials_needed =
          d <= a ? trials_to_shrink(p.trials, h_limit, a - d) : trials_to_shrink(p.trials, h_limit, d - a);
    }
    point_power = std::max(0.0, (h + a - d) / scale);  // a violated point catches even no deviation
    point_margin = (a - d - h) / (scale > 0 ? scale : 1);
  }
  v.sampled = h > a;  // a sampled point: its interval is wider than the rounding allowance
  if (scale > 0 && std::isfinite(point_power)) v.power = point_power;
  tally_point(p, v, scale, point_power, point_margin);
  return v;
}

// Adds a judged point to the check's counts, power and one-sided margin, and to its worst point so far.
void ClaimCheck::tally_point(const PointEvidence& p, const PointVerdict& v, double scale, double point_power,
                             double point_margin) {
  // A point whose interval is within the rounding allowance (SE of rounding noise: x = −y, ‖z‖ = 0) is decided by
  // rounding, not sampling: its power and margin say nothing about the claim, so they count only when every point is
  // such. Power is the weakest counted point's: a deviation the check catches at every point, not at its best one.
  const bool sampled = v.sampled;
  if (!sampled) ++exact_to_rounding_;
  if (sampled && !sampled_power_) {
    sampled_power_ = true;
    power_ = std::numeric_limits<double>::quiet_NaN();
    confirmed_margin_ = std::numeric_limits<double>::infinity();
  }
  const bool counts = sampled || !sampled_power_;
  if (v.status == Verdict::holds) {
    ++held_;
    if (sides_ == Sides::upper && counts) confirmed_margin_ = std::min(confirmed_margin_, point_margin);
  } else if (v.status == Verdict::violated) {
    ++violated_;
  } else {
    ++inconclusive_;
    ++open_;
    most_trials_to_settle_ = std::max(most_trials_to_settle_, v.trials_needed);
  }
  if (counts && scale > 0 && std::isfinite(point_power) && !(point_power <= power_)) {
    power_ = point_power;
    power_label_ = p.label;
  }
  // The point nearest to violating: the largest |z| for equality, the largest z for "empirical ≤ theory".
  const double badness = sides_ == Sides::two ? std::abs(v.z) : v.z;
  if (worst_label_.empty() || badness > worst_badness_) {
    worst_badness_ = badness;
    worst_z_ = v.z;
    worst_label_ = p.label;
    worst_margin_ = point_margin;
  }
}

double ClaimCheck::point_alpha(const PointEvidence& p) const {
  return p.look < 0 ? point_alpha_ : bonferroni_alpha(look_alpha(family_alpha_, p.look), std::max<std::size_t>(split_, 1));
}

double ClaimCheck::critical_value(const PointEvidence& p) const {
  const double alpha = point_alpha(p);
  if (!(p.degrees_of_freedom > 0)) {
    if (p.look < 0) return z_crit_;
    return sides_ == Sides::two ? two_sided_critical_z(alpha) : one_sided_critical_z(alpha);
  }
  const boost::math::students_t t(p.degrees_of_freedom);
  return boost::math::quantile(boost::math::complement(t, sides_ == Sides::two ? alpha / 2 : alpha));
}

Check ClaimCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  set_point_counts(c, held_, violated_, inconclusive_);
  c.statistic = worst_z_;
  c.critical = critical_used_ > 0 ? critical_used_ : z_crit_;
  c.worst = {worst_label_, worst_z_, worst_margin_};
  if (std::isfinite(power_)) c.power = power_;
  if (sides_ == Sides::two) c.margin = margin_;
  else if (std::isfinite(confirmed_margin_)) c.margin = confirmed_margin_;
  c.trials_needed = std::max(most_trials_for_reliability_, most_trials_to_settle_);
  if (c.trials_needed == kTrialsOutOfReach)
    c.out_of_reach = most_trials_for_reliability_ == kTrialsOutOfReach
                         ? reliability_reach_
                         : "difference at the rounding allowance or the margin: no trial count settles it";
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_ << " inconclusive; ";
  // The critical value actually used: the normal one, or Student's t where the SE has few degrees of freedom.
  std::ostringstream k;
  k << format_number(c.critical, 4);
  if (used_t_)
    k << " (Student t, " << format_number(smallest_df_, 3) << " degrees of freedom at the fewest; normal "
      << format_number(z_crit_, 4) << ")";
  if (sides_ == Sides::two)
    s << "equivalence within +-" << format_number(100 * margin_, 3) << " % of the theory: holds where the interval "
      << "+-" << k.str() << " SE lies inside it, violated where it excludes the theory";
  else
    s << "one-sided interval empirical + " << k.str()
      << " SE: holds where it lies at or below the claimed value, violated where empirical - critical SE lies above it";
  s << " (family alpha split over " << split_ << " points)";
  if (deepest_look_ >= 0)
    s << "; sequential: a point judged at look k (0 = the pilot, trials doubling per look) spends 6 alpha/(pi^2 (k+1)^2) "
      << "of it, deepest look " << deepest_look_;
  if (!worst_label_.empty())
    s << (sides_ == Sides::two ? "; largest |z| " : "; largest z ")
      << format_number(sides_ == Sides::two ? std::abs(worst_z_) : worst_z_, 4) << " at " << worst_label_;
  if (std::isfinite(power_))
    s << "; power: a theory off by " << format_number(100 * power_, 3) << " % would have been caught "
      << (sampled_power_ ? "at every sampled point" : kRoundingPowerPhrase) << " (weakest at " << power_label_ << ")";
  if (exact_to_rounding_ > 0 && sampled_power_)
    s << "; " << exact_to_rounding_ << " points exact to rounding (interval within the rounding allowance), left out "
      << "of power and margin";
  if (sides_ == Sides::upper && std::isfinite(confirmed_margin_))
    s << "; held points confirm by at least " << format_number(100 * confirmed_margin_, 3) << " %";
  if (open_ > 0) {
    s << "; " << open_ << " points neither confirm nor refute the claim";
    if (most_trials_to_settle_ == kTrialsOutOfReach)
      s << " (some are out of reach: the difference is at the rounding allowance or the margin)";
    else s << " (about " << static_cast<double>(most_trials_to_settle_) << " trials per point would likely settle them)";
  }
  if (most_trials_for_reliability_ == kTrialsOutOfReach)
    s << "; " << unreliable_ << " heavy-tailed points, some out of reach (" << reliability_reach_ << ")";
  else if (most_trials_for_reliability_ > 0)
    s << "; " << unreliable_ << " heavy-tailed points need up to " << static_cast<double>(most_trials_for_reliability_)
      << " trials for a trustworthy z test";
  if (!nonfinite_reason_.empty()) s << "; " << nonfinite_reason_;
  if (c.points_total == 0) s << "; no point was judged";
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
