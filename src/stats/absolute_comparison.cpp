#include "stats/absolute_comparison.hpp"

#include <algorithm>
#include <cmath>

namespace favorlab {

AbsoluteAtMostCheck::AbsoluteAtMostCheck(std::string claim, std::string where, double family_alpha,
                                         std::size_t points)
    : check_(std::move(claim), std::move(where), family_alpha, 2 * std::max<std::size_t>(points, 1),
             ClaimCheck::Sides::upper) {}

PointVerdict AbsoluteAtMostCheck::judge(double a_hat, double se_a, double b_hat, double se_b, double skewness,
                                        std::int64_t trials, std::int64_t nonfinite, const std::string& label) {
  PointEvidence e{std::abs(a_hat), std::abs(b_hat), std::hypot(se_a, se_b), 1e-12, skewness, trials, nonfinite, label};
  return check_.judge(e);
}

}  // namespace favorlab
