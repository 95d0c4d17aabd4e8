#include "stats/tail_bound_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "io/format_number.hpp"
#include "stats/claim_check.hpp"
#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {
// lower/bound with 0/0 = 0 (nothing seen where nothing is allowed) and x/0 = ∞.
double ratio(double value, double bound) {
  if (bound > 0) return value / bound;
  return value > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

std::int64_t clopper_pearson_trials(std::int64_t exceed, std::int64_t trials, double bound, double alpha) {
  constexpr double kMost = 9e18;
  if (exceed == 0) {
    // No exceedance so far: the upper end 1 − (α/2)^{1/N} clears the bound once N ≥ ln(α/2)/ln(1 − bound).
    if (!(bound > 0)) return kOutOfReach;
    const double n = std::ceil(std::log(alpha / 2) / std::log1p(-bound));
    return n >= kMost ? kOutOfReach : std::max<std::int64_t>(trials + 1, static_cast<std::int64_t>(n));
  }
  const double p_hat = static_cast<double>(exceed) / static_cast<double>(trials);
  if (p_hat == bound) return kOutOfReach;
  const auto settles = [&](double n) {
    const auto nn = static_cast<std::int64_t>(n);
    const auto k = std::clamp<std::int64_t>(std::llround(p_hat * n), 0, nn);
    const ProportionInterval ci = clopper_pearson(k, nn, alpha);
    return p_hat < bound ? ci.upper <= bound : ci.lower > bound;
  };
  // The interval at a fixed frequency narrows as N grows: double N until it settles, then bisect.
  double lo = static_cast<double>(trials), hi = 2 * lo;
  while (!settles(hi)) {
    lo = hi;
    hi *= 2;
    if (hi >= kMost) return kOutOfReach;
  }
  while (hi - lo > std::max(1.0, 1e-6 * lo)) {
    const double mid = std::floor((lo + hi) / 2);
    (settles(mid) ? hi : lo) = mid;
  }
  return std::max<std::int64_t>(trials + 1, static_cast<std::int64_t>(std::ceil(hi)));
}

namespace {
}  // namespace

TailBoundCheck::TailBoundCheck(std::string claim, std::string where, double family_alpha, std::size_t points)
    : claim_(std::move(claim)), where_(std::move(where)), point_alpha_(bonferroni_alpha(family_alpha, points)) {}

TailPointVerdict TailBoundCheck::judge(const TailPointEvidence& p) {
  if (!(p.bound >= 0) || std::isnan(p.bound)) throw std::invalid_argument("tail bound must be >= 0 at " + p.label);
  TailPointVerdict v;
  if (p.trials > 0) {
    v.p_hat = static_cast<double>(p.exceed) / static_cast<double>(p.trials);
    v.interval = clopper_pearson(p.exceed, p.trials, point_alpha_);
  }
  v.margin = p.bound - v.interval.lower;
  // A bound of 0 (a threshold beyond the estimator's support) is an exact point: one exceedance refutes it, none
  // is all the data can show, and it is decided that way rather than left open forever.
  v.confirmed = v.interval.upper <= p.bound || (p.bound == 0 && p.exceed == 0);
  if (p.nonfinite > 0 || p.trials == 0) {
    ++inconclusive_;
    inconclusive_reason_ = std::to_string(p.nonfinite) + " non-finite estimates at " + p.label;
    return v;
  }
  if (v.interval.lower > p.bound) {
    v.status = Verdict::violated;
    ++violated_;
  } else if (v.confirmed) {
    v.status = Verdict::holds;
    ++held_;
    if (p.bound > 0) confirmed_margin_ = std::min(confirmed_margin_, 1 - v.interval.upper / p.bound);
  } else {
    ++inconclusive_;
    // Exact: the draws at which the Clopper–Pearson interval around the same frequency would clear the bound.
    v.trials_needed = clopper_pearson_trials(p.exceed, p.trials, p.bound, point_alpha_);
    most_trials_needed_ = std::max(most_trials_needed_, v.trials_needed);
  }
  // Power is the weakest point's: the tightening every point's bound would need before each one is violated.
  if (p.bound > 0 && !(1 - v.interval.lower / p.bound <= power_)) {
    power_ = 1 - v.interval.lower / p.bound;
    power_label_ = p.label;
  }
  const double worst = ratio(v.interval.lower, p.bound), tight = ratio(v.p_hat, p.bound);
  if (worst > worst_ratio_) {
    worst_ratio_ = worst;
    worst_label_ = p.label;
  }
  if (tight > tightest_ratio_) {
    tightest_ratio_ = tight;
    tightest_label_ = p.label;
  }
  return v;
}

Check TailBoundCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  set_point_counts(c, held_, violated_, inconclusive_);
  c.statistic = std::max(0.0, worst_ratio_);  // largest (CP lower end)/bound: > 1 means violated
  c.critical = 1;
  if (!worst_label_.empty()) c.worst = {worst_label_, worst_ratio_, 1 - worst_ratio_};
  if (std::isfinite(power_)) c.power = std::max(0.0, power_);
  if (held_ > 0) c.margin = confirmed_margin_;
  c.trials_needed = most_trials_needed_;
  if (c.trials_needed == kOutOfReach) c.out_of_reach = "an open point's frequency sits on the bound";
  const std::int64_t points = c.points_total;
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_ << " inconclusive; two-sided "
    << "Clopper-Pearson intervals at level 1 - " << point_alpha_ << " (family alpha split over " << points
    << " points; a point holds when the interval's upper end is at or below the bound, is violated when its lower end "
    << "exceeds it)";
  if (!worst_label_.empty())
    s << "; largest (lower end)/bound " << worst_ratio_ << " at " << worst_label_ << "; largest p_hat/bound "
      << tightest_ratio_ << " at " << tightest_label_;
  if (std::isfinite(c.power))
    s << "; power: every bound " << format_number(100 * c.power, 3)
      << " % tighter would have been caught at every point (weakest point " << power_label_ << ")";
  if (held_ > 0) s << "; held points confirm with at least " << format_number(100 * confirmed_margin_, 3) << " % room";
  if (most_trials_needed_ == kOutOfReach)
    s << "; some open points sit on the bound: no number of draws would settle them";
  else if (most_trials_needed_ > 0)
    s << "; about " << static_cast<double>(most_trials_needed_)
      << " draws per point would likely settle the open points (exact Clopper-Pearson at the same frequency)";
  if (!inconclusive_reason_.empty()) s << "; " << inconclusive_reason_;
  if (c.points_total == 0) s << "; no point was judged";
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
