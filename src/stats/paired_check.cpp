#include "stats/paired_check.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "io/format_number.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/look_spending.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

namespace {
constexpr double kHugeT = 1e300;  // a nonzero mean difference with zero spread
// The tails below sum the binomial terms in double from lgamma: at a million pairs lgamma(n + 1) ≈ 1.3e7 carries an
// absolute error near 2e-9 in each log term, far below what moves a tail across α.
constexpr std::int64_t kMaxPairs = 1'000'000;

// "inputs" → "input", "draws" → "draw".
std::string singular(const std::string& unit) {
  return !unit.empty() && unit.back() == 's' ? unit.substr(0, unit.size() - 1) : unit;
}

bool usable(double a, double b) { return std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0; }

// The fewest pairs for which some outcome reaches alpha: all above or none above, whichever is less likely at the
// boundary share r (r = ½: ⌈log2(1/alpha)⌉).
std::int64_t min_pairs(double alpha, double r) {
  if (r == 0.5) return sign_test_min_pairs(alpha);
  return static_cast<std::int64_t>(std::ceil(std::log(alpha) / std::log(std::min(r, 1 - r)) - 1e-12));
}

// The inputs at which the observed fraction `above/n` of pairs with A above B would reach significance: the normal
// approximation n' = (z / (2|f − ½|))², at least the exact minimum ⌈log2(1/α)⌉ and n + 1. An even split names no
// distance from ½; the count then is the one for a split half an input from even, (z·n)², a rough guide only (the
// reason text says so).
// With a boundary share r ≠ ½ the same, n' = z²·r(1 − r)/(f − r)².
std::int64_t inputs_to_settle(std::int64_t above, std::int64_t n, double alpha, double r) {
  const double f = static_cast<double>(above) / static_cast<double>(n);
  const double gap = std::max(std::abs(f - r), 0.5 / static_cast<double>(n));
  const double z = one_sided_critical_z(alpha);
  const double needed = std::ceil(z * z * (r * (1 - r)) / (gap * gap));
  return std::max<std::int64_t>({min_pairs(alpha, r), n + 1, needed >= 9e18 ? kOutOfReach - 1
                                                                           : static_cast<std::int64_t>(needed)});
}

// What an open point showed: k of n above, the share's Clopper–Pearson interval at the point's α (what the share
// behind the split may be), and what more inputs would do.
std::string open_reason(const std::string& label, std::int64_t above, std::int64_t n, std::int64_t needed,
                        double alpha, double r, const std::string& unit) {
  const ProportionInterval share = clopper_pearson(above, n, std::min(0.5, 2 * alpha));
  const bool even = static_cast<double>(above) == r * static_cast<double>(n);
  std::ostringstream s;
  s << "at " << label << " " << above << " of " << n << " " << unit << " have A above B";
  if (even) s << (r == 0.5 ? " (an even split)" : " (exactly the boundary share)");
  if (r == 0.5) s << ": neither significantly many nor few";
  else s << ": neither significantly more nor fewer than a share " << format_number(r, 3);
  s << ", more " << unit << " needed; the share above lies in [" << format_number(share.lower, 3) << ", "
    << format_number(share.upper, 3) << "] at this alpha";
  if (even)
    s << ", so this split names no count (about " << static_cast<double>(needed) << " if it lay half a pair off)";
  else
    s << " (about " << static_cast<double>(needed) << " " << unit << " at this split)";
  return s.str();
}
}  // namespace

PairedLogDifferences paired_log_differences(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("paired comparison: the arms have " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()) + " values");
  PairedLogDifferences out;
  RunningMoments moments;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!usable(a[i], b[i])) {
      ++out.nonfinite;
      continue;
    }
    moments.add(std::log(a[i]) - std::log(b[i]));
  }
  out.n = moments.count();
  out.mean = moments.mean();
  if (out.n >= 2) {
    out.standard_error = moments.standard_error();
    out.t = out.standard_error > 0 ? out.mean / out.standard_error
                                   : (out.mean == 0 ? 0.0 : std::copysign(kHugeT, out.mean));
    out.skewness = moments.central_moment(2) > 0 ? moments.skewness() : 0.0;
  }
  return out;
}

double one_sided_critical_t(double alpha, double degrees_of_freedom) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("significance level must lie in (0, 1)");
  return boost::math::quantile(boost::math::complement(boost::math::students_t(degrees_of_freedom), alpha));
}

double binomial_half_upper_tail(std::int64_t k, std::int64_t n) {
  if (n < 0 || n > kMaxPairs) throw std::invalid_argument("sign test: between 0 and 1e6 pairs supported");
  if (k <= 0) return 1;
  if (k > n) return 0;
  // Σ_{j ≥ k} C(n, j) 2^−n, summed from the far tail so small terms are not lost.
  double sum = 0;
  for (std::int64_t j = n; j >= k; --j)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) - n * std::log(2.0));
  return std::min(1.0, sum);
}

