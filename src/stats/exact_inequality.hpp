#pragma once
// A claim judged on exact values (closed forms, no sampling): at each point it holds where value ≤ bound + allowance,
// the allowance a rounding tolerance in units of K², the kernel value squared; the statistic is the worst margin
// (value − bound)/K². The check's verdict comes from the counts (exact_check), its power is the tightest margin plus
// the tolerance: a bound tightened by more than that would fail at the tightest point.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include "stats/check.hpp"

namespace favorlab {

// Relative slack for floating-point rounding in an estimate (sums of m products of exponentials) or a closed form:
// far above double rounding (~1e-15), far below any sampling error a check could see. Only matters where an
// estimator is exact or two closed forms coincide.
inline constexpr double kRoundingAllowance = 1e-12;

class ExactInequality {
 public:
  ExactInequality(std::string claim, std::string where) : claim_(std::move(claim)), where_(std::move(where)) {}
  // Returns "holds" or "violated".
  Verdict judge(double value, double bound, double k2, const std::string& label, double z_norm) {
    const double excess = value - bound, allowance = kRoundingAllowance * k2;
    const bool bad = excess > allowance;
    ++(bad ? violated_ : held_);
    if (bad) {
      z_min_ = std::min(z_min_, z_norm);
      z_max_ = std::max(z_max_, z_norm);
    }
    if (worst_label_.empty() || excess / k2 > worst_) {
      worst_ = excess / k2;
      worst_label_ = label;
    }
    return bad ? Verdict::violated : Verdict::holds;
  }
  Check result() const {
    std::ostringstream s;
    s << held_ << " points hold, " << violated_ << " violated, " << kClosedFormsPhrase << ", rounding allowance "
      << kRoundingAllowance << " K^2); largest (MSE - bound)/K^2 = " << worst_ << " at " << worst_label_;
    if (violated_ > 0) s << "; violated for |z| in [" << z_min_ << ", " << z_max_ << "]";
    // A bound tightened by more than (allowance − largest excess)·K² would fail at the tightest point.
    return exact_check(claim_, where_, static_cast<std::int64_t>(held_), static_cast<std::int64_t>(violated_), worst_,
                       s.str(), std::max(0.0, kRoundingAllowance - worst_));
  }

 private:
  std::string claim_, where_;
  std::size_t held_ = 0, violated_ = 0;
  double worst_ = 0, z_min_ = std::numeric_limits<double>::infinity(), z_max_ = 0;
  std::string worst_label_;
};

}  // namespace favorlab
