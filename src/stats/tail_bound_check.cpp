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

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMostDraws = 9e18;

// lower/bound with 0/0 = 0 (nothing seen where nothing is allowed) and x/0 = ∞.
double ratio(double value, double bound) {
  if (bound > 0) return value / bound;
  return value > 0 ? kInf : 0.0;
}

// The Bernoulli relative entropy KL(p ‖ q), p in [0, 1], q in (0, 1); 0·log 0 = 0.
double bernoulli_kl(double p, double q) {
  double kl = 0;
  if (p > 0) kl += p * std::log(p / q);
  if (p < 1) kl += (1 - p) * (std::log1p(-p) - std::log1p(-q));
  return std::max(0.0, kl);
}

std::string g3(double x) { return format_number(x, 3); }

}  // namespace

double clopper_pearson_draws(std::int64_t exceed, std::int64_t trials, double bound, double alpha) {
  if (exceed == 0) {
    // No exceedance so far: the upper end 1 − (α/2)^{1/N} clears the bound once N ≥ ln(α/2)/ln(1 − bound).
    if (!(bound > 0)) return kInf;
    return std::max(static_cast<double>(trials) + 1, std::ceil(std::log(alpha / 2) / std::log1p(-bound)));
  }
  const double p_hat = static_cast<double>(exceed) / static_cast<double>(trials);
  if (p_hat == bound) return kInf;
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
    if (hi >= kMostDraws) return hi;  // beyond what a run can do: reported as "more than 9e18"
  }
  while (hi - lo > std::max(1.0, 1e-6 * lo)) {
    const double mid = std::floor((lo + hi) / 2);
    (settles(mid) ? hi : lo) = mid;
  }
  return std::max(static_cast<double>(trials) + 1, std::ceil(hi));
}

std::int64_t clopper_pearson_trials(std::int64_t exceed, std::int64_t trials, double bound, double alpha) {
  const double n = clopper_pearson_draws(exceed, trials, bound, alpha);
  return n >= kMostDraws ? kOutOfReach : static_cast<std::int64_t>(n);
}

MeanLimits bounded_mean_limits(double mean, std::int64_t n, double alpha) {
  if (!(mean >= 0 && mean <= 1)) throw std::invalid_argument("bounded mean must lie in [0, 1], got " + g3(mean));
  if (n < 1) throw std::invalid_argument("bounded mean limits need n >= 1");
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("bounded mean limits need alpha in (0, 1)");
  const double level = std::log(2 / alpha) / static_cast<double>(n);
  // KL(x̄ ‖ q) rises as q leaves x̄ on either side: bisect each side, keeping the end where it is ≥ level (so the
  // limit returned lies at or beyond the exact one).
  const auto bisect = [&](double inside, double outside) {
    for (int i = 0; i < 200 && inside != outside; ++i) {
      const double mid = inside + (outside - inside) / 2;
      if (mid == inside || mid == outside) break;
      (bernoulli_kl(mean, mid) >= level ? outside : inside) = mid;
    }
    return outside;
  };
  MeanLimits out;
  out.upper = mean == 1 || bernoulli_kl(mean, std::nextafter(1.0, 0.0)) < level ? 1.0 : bisect(mean, 1.0);
  out.lower = mean == 0 || bernoulli_kl(mean, std::numeric_limits<double>::min()) < level ? 0.0 : bisect(mean, 0.0);
  return out;
}

double bounded_mean_draws(double mean, double target, double alpha) {
  if (mean == target || !(target > 0 && target < 1)) return kInf;
  return std::ceil(std::log(2 / alpha) / bernoulli_kl(mean, target));
}

const char* tail_method_name(TailMethod method) {
  switch (method) {
    case TailMethod::count: return "count";
    case TailMethod::support: return "support";
    case TailMethod::tilted: return "tilted";
  }
  return "?";
}

TailBoundCheck::TailBoundCheck(std::string claim, std::string where, double family_alpha, std::size_t points)
    : claim_(std::move(claim)), where_(std::move(where)), point_alpha_(bonferroni_alpha(family_alpha, points)) {}

