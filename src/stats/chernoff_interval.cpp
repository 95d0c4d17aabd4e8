#include "stats/chernoff_interval.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "io/format_number.hpp"
#include "stats/look_spending.hpp"
#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {

constexpr std::int64_t kMostTrials = 1'000'000'000'000'000;  // as mc/sequential_looks.hpp's kMaxTrials
// A bracket of 24 in ln λ shrinks to 24 · 0.618^52 ≈ 3e-10; the minimised function is flat at its minimum, so its
// value is then exact to about the square of that.
constexpr int kGoldenSteps = 52;
constexpr double kHalfBracket = 12;

// e^y − 1 − y without cancellation: its series where |y| is small (the terms fall by |y|/k, so 16 of them leave a
// relative error below 1e-19 at |y| < 0.5).
double exp_excess(double y) {
  if (std::abs(y) >= 0.5) return std::expm1(y) - y;
  double term = y * y / 2, sum = term;
  for (int k = 3; k <= 18; ++k) {
    term *= y / k;
    sum += term;
  }
  return sum;
}

// The minimiser of a unimodal f on [lo, hi] by golden sections; returns f there. Any point's value is a valid bound
// for the callers (a Chernoff bound holds at every λ), so stopping short only loosens it.
template <class F>
double golden_minimum(F f, double lo, double hi) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, x1 = b - r * (b - a), x2 = a + r * (b - a), f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < kGoldenSteps; ++i) {
    if (f1 <= f2) {
      b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a), f1 = f(x1);
    } else {
      a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a), f2 = f(x2);
    }
  }
  return std::min(f1, f2);
}

}  // namespace

ChernoffDeviation::ChernoffDeviation(std::vector<double> values, std::vector<double> probabilities, double mean)
    : probabilities_(std::move(probabilities)) {
  if (values.empty() || values.size() != probabilities_.size())
    throw std::invalid_argument("ChernoffDeviation: one probability per value needed");
  double total = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]) || !std::isfinite(probabilities_[i]) || probabilities_[i] < 0)
      throw std::invalid_argument("ChernoffDeviation: values and probabilities must be finite, probabilities >= 0");
    total += probabilities_[i];
  }
  if (!(std::abs(total - 1) <= 1e-9)) throw std::invalid_argument("ChernoffDeviation: probabilities must sum to 1");
  for (double& p : probabilities_) p /= total;
  if (std::isnan(mean)) {
    mean = 0;
    for (std::size_t i = 0; i < values.size(); ++i) mean += probabilities_[i] * values[i];
  }
  if (!std::isfinite(mean)) throw std::invalid_argument("ChernoffDeviation: the mean must be finite");
  mean_ = mean;
  centred_.resize(values.size());
  double second = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    centred_[i] = values[i] - mean_;
    first_moment_ += probabilities_[i] * centred_[i];
    second += probabilities_[i] * centred_[i] * centred_[i];
  }
  sd_ = std::sqrt(std::max(0.0, second - first_moment_ * first_moment_));
}

double ChernoffDeviation::cgf(double lambda) const { return cgf_signed(lambda, 1); }

// ln Σ p e^{y}, y = sign·λ·(x − μ). Where no exponent can overflow, as log1p(sign·λ·Σ p (x − μ) + Σ p (e^y − 1 − y)):
// ψ is of order λ²σ² near the optimum, which ln Σ p e^y would bury under the rounding of 1. Otherwise log-sum-exp.
double ChernoffDeviation::cgf_signed(double lambda, double sign) const {
  double top = -std::numeric_limits<double>::infinity();
  for (double x : centred_) top = std::max(top, sign * lambda * x);
  if (top <= 500) {
    double excess = 0;
    for (std::size_t i = 0; i < centred_.size(); ++i) excess += probabilities_[i] * exp_excess(sign * lambda * centred_[i]);
    return std::log1p(sign * lambda * first_moment_ + excess);
  }
  double sum = 0;
  for (std::size_t i = 0; i < centred_.size(); ++i) sum += probabilities_[i] * std::exp(sign * lambda * centred_[i] - top);
  return top + std::log(sum);
}

