#pragma once
// A one-sided claim "arm A's figure is at most arm B's" judged on paired measurements: both arms measured on the
// same inputs (attention inputs, seeds), so input-to-input variation cancels in the differences.
// Statistic: the paired differences of logs, D_i = log a_i − log b_i (a ratio scale: MSEs span decades), their mean D̄,
// standard error s/√n and t = D̄/(s/√n). The critical value is Student's t with n − 1 degrees of freedom at the
// Bonferroni-split α (one-sided), exact when the D_i are normal — with 15 inputs the z quantile would understate the
// critical value by ~30 % at α = 1e-4. A point is
//   violated      when t > t_crit (A significantly above B),
//   holds         otherwise (and "confirms" the claim when t < −t_crit),
//   inconclusive  when a figure is not finite and positive (log undefined), when n < 3 (an SE with fewer than two
//                 degrees of freedom is no SE), or when the D_i are significantly skewed — the sample skewness g1
//                 beyond its normal-theory spread z_{1−α/2}·√(6(n−2)/((n+1)(n+3))) at the family α — because the t
//                 test's level then no longer holds (its Edgeworth error grows with the skewness).
// The claim's status: violated if any conclusive point is; otherwise inconclusive if any point is; otherwise holds.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/claim_check.hpp"

namespace favorlab {

struct PairedLogDifferences {
  std::int64_t n = 0;          // pairs used (all pairs, when every value is finite and positive)
  std::int64_t nonfinite = 0;  // pairs with a value that is NaN, ±Inf or ≤ 0
  double mean = 0;             // D̄ = mean of log a_i − log b_i
  double standard_error = 0;   // s/√n (sample s, n − 1)
  double t = 0;                // D̄ / SE (±huge when SE = 0 and D̄ ≠ 0)
  double skewness = 0;         // sample g1 of the D_i (biased moments)
};

// Throws std::invalid_argument when a and b differ in length.
PairedLogDifferences paired_log_differences(const std::vector<double>& a, const std::vector<double>& b);

// Student's t quantile: t with P(T_df > t) = alpha.
double one_sided_critical_t(double alpha, double degrees_of_freedom);
// The largest |g1| of n normal draws that is not significant at level alpha (two-sided).
double skewness_limit(std::int64_t n, double alpha);

struct PairedVerdict {
  std::string status;
  double t = 0;
  double critical_t = 0;   // NaN where n < 3
  double ratio = 0;        // exp(D̄): the geometric-mean ratio a/b
  std::string reason;      // why inconclusive (empty otherwise)
};

class PairedClaimCheck {
 public:
  PairedClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points);
  PairedVerdict judge(const std::vector<double>& a, const std::vector<double>& b, const std::string& label);
  Check result() const;
  double point_alpha() const { return point_alpha_; }

 private:
  std::string claim_, where_;
  double family_alpha_, point_alpha_;
  std::size_t held_ = 0, violated_ = 0, inconclusive_ = 0, confirmed_ = 0;
  double worst_t_ = 0, worst_critical_ = 0, worst_ratio_ = 0;
  std::string worst_label_, inconclusive_reason_;
};

}  // namespace favorlab