double binomial_upper_tail(std::int64_t k, std::int64_t n, double p) {
  if (p == 0.5) return binomial_half_upper_tail(k, n);
  if (n < 0 || n > kMaxPairs) throw std::invalid_argument("binomial test: between 0 and 1e6 pairs supported");
  if (!(p > 0 && p < 1)) throw std::invalid_argument("binomial test: p must lie in (0, 1)");
  if (k <= 0) return 1;
  if (k > n) return 0;
  double sum = 0;
  for (std::int64_t j = n; j >= k; --j)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) + j * std::log(p) +
                    (n - j) * std::log1p(-p));
  return std::min(1.0, sum);
}

std::int64_t binomial_critical_count(std::int64_t n, double alpha, double p) {
  if (p == 0.5) return sign_test_critical_count(n, alpha);
  if (n < 0 || n > kMaxPairs) throw std::invalid_argument("binomial test: between 0 and 1e6 pairs supported");
  if (!(p > 0 && p < 1)) throw std::invalid_argument("binomial test: p must lie in (0, 1)");
  double sum = 0;
  for (std::int64_t j = n; j >= 0; --j) {
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) + j * std::log(p) +
                    (n - j) * std::log1p(-p));
    if (std::min(1.0, sum) > alpha) return j + 1;
  }
  return 0;
}

std::int64_t sign_test_critical_count(std::int64_t n, double alpha) {
  if (n < 0 || n > kMaxPairs) throw std::invalid_argument("sign test: between 0 and 1e6 pairs supported");
  // The tail P(Bin ≥ k) grows as k falls: one pass from the top, in the order binomial_half_upper_tail sums (the same
  // bits), stopping at the first k whose tail passes alpha — linear in n, where a tail per k was quadratic.
  double sum = 0;
  for (std::int64_t j = n; j >= 0; --j) {
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) - n * std::log(2.0));
    if (std::min(1.0, sum) > alpha) return j + 1;
  }
  return 0;
}

std::int64_t sign_test_min_pairs(double alpha) {
  return static_cast<std::int64_t>(std::ceil(std::log2(1 / alpha) - 1e-12));
}

MedianInterval sign_test_median_interval(std::vector<double> values, double alpha) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  MedianInterval out;
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size(), h = n / 2;
  out.median = n % 2 ? values[h] : 0.5 * (values[h - 1] + values[h]);
  const std::int64_t k = sign_test_critical_count(static_cast<std::int64_t>(n), alpha);
  if (k > static_cast<std::int64_t>(n)) return out;
  // Above x_(k): at least k values lie below θ, so "median ≥ θ" is rejected at alpha; x_(n−k+1) mirrors it.
  out.high = values[static_cast<std::size_t>(k - 1)];
  out.low = values[n - static_cast<std::size_t>(k)];
  return out;
}

PairedClaimCheck::PairedClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points,
                                   Ties ties, std::string unit, double share)
    : claim_(std::move(claim)), where_(std::move(where)), unit_(std::move(unit)), share_(share),
      family_alpha_(family_alpha), point_alpha_(bonferroni_alpha(family_alpha, std::max<std::size_t>(points, 1))),
      split_(std::max<std::size_t>(points, 1)), ties_(ties) {
  if (!(share >= 0.5 && share < 1))
    throw std::invalid_argument("paired check: the claim's share must lie in [0.5, 1), got " + std::to_string(share));
}

double PairedClaimCheck::point_alpha(int look) const {
  return look < 0 ? point_alpha_ : bonferroni_alpha(look_alpha(family_alpha_, look), split_);
}

PointVerdict look_verdict(const PairedVerdict& v) {
  PointVerdict p;
  p.status = v.status;
  p.reliable = true;  // the binomial tail is exact: no gate
  p.sampled = true;
  p.power = v.power;
  p.trials_needed = v.status == Verdict::inconclusive ? v.inputs_needed : 0;
  return p;
}