void TailBoundCheck::record(const TailPointVerdict& v, double bound, const std::string& label, bool sampled) {
  if (v.status == Verdict::violated) ++violated_;
  else if (v.status == Verdict::holds) ++held_;
  else ++inconclusive_;
  const double worst = ratio(v.interval.lower, bound), tight = ratio(v.p_hat, bound);
  if (worst > worst_ratio_) worst_ratio_ = worst, worst_label_ = label;
  if (tight > tightest_ratio_) tightest_ratio_ = tight, tightest_label_ = label;
  if (!sampled || !(bound > 0)) return;
  // Power is the weakest sampled point's: the tightening every point's bound would need before each one is violated.
  if (!(1 - v.interval.lower / bound <= power_)) power_ = 1 - v.interval.lower / bound, power_label_ = label;
  if (v.status == Verdict::holds && !(1 - v.interval.upper / bound >= confirmed_margin_))
    confirmed_margin_ = 1 - v.interval.upper / bound, margin_label_ = label;
}

TailPointVerdict TailBoundCheck::judge(const TailPointEvidence& p) {
  if (!(p.bound >= 0) || std::isnan(p.bound)) throw std::invalid_argument("tail bound must be >= 0 at " + p.label);
  ++counted_;
  TailPointVerdict v;
  if (p.trials > 0) {
    v.p_hat = static_cast<double>(p.exceed) / static_cast<double>(p.trials);
    v.interval = clopper_pearson(p.exceed, p.trials, point_alpha_);
  }
  v.margin = p.bound - v.interval.lower;
  v.confirmed = v.interval.upper <= p.bound;
  if (p.nonfinite > 0 || p.trials == 0) {
    ++inconclusive_;
    inconclusive_reason_ = std::to_string(p.nonfinite) + " non-finite estimates at " + p.label;
    return v;
  }
  if (v.interval.lower > p.bound) v.status = Verdict::violated;
  else if (v.confirmed) v.status = Verdict::holds;
  else {
    // Exact: the draws at which the Clopper–Pearson interval around the same frequency would clear the bound.
    v.draws_needed = clopper_pearson_draws(p.exceed, p.trials, p.bound, point_alpha_);
    if (v.draws_needed > most_draws_) {
      most_draws_ = v.draws_needed;
      std::ostringstream s;
      if (std::isinf(v.draws_needed)) s << "p_hat equals the bound (" << g3(p.bound) << ")";
      // A zero count has its need in closed form; otherwise the doubling search stops at 9e18.
      else
        s << "needs " << (p.exceed > 0 && v.draws_needed >= kMostDraws ? "more than 9e18" : "~" + g3(v.draws_needed))
          << " draws (p_hat = " << g3(v.p_hat) << ", bound " << g3(p.bound) << ")";
      reach_reason_ = s.str() + " at " + p.label;
    }
  }
  record(v, p.bound, p.label, true);
  return v;
}

TailPointVerdict TailBoundCheck::judge_support(const TailPointEvidence& p) {
  if (!(p.bound >= 0) || std::isnan(p.bound)) throw std::invalid_argument("tail bound must be >= 0 at " + p.label);
  ++support_;
  TailPointVerdict v;
  v.margin = p.bound;
  // P = 0 ≤ bound exactly; an exceedance in the count would contradict the maximum the method rests on.
  v.confirmed = p.exceed == 0;
  v.status = v.confirmed ? Verdict::holds : Verdict::violated;
  if (!v.confirmed) {
    v.p_hat = static_cast<double>(p.exceed) / static_cast<double>(std::max<std::int64_t>(1, p.trials));
    v.interval = clopper_pearson(p.exceed, std::max<std::int64_t>(p.exceed, p.trials), point_alpha_);
    v.margin = p.bound - v.interval.lower;
  }
  record(v, p.bound, p.label, false);
  return v;
}

