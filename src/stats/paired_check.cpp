#include "stats/paired_check.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "io/format_number.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

namespace {
constexpr double kHugeT = 1e300;  // a nonzero mean difference with zero spread

}  // namespace

PairedLogDifferences paired_log_differences(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("paired comparison: the arms have " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()) + " values");
  PairedLogDifferences out;
  RunningMoments moments;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool usable = std::isfinite(a[i]) && std::isfinite(b[i]) && a[i] > 0 && b[i] > 0;
    if (!usable) {
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

double skewness_limit(std::int64_t n, double alpha) {
  // Var(g1) of n normal draws, exactly: 6(n − 2)/((n + 1)(n + 3)) (D'Agostino & Pearson 1973).
  const double nd = static_cast<double>(n);
  return two_sided_critical_z(alpha) * std::sqrt(6 * (nd - 2) / ((nd + 1) * (nd + 3)));
}

PairedClaimCheck::PairedClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points)
    : claim_(std::move(claim)), where_(std::move(where)), family_alpha_(family_alpha),
      point_alpha_(bonferroni_alpha(family_alpha, points)) {}

PairedVerdict PairedClaimCheck::judge(const std::vector<double>& a, const std::vector<double>& b,
                                      const std::string& label) {
  const PairedLogDifferences p = paired_log_differences(a, b);
  PairedVerdict v;
  v.t = p.t;
  v.ratio = std::exp(p.mean);
  v.critical_t = p.n >= 3 ? one_sided_critical_t(point_alpha_, static_cast<double>(p.n - 1))
                          : std::numeric_limits<double>::quiet_NaN();
  if (p.nonfinite > 0) {
    v.reason = std::to_string(p.nonfinite) + " inputs with a non-finite or non-positive figure at " + label;
  } else if (p.n < 3) {
    v.reason = "only " + std::to_string(p.n) + " inputs at " + label +
               " (a standard error needs at least 3 inputs: 2 degrees of freedom)";
  } else if (std::abs(p.skewness) > skewness_limit(p.n, family_alpha_)) {
    v.reason = "paired log differences significantly skewed at " + label + " (g1 = " + format_number(p.skewness, 4) +
               ", normal limit " + format_number(skewness_limit(p.n, family_alpha_), 4) + " for " + std::to_string(p.n) +
               " inputs): the t test's level is not trustworthy";
  }
  if (!v.reason.empty()) {
    v.status = "inconclusive";
    ++inconclusive_;
    inconclusive_reason_ = v.reason;
    return v;
  }
  v.status = p.t > v.critical_t ? "violated" : "holds";
  if (v.status == "holds") ++held_;
  if (v.status == "violated") ++violated_;
  if (v.status == "holds" && p.t < -v.critical_t) ++confirmed_;
  if (worst_label_.empty() || p.t > worst_t_) {
    worst_t_ = p.t;
    worst_critical_ = v.critical_t;
    worst_ratio_ = v.ratio;
    worst_label_ = label;
  }
  return v;
}

Check PairedClaimCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  c.status = violated_ > 0 ? "violated" : inconclusive_ > 0 ? "inconclusive" : "holds";
  c.statistic = worst_t_;
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_
    << " inconclusive; paired t test of log differences, one-sided, alpha " << format_number(point_alpha_, 4)
    << " per point (family alpha " << format_number(family_alpha_, 4) << " split over " << (held_ + violated_ + inconclusive_)
    << " points)";
  if (!worst_label_.empty())
    s << "; largest t " << format_number(worst_t_, 4) << " (critical " << format_number(worst_critical_, 4) << ", geometric-mean ratio "
      << format_number(worst_ratio_, 4) << ") at " << worst_label_;
  s << "; " << confirmed_ << " points confirm the inequality significantly (t < -critical)";
  if (!inconclusive_reason_.empty()) s << "; " << inconclusive_reason_;
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