PairedVerdict PairedClaimCheck::judge(const std::vector<double>& a, const std::vector<double>& b,
                                      const std::string& label, int look) {
  const double alpha = point_alpha(look), r = 1 - share_;
  deepest_look_ = std::max(deepest_look_, look);
  const PairedLogDifferences logs = paired_log_differences(a, b);
  PairedVerdict v;
  v.ratio = std::exp(logs.mean);
  std::vector<double> ratios;  // b_i / a_i of the usable pairs
  std::vector<double> a_over_b;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!usable(a[i], b[i])) continue;
    a_over_b.push_back(a[i] / b[i]);
    if (a[i] == b[i]) continue;  // a tie says nothing about which arm is lower
    ratios.push_back(b[i] / a[i]);
    ++v.n;
    if (a[i] > b[i]) ++v.above;
  }
  if (!a_over_b.empty()) {
    std::sort(a_over_b.begin(), a_over_b.end());
    const std::size_t h = a_over_b.size() / 2;
    v.median_ratio = a_over_b.size() % 2 ? a_over_b[h] : 0.5 * (a_over_b[h - 1] + a_over_b[h]);
  }
  if (logs.nonfinite > 0) {
    v.reason = std::to_string(logs.nonfinite) + " " + unit_ + " with a non-finite or non-positive figure at " + label;
  } else if (v.n == 0 && !a_over_b.empty() && ties_ == Ties::confirm) {
    v.status = Verdict::holds;  // A equals B on every input: "no larger than" holds exactly, nothing sampled
    ++held_;
    ++exact_ties_;
    return v;
  } else if (v.n > kMaxPairs) {
    throw std::invalid_argument("sign test: at most 1e6 pairs per point, got " + std::to_string(v.n));
  } else if (v.n < min_pairs(alpha, r)) {
    v.reason = "only " + std::to_string(v.n) + " untied " + unit_ + " at " + label + ": the sign test needs at least " +
               std::to_string(min_pairs(alpha, r)) + " to reach alpha " + format_number(alpha, 3);
    v.inputs_needed = min_pairs(alpha, r);
  }
  if (!v.reason.empty()) {
    ++inconclusive_;
    inconclusive_reason_ = v.reason;
    most_inputs_needed_ = std::max(most_inputs_needed_, v.inputs_needed);
    return v;
  }
  v.p_violated = binomial_upper_tail(v.above, v.n, r);
  v.p_holds = binomial_upper_tail(v.n - v.above, v.n, 1 - r);
  const std::int64_t k_crit = binomial_critical_count(v.n, alpha, r);
  std::sort(ratios.begin(), ratios.end());
  if (k_crit >= 1 && k_crit <= v.n) v.power = std::max(0.0, ratios[static_cast<std::size_t>(k_crit - 1)] - 1);
  if (v.p_violated <= alpha) {
    v.status = Verdict::violated;
    ++violated_;
  } else if (v.p_holds <= alpha) {
    v.status = Verdict::holds;
    ++held_;
  } else {
    ++inconclusive_;
    v.inputs_needed = inputs_to_settle(v.above, v.n, alpha, r);
    most_inputs_needed_ = std::max(most_inputs_needed_, v.inputs_needed);
    v.reason = open_reason(label, v.above, v.n, v.inputs_needed, alpha, r, unit_);
    inconclusive_reason_ = v.reason;
  }
  if (std::isfinite(v.power) && !(v.power <= power_))
    power_ = v.power, power_label_ = label;  // the weakest point's (NaN: none yet)
  const double fraction = static_cast<double>(v.above) / static_cast<double>(v.n);
  if (fraction > worst_fraction_) {
    worst_fraction_ = fraction;
    worst_ratio_ = v.ratio;
    worst_p_ = v.p_violated;
    worst_label_ = label;
  }
  return v;
}

Check PairedClaimCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  set_point_counts(c, held_, violated_, inconclusive_);
  c.statistic = std::max(0.0, worst_fraction_);
  c.critical = point_alpha_;
  if (!worst_label_.empty()) c.worst = {worst_label_, worst_fraction_, worst_p_};
  if (std::isfinite(power_)) c.power = power_;
  c.trials_needed = most_inputs_needed_;  // never kOutOfReach: no observed split proves a point unreachable
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_
    << " inconclusive; exact sign test of which arm is lower on each " << singular(unit_) << ", one-sided, alpha "
    << format_number(point_alpha_, 4) << " per point (family alpha " << format_number(family_alpha_, 4) << " split over "
    << split_ << " points; ";
  if (share_ == 0.5) s << "holds where A is below B on significantly many " << unit_ << ")";
  else
    s << "holds where A is below B on significantly more than " << format_number(100 * share_, 3) << " % of the "
      << unit_ << ", violated where on significantly fewer: binomial test at that share)";
  if (deepest_look_ >= 0)
    s << "; sequential: a point judged at look k (0 = the pilot, " << unit_ << " doubling per look) spends "
      << "6 alpha/(pi^2 (k+1)^2) of it, each look's test exact at its share, deepest look " << deepest_look_;
  if (!worst_label_.empty())
    s << "; largest share of " << unit_ << " with A above B " << format_number(worst_fraction_, 4) << " (P = "
      << format_number(worst_p_, 4) << ", geometric-mean ratio A/B " << format_number(worst_ratio_, 4) << ") at "
      << worst_label_;
  if (std::isfinite(power_))
    s << "; power: A inflated by " << format_number(100 * power_, 3) << " % at every point would have been caught"
      << " (weakest point " << power_label_ << ")";
  if (exact_ties_ > 0)
    s << "; " << exact_ties_ << " points hold exactly (A equals B on every " << singular(unit_) << ")";
  if (most_inputs_needed_ > 0)
    s << "; about " << most_inputs_needed_ << " " << unit_ << " per point would likely settle the open points";
  if (!inconclusive_reason_.empty()) s << "; " << inconclusive_reason_;
  if (c.points_total == 0) s << "; no point was judged";
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
