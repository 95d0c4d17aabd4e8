#include "stats/either_check.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "io/format_number.hpp"

namespace favorlab {

EitherCheck::EitherCheck(std::string claim, std::string where, std::string first, std::string second)
    : claim_(std::move(claim)), where_(std::move(where)), first_(std::move(first)), second_(std::move(second)) {}

Verdict EitherCheck::add(const PointVerdict& first, const PointVerdict& second, const std::string& label) {
  const bool first_holds = first.status == Verdict::holds, second_holds = second.status == Verdict::holds;
  Verdict v = Verdict::inconclusive;
  if (first.status == Verdict::violated || second.status == Verdict::violated) {
    v = Verdict::violated;
    ++violated_;
    if (violated_label_.empty()) violated_label_ = label;
  } else if (first_holds || second_holds) {
    v = Verdict::holds;
    ++held_;
    held_both_ += first_holds && second_holds;
    held_first_only_ += first_holds && !second_holds;
    held_second_only_ += second_holds && !first_holds;
  } else {
    ++inconclusive_;
    if (open_label_.empty()) open_label_ = label;
    // Either method settling the point settles it: the fewer trials of the two (0 = that method gave no figure).
    std::int64_t need = 0;
    for (std::int64_t t : {first.trials_needed, second.trials_needed})
      if (t > 0) need = need == 0 ? t : std::min(need, t);
    most_trials_to_settle_ = std::max(most_trials_to_settle_, need);
  }
  // The deviation this point would have caught: the smaller of the reliable methods' (either would report it),
  // from the sampled methods where one is (a method exact to rounding says nothing about sampling power).
  const auto counts = [](const PointVerdict& p) { return p.reliable && std::isfinite(p.power); };
  const bool sampled = (counts(first) && first.sampled) || (counts(second) && second.sampled);
  double point_power = std::numeric_limits<double>::quiet_NaN();
  for (const PointVerdict* p : {&first, &second})
    if (counts(*p) && (p->sampled || !sampled) && !(point_power <= p->power)) point_power = p->power;
  if (std::isfinite(point_power)) {
    if (sampled && !sampled_power_) {
      sampled_power_ = true;
      power_ = std::numeric_limits<double>::quiet_NaN();
    }
    if ((sampled || !sampled_power_) && !(point_power <= power_)) {
      power_ = point_power;
      power_label_ = label;
    }
  }
  return v;
}

EitherCheck plain_or_importance_sampled(const std::string& claim, const std::string& where, std::int64_t trials) {
  return EitherCheck(claim + ", plain or importance-sampled",
                     where + ", plain Monte Carlo or importance sampling (" + std::to_string(trials) +
                         " trials per point)",
                     "plain Monte Carlo", "importance sampling");
}

Check EitherCheck::result() const {
  Check c;
  c.claim = claim_;
  c.where = where_;
  set_point_counts(c, held_, violated_, inconclusive_);
  if (std::isfinite(power_)) c.power = power_;
  c.trials_needed = most_trials_to_settle_;
  if (c.trials_needed == kOutOfReach) c.out_of_reach = "neither method settles some points at any trial count";
  c.worst = {!violated_label_.empty() ? violated_label_ : !open_label_.empty() ? open_label_ : power_label_,
             std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  std::ostringstream s;
  s << held_ << " points hold, " << violated_ << " violated, " << inconclusive_ << " inconclusive; per point: holds "
    << "where " << first_ << " or " << second_ << " confirms the claim and neither refutes it, violated where either "
    << "refutes it (each method at its own family alpha, so this line's false-verdict rate is at most their sum); held "
    << "by " << first_ << " alone " << held_first_only_ << ", by " << second_ << " alone " << held_second_only_
    << ", by both " << held_both_;
  if (!violated_label_.empty()) s << "; first violated at " << violated_label_;
  if (std::isfinite(power_))
    s << "; power: a theory off by " << format_number(100 * power_, 3) << " % would have been caught by one method "
      << (sampled_power_ ? "at every sampled point" : kRoundingPowerPhrase) << " (weakest at " << power_label_ << ")";
  if (inconclusive_ > 0) {
    s << "; " << inconclusive_ << " points open under both methods (first at " << open_label_ << ")";
    if (most_trials_to_settle_ == kOutOfReach) s << ", some out of reach for both";
    else if (most_trials_to_settle_ > 0)
      s << ", about " << static_cast<double>(most_trials_to_settle_) << " trials per point of whichever method needs "
        << "fewer would likely settle them";
  }
  if (c.points_total == 0) s << "; no point was judged";
  c.detail = s.str();
  return c;
}

}  // namespace favorlab