TailPointVerdict TailBoundCheck::judge_tilted(const TiltedTailEvidence& p) {
  if (!(p.bound >= 0) || std::isnan(p.bound)) throw std::invalid_argument("tail bound must be >= 0 at " + p.label);
  if (!(p.range > 0) || !std::isfinite(p.range) || !(p.low_factor > 0) || !(p.high_factor >= p.low_factor) ||
      !(p.shift >= 0) || p.trials < 1)
    throw std::invalid_argument("tilted tail evidence out of range at " + p.label);
  ++tilted_;
  const MeanLimits limits = bounded_mean_limits(p.mean_ratio, p.trials, point_alpha_);
  TailPointVerdict v;
  v.p_hat = p.range * p.mean_ratio;
  v.interval.lower = std::max(0.0, p.range * (limits.lower - p.shift) / p.high_factor);
  v.interval.upper = p.range * (limits.upper + p.shift) / p.low_factor;
  v.margin = p.bound - v.interval.lower;
  v.confirmed = v.interval.upper <= p.bound;
  if (v.interval.lower > p.bound) v.status = Verdict::violated;
  else if (v.confirmed) v.status = Verdict::holds;
  else {
    // The bound in units of R, moved by the numerical factors to where the limit would have to reach.
    const double hold_at = p.bound * p.low_factor / p.range - p.shift;
    const double break_at = p.bound * p.high_factor / p.range + p.shift;
    v.draws_needed = p.mean_ratio < hold_at    ? bounded_mean_draws(p.mean_ratio, hold_at, point_alpha_)
                     : p.mean_ratio > break_at ? bounded_mean_draws(p.mean_ratio, break_at, point_alpha_)
                                               : kInf;
    if (v.draws_needed > most_tilted_draws_) {
      most_tilted_draws_ = v.draws_needed;
      tilted_reach_reason_ = (std::isinf(v.draws_needed) ? "the tilted estimate sits on the bound (p = " + g3(v.p_hat) +
                                                               ", bound " + g3(p.bound) + ")"
                                                         : "needs ~" + g3(v.draws_needed) + " tilted draws") +
                             " at " + p.label;
    }
  }
  record(v, p.bound, p.label, true);
  return v;
}

void TailBoundCheck::add_note(const std::string& note) {
  if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) notes_.push_back(note);
}

Check TailBoundCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  set_point_counts(c, held_, violated_, inconclusive_);
  c.statistic = std::max(0.0, worst_ratio_);  // largest (lower end)/bound: > 1 means violated
  c.critical = 1;
  if (!worst_label_.empty()) c.worst = {worst_label_, worst_ratio_, 1 - worst_ratio_};
  if (std::isfinite(power_)) c.power = std::max(0.0, power_);
  if (std::isfinite(confirmed_margin_)) c.margin = confirmed_margin_;
  const double most = std::max(most_draws_, most_tilted_draws_);
  c.trials_needed = most >= kMostDraws ? kOutOfReach : static_cast<std::int64_t>(most);
  if (c.trials_needed == kOutOfReach)
    c.out_of_reach = most_draws_ >= most_tilted_draws_ ? reach_reason_ : tilted_reach_reason_;
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_
    << " inconclusive; intervals at level 1 - " << point_alpha_ << " (family alpha split over " << c.points_total
    << " points; a point holds when the interval's upper end is at or below the bound, is violated when its lower end "
       "exceeds it)";
  if (counted_ > 0) s << "; " << counted_ << " counted (exceedances, exact Clopper-Pearson interval)";
  if (support_ > 0)
    s << "; " << support_ << " decided exactly (threshold at or above the largest estimate, so P = 0; an exceedance "
      << "in the count there would refute that maximum)";
  if (tilted_ > 0)
    s << "; " << tilted_ << " by the tilted estimate (every draw in [0, R], R the Chernoff bound at the tilt; "
      << "Hoeffding's relative-entropy limits, exact in level for any law on [0, R])";
  if (!worst_label_.empty())
    s << "; largest (lower end)/bound " << worst_ratio_ << " at " << worst_label_ << "; largest estimate/bound "
      << tightest_ratio_ << " at " << tightest_label_;
  if (std::isfinite(c.power))
    s << "; power: every bound " << format_number(100 * c.power, 3)
      << " % tighter would have been caught at every sampled point (weakest point " << power_label_ << ")";
  else if (c.points_total > 0)
    s << "; no sampled point with a positive bound: power is not defined";
  if (std::isfinite(confirmed_margin_))
    s << "; sampled points hold with at least " << format_number(100 * confirmed_margin_, 3) << " % room (at "
      << margin_label_ << ")";
  else if (held_ > 0)
    s << "; every held point is exact (no sampled point holds, so no room is claimed)";
  if (c.trials_needed == kOutOfReach) s << "; out of reach: " << c.out_of_reach;
  else {
    if (most_draws_ > 0)
      s << "; about " << g3(most_draws_) << " draws per point would likely settle the open counted points (exact "
        << "Clopper-Pearson at the same frequency; " << reach_reason_ << ")";
    if (most_tilted_draws_ > 0) s << "; " << tilted_reach_reason_;
  }
  if (!inconclusive_reason_.empty()) s << "; " << inconclusive_reason_;
  for (const std::string& note : notes_) s << "; " << note;
  if (c.points_total == 0) s << "; no point was judged";
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
