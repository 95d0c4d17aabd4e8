#include "stats/tail_bound_check.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {
// lower/bound with 0/0 = 0 (nothing seen where nothing is allowed) and x/0 = ∞.
double ratio(double value, double bound) {
  if (bound > 0) return value / bound;
  return value > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}
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
  v.confirmed = v.interval.upper < p.bound;
  if (p.nonfinite > 0 || p.trials == 0) {
    v.status = "inconclusive";
    ++inconclusive_;
    inconclusive_reason_ = std::to_string(p.nonfinite) + " non-finite estimates at " + p.label;
    return v;
  }
  v.status = v.interval.lower > p.bound ? "violated" : "holds";
  ++(v.status == "violated" ? violated_ : held_);
  if (v.confirmed) ++confirmed_;
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
  c.status = violated_ > 0 ? "violated" : inconclusive_ > 0 ? "inconclusive" : "holds";
  c.statistic = std::max(0.0, worst_ratio_);  // largest (CP lower end)/bound: > 1 means violated
  const std::size_t points = held_ + violated_ + inconclusive_;
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_ << " inconclusive; two-sided "
    << "Clopper-Pearson intervals at level 1 - " << point_alpha_ << " (family alpha split over " << points
    << " points; a point is violated when the interval's lower end exceeds the bound)";
  if (!worst_label_.empty())
    s << "; largest (lower end)/bound " << worst_ratio_ << " at " << worst_label_ << "; largest p_hat/bound "
      << tightest_ratio_ << " at " << tightest_label_;
  s << "; " << confirmed_ << " points confirm the bound (upper end below it)";
  if (!inconclusive_reason_.empty()) s << "; " << inconclusive_reason_;
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