// inf over λ > 0 of (ψ(±λ) + ln(1/tail)/n)/λ, searched in ln λ around the Gaussian optimum √(2a)/σ. A law with no
// spread has no deviation.
double ChernoffDeviation::deviation(std::int64_t n, double tail, double sign) const {
  if (n < 1) throw std::invalid_argument("ChernoffDeviation: at least one draw needed");
  if (!(tail > 0 && tail < 1)) throw std::invalid_argument("ChernoffDeviation: the tail must lie in (0, 1)");
  if (!(sd_ > 0)) return 0;
  for (const Memo& m : memo_)
    if (m.n == n && m.tail == tail && m.sign == sign) return m.value;
  const double a = -std::log(tail) / static_cast<double>(n), centre = std::log(std::sqrt(2 * a) / sd_);
  const double value = golden_minimum(
      [&](double t) {
        const double lambda = std::exp(t);
        return (cgf_signed(lambda, sign) + a) / lambda;
      },
      centre - kHalfBracket, centre + kHalfBracket);
  if (memo_.size() >= 16) memo_.erase(memo_.begin());
  memo_.push_back({n, tail, sign, value});
  return value;
}

double ChernoffDeviation::upper(std::int64_t n, double tail) const { return deviation(n, tail, 1); }
double ChernoffDeviation::lower(std::int64_t n, double tail) const { return deviation(n, tail, -1); }

// deviation(n) ≤ c ⇔ n · I(c) ≥ ln(1/tail), I(c) = sup_λ (λc − ψ(λ)) the rate function: one concave maximisation
// per side gives the count (to the searches' rounding: an estimate of what would settle a point).
std::int64_t ChernoffDeviation::trials_to_fit(double up, double down, double tail, std::int64_t from) const {
  if (!(up > 0) || !(down > 0)) return kOutOfReach;
  if (!(sd_ > 0)) return std::max<std::int64_t>(from, 1);
  const double log_tail = -std::log(tail);
  std::int64_t n = std::max<std::int64_t>(from, 1);
  for (const double sign : {1.0, -1.0}) {
    const double c = sign > 0 ? up : down;
    if (std::isinf(c)) continue;
    const double centre = std::log(c / (sd_ * sd_));
    const double rate = -golden_minimum([&](double t) { const double l = std::exp(t); return cgf_signed(l, sign) - l * c; },
                                        centre - kHalfBracket, centre + kHalfBracket);
    if (!(rate > 0)) return kOutOfReach;
    const double need = std::ceil(log_tail / rate);
    if (!(need < static_cast<double>(kMostTrials))) return kOutOfReach;
    n = std::max(n, static_cast<std::int64_t>(need));
  }
  return n;
}

ChernoffMeanCheck::ChernoffMeanCheck(std::string claim, std::string where, double family_alpha, std::size_t points,
                                     double equivalence_margin)
    : claim_(std::move(claim)), where_(std::move(where)), family_alpha_(family_alpha), margin_(equivalence_margin),
      split_(std::max<std::size_t>(points, 1)) {
  if (!(family_alpha > 0 && family_alpha < 1)) throw std::invalid_argument("ChernoffMeanCheck: alpha must lie in (0, 1)");
  if (!(equivalence_margin > 0)) throw std::invalid_argument("ChernoffMeanCheck: the margin must be positive");
}

double ChernoffMeanCheck::point_alpha(int look) const {
  return bonferroni_alpha(look < 0 ? family_alpha_ : look_alpha(family_alpha_, look), split_);
}

ChernoffMeanCheck::Interval ChernoffMeanCheck::interval(const ChernoffDeviation& law, const ChernoffEvidence& p) const {
  const double tail = point_alpha(p.look) / 2;
  return {law.upper(p.trials, tail), law.lower(p.trials, tail)};
}

