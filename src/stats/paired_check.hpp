#pragma once
// A one-sided claim "arm A's figure is below arm B's" judged on paired measurements: both arms measured on the
// same inputs (attention inputs, projection draws), so input-to-input variation cancels within each pair.
// Test: the exact sign test. Of the n pairs with both figures finite, positive and unequal, k have A above B; under
// the null "A above B and A below B are equally likely" k ~ Binomial(n, ½) whatever the distribution of the
// figures, so the level is exact without normality or symmetry (a paired t test on log differences, and a sign-flip
// permutation test of their mean, both exceed their level many times over when the differences are skewed: on
// centered lognormal differences at n = 15 the sign-flip test's one-sided level is 10–26× nominal at α = 0.01–0.002,
// measured). The claim judged is therefore "A is below B on most inputs": P(A > B) < ½. With the Bonferroni-split
// point α, a point is
//   violated      when P(Bin(n, ½) ≥ k) ≤ α      (A above B significantly often),
//   holds         when P(Bin(n, ½) ≤ k) ≤ α      (A below B significantly often),
//   inconclusive  otherwise, or when a figure is not finite and positive, or when n is too small for any outcome to
//                 reach α (2^−n > α): the detail says what was observed (k of n above) and about how many inputs
//                 would settle it. An observed even split never makes a point "out of reach": the share behind it may
//                 lie anywhere in its interval, so more inputs can settle it unless the share is exactly ½, which no
//                 finite sample shows (docs/judging.md#few-draws-the-sign-test).
// Sequential checks (judge's look ≥ 0): the point is judged at its look's share of α (stats/look_spending.hpp), split
// over the points; the binomial test is exact at that share, so the level holds over any number of looks.
// Ties (a_i = b_i) say nothing about which arm is lower and are left out. For a claim "A is no larger than B"
// (Ties::confirm) a point whose usable pairs all tie holds exactly (e.g. both figures floored at rounding).
// Power: the smallest factor 1 + ρ by which inflating every a_i would have made the point violated (the k_crit-th
// smallest b_i/a_i); the check reports the weakest judged point's ρ (the largest), and where. The geometric-mean and
// median ratios a/b are reported beside the verdict as descriptions, not tested.
// The claim's status: violated if any point is; holds if at least one point was judged and all hold; else
// inconclusive.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "stats/check.hpp"
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

// P(Binomial(n, ½) ≥ k), exactly (0 ≤ k ≤ n ≤ 1e6).
double binomial_half_upper_tail(std::int64_t k, std::int64_t n);
// P(Binomial(n, p) ≥ k) for 0 < p < 1 (p = ½: binomial_half_upper_tail, the same bits).
double binomial_upper_tail(std::int64_t k, std::int64_t n, double p);
// The smallest k with P(Bin(n, p) ≥ k) ≤ alpha; n + 1 when none (p = ½: sign_test_critical_count).
std::int64_t binomial_critical_count(std::int64_t n, double alpha, double p);
// The smallest k with P(Bin(n, ½) ≥ k) ≤ alpha; n + 1 when none.
std::int64_t sign_test_critical_count(std::int64_t n, double alpha);
// The smallest number of pairs for which the most extreme outcome reaches alpha: ⌈log2(1/alpha)⌉.
std::int64_t sign_test_min_pairs(double alpha);

// The distribution-free interval for the median that inverts the one-sided sign test at `alpha` on each side: with
// k = sign_test_critical_count(n, alpha) over the n finite values, [x_(n−k+1), x_(k)] (order statistics, 1-based),
// coverage at least 1 − 2·alpha for any continuous distribution. {NaN, NaN} when n < sign_test_min_pairs(alpha).
struct MedianInterval {
  double median = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
};
MedianInterval sign_test_median_interval(std::vector<double> values, double alpha);

struct PairedVerdict {
  Verdict status = Verdict::inconclusive;
  std::int64_t n = 0;          // pairs judged (ties and unusable pairs excluded)
  std::int64_t above = 0;      // pairs with a_i > b_i
  double p_violated = 1;       // P(Bin(n, ½) ≥ above)
  double p_holds = 1;          // P(Bin(n, ½) ≤ above)
  double ratio = std::numeric_limits<double>::quiet_NaN();         // geometric-mean ratio a/b
  double median_ratio = std::numeric_limits<double>::quiet_NaN();  // median of a_i/b_i
  double power = std::numeric_limits<double>::quiet_NaN();         // ρ: inflating A by 1 + ρ would violate
  std::int64_t inputs_needed = 0;  // inconclusive: inputs that would likely settle it at the observed split
  std::string reason;              // why inconclusive, with what was observed (empty otherwise)
};

// The verdict as the looks driver reads it (mc/sequential_looks.hpp): the test is exact, so always reliable; an open
// point asks for inputs_needed (0 where a figure is not finite: no input count mends that).
PointVerdict look_verdict(const PairedVerdict& v);

// A claim with a margin, "A is below B on more than a share q of the pairs" (q > ½), is judged the same way against
// Binomial(n, 1 − q): violated when P(Bin(n, 1 − q) ≥ k) ≤ α (A above B on significantly more than 1 − q of the
// pairs), holds when P(Bin(n, 1 − q) ≤ k) ≤ α; exact at the boundary share, so the level is α as for q = ½. A share
// of exactly ½ behind the data, which no number of pairs could place on either side of ½, lies inside the violated
// region of such a claim (docs/judging.md#few-draws-the-sign-test).
class PairedClaimCheck {
 public:
  enum class Ties { excluded, confirm };  // confirm: a point of ties only holds ("A is no larger than B")
  // unit: what a pair is in the texts ("inputs", "draws"). share: q, the claim's share of pairs with A below B (½:
  // "on most pairs"); throws std::invalid_argument outside [½, 1).
  PairedClaimCheck(std::string claim, std::string where, double family_alpha, std::size_t points,
                   Ties ties = Ties::excluded, std::string unit = "inputs", double share = 0.5);
  // look ≥ 0: the look of a sequential check this point's inputs come from; −1: a fixed-size run (the whole α).
  PairedVerdict judge(const std::vector<double>& a, const std::vector<double>& b, const std::string& label,
                      int look = -1);
  Check result() const;
  double point_alpha(int look = -1) const;

 private:
  std::string claim_, where_, unit_;
  double share_;  // q; the boundary share of pairs with A above B is 1 − q
  double family_alpha_, point_alpha_;
  std::size_t split_;  // the points the family α is split over (Bonferroni)
  Ties ties_;
  int deepest_look_ = -1;  // the latest look a judged point came from (−1: none was sequential)
  std::int64_t exact_ties_ = 0;
  std::int64_t held_ = 0, violated_ = 0, inconclusive_ = 0, most_inputs_needed_ = 0;
  double worst_fraction_ = -1, worst_ratio_ = 0, worst_p_ = 1, power_ = std::numeric_limits<double>::quiet_NaN();
  std::string worst_label_, inconclusive_reason_, power_label_;
};

}  // namespace favorlab
