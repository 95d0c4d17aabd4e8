#pragma once
// The claim "|a| ≤ |b|" (e.g. "the relative bias at the largest d is no larger than at the smallest") judged from
// independent estimates â, b̂ with standard errors s_a, s_b, through the statistic |â| − |b̂| against
// z·√(s_a² + s_b²).
// Level: |a| > |b| is the union of {a − b > 0 and a + b > 0} and {a − b < 0 and a + b < 0}, so "violated" is the
// union of two intersection–union tests, each of level α/2 when z is the one-sided quantile at α/2 (both a ± b have
// variance s_a² + s_b²); "holds" is the mirror image. Hence the point α is split in two. At the old split (z at α)
// the false-violation rate reached 2α: with a = b = 0 and s_b ≪ s_a, |â| > z·s_a happens with probability 2α.
// Non-finite figures, skewness and trial requirements are handled as in ClaimCheck.
#include <cstdint>
#include <string>

#include "stats/claim_check.hpp"

namespace favorlab {

class AbsoluteAtMostCheck {
 public:
  AbsoluteAtMostCheck(std::string claim, std::string where, double family_alpha, std::size_t points);
  PointVerdict judge(double a_hat, double se_a, double b_hat, double se_b, double skewness, std::int64_t trials,
                     std::int64_t nonfinite, const std::string& label);
  Check result() const { return check_.result(); }

 private:
  ClaimCheck check_;
};

}  // namespace favorlab