PointVerdict ChernoffMeanCheck::judge(const ChernoffDeviation& law, const ChernoffEvidence& p) {
  PointVerdict v;
  const double d = p.empirical - p.theory, a = p.allowance, scale = std::abs(p.theory);
  if (!std::isfinite(p.empirical) || !std::isfinite(p.theory) || !std::isfinite(a) || p.trials < 1) {
    ++inconclusive_;
    nonfinite_reason_ = "a non-finite estimate or theory at " + p.label;
    return v;
  }
  deepest_look_ = std::max(deepest_look_, p.look);
  const Interval c = interval(law, p);
  const double se = law.sd() / std::sqrt(static_cast<double>(p.trials));
  if (std::abs(d) > a) v.z = se > 0 ? d / se : std::copysign(1e300, d);
  v.reliable = true;
  v.sampled = std::max(c.above, c.below) > a;
  const double band = margin_ * scale + a, tail = point_alpha(p.look) / 2;
  if (d - a > c.above || -d - a > c.below) {
    v.status = Verdict::violated;
    ++violated_;
  } else if (c.above - d <= band && c.below + d <= band) {
    v.status = Verdict::holds;
    ++held_;
  } else {
    const double inf = std::numeric_limits<double>::infinity();
    v.trials_needed = std::abs(d) < band ? law.trials_to_fit(band + d, band - d, tail, p.trials)
                      : d > 0            ? law.trials_to_fit(d - a, inf, tail, p.trials)
                                         : law.trials_to_fit(inf, -d - a, tail, p.trials);
    ++inconclusive_;
    ++open_;
    most_trials_to_settle_ = std::max(most_trials_to_settle_, v.trials_needed);
  }
  if (scale > 0) {
    v.power = (std::max(c.above - d, c.below + d) + a) / scale;
    if (!(v.power <= power_)) power_ = v.power, power_label_ = p.label;
  }
  if (worst_label_.empty() || std::abs(v.z) > std::abs(worst_z_)) {
    worst_z_ = v.z;
    worst_label_ = p.label;
    worst_margin_ = (band - std::max(c.above - d, c.below + d)) / (scale > 0 ? scale : 1);
  }
  return v;
}

Check ChernoffMeanCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  set_point_counts(c, held_, violated_, inconclusive_);
  c.statistic = worst_z_;
  c.worst = {worst_label_, worst_z_, worst_margin_};
  if (std::isfinite(power_)) c.power = power_;
  c.margin = margin_;
  c.trials_needed = most_trials_to_settle_;
  if (c.trials_needed == kOutOfReach)
    c.out_of_reach = "difference at the rounding allowance or the margin: no trial count settles it";
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_ << " inconclusive; equivalence within +-"
    << format_number(100 * margin_, 3) << " % of the theory, judged by Chernoff intervals from the exact law of one "
    << "draw (a bound at every trial count, no normal approximation or skewness gate): holds where the interval "
    << "lies inside the margin, violated where it excludes the theory (family alpha " << format_number(family_alpha_, 3)
    << " split over " << split_ << " points, half per tail)";
  if (deepest_look_ >= 0)
    s << "; sequential: a point judged at look k (0 = the pilot, trials doubling per look) spends 6 alpha/(pi^2 (k+1)^2) "
      << "of it, deepest look " << deepest_look_;
  if (!worst_label_.empty()) s << "; largest |z| " << format_number(std::abs(worst_z_), 4) << " at " << worst_label_;
  if (std::isfinite(power_))
    s << "; power: a theory off by " << format_number(100 * power_, 3) << " % would have been caught at every judged "
      << "point (weakest at " << power_label_ << ")";
  if (open_ > 0) {
    s << "; " << open_ << " points neither confirm nor refute the claim";
    if (most_trials_to_settle_ == kOutOfReach) s << " (some are out of reach: the difference is at the margin)";
    else s << " (about " << static_cast<double>(most_trials_to_settle_) << " trials per point would likely settle them)";
  }
  if (!nonfinite_reason_.empty()) s << "; " << nonfinite_reason_;
  if (c.points_total == 0) s << "; no point was judged";
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
