#pragma once
// The mean of n draws from a known discrete law, judged without a normal approximation
// (docs/theory.md#a-chernoff-interval-for-the-mean-order).
// With ψ(λ) = ln E e^{λ(X − μ)}, the cumulant generating function of the centred law, Markov's inequality gives for
// every λ > 0 and every n
//   P(X̄ − μ ≥ c) ≤ exp(n (ψ(λ) − λc)),
// so X̄ − μ ≥ c has probability at most `tail` once c ≥ (ψ(λ) + ln(1/tail)/n)/λ for some λ; the smallest such c
// (the infimum over λ, a unimodal function of λ) is the upper deviation. The lower one is the same with −X. Any λ
// gives a valid bound, so a minimisation that stops short only widens the interval; no skewness gate is needed and the
// level holds at every n, however heavy the tail. It is a bound for draws from this law and from any shift of it: the
// law of X̄ − μ is what it bounds. Where a z interval needs n ≫ γ² for its level, this one pays for the skewness in
// its width instead: at the order of a permutation of 128 (skewness 335) its upper deviation is 1.8× z·SE at 10⁶
// draws and 1.15× at 6.4·10⁷ (docs/theory.md).
//
// ChernoffMeanCheck judges equality claims "mean = theory" at many points with these intervals, as ClaimCheck does
// with z intervals (docs/judging.md#verdicts): with d = X̄ − theory, the interval on the mean [X̄ − c⁺, X̄ + c⁻] at
// level 1 − α_point (α_point/2 per tail), the rounding allowance a and band = δ·|theory| + a,
//   violated   d − a > c⁺  or  −d − a > c⁻          (the interval excludes the theory beyond rounding)
//   holds      c⁺ − d ≤ band  and  c⁻ + d ≤ band     (the interval lies inside theory ± δ|theory|)
//   inconclusive otherwise, with the trials at which the interval would settle if d persisted.
// Power at a point: (max(c⁺ − d, c⁻ + d) + a)/|theory|, the deviation of the theory caught on either side; the
// check's is the weakest point's. Looks (PointEvidence-style look ≥ 0) spend stats/look_spending.hpp's shares.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "stats/check.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

class ChernoffDeviation {
 public:
  // values and probabilities of the atoms (probabilities ≥ 0, summing to 1 within 1e-9, renormalised); mean: the
  // law's mean (exact where it is known; NaN: computed from the atoms). Throws std::invalid_argument on an empty,
  // mismatched, non-finite or negative law.
  ChernoffDeviation(std::vector<double> values, std::vector<double> probabilities,
                    double mean = std::numeric_limits<double>::quiet_NaN());

  double mean() const { return mean_; }
  double sd() const { return sd_; }
  // c with P(X̄ − μ ≥ c) ≤ tail (upper) or P(μ − X̄ ≥ c) ≤ tail (lower) for the mean of n draws; tail in (0, 1).
  double upper(std::int64_t n, double tail) const;
  double lower(std::int64_t n, double tail) const;
  // The fewest trials n ≥ from with upper(n, tail) ≤ up and lower(n, tail) ≤ down (kOutOfReach if none up to 1e15,
  // or a gap ≤ 0). Both deviations fall as n grows, so a doubling search and bisection find it.
  std::int64_t trials_to_fit(double up, double down, double tail, std::int64_t from) const;
  // ψ(λ) of the centred law (for the tests): ln Σ p e^{λ(x − μ)}.
  double cgf(double lambda) const;

 private:
  double deviation(std::int64_t n, double tail, double sign) const;
  double cgf_signed(double lambda, double sign) const;
  std::vector<double> centred_, probabilities_;
  double mean_ = 0, sd_ = 0, first_moment_ = 0;  // first_moment_: Σ p (x − μ), 0 up to rounding
  // The last deviations computed, by (n, tail, side): a check judges the same point at the same α more than once
  // (its looks' judges, its interval for the rows). Not for concurrent use.
  struct Memo {
    std::int64_t n;
    double tail, sign, value;
  };
  mutable std::vector<Memo> memo_;
};

struct ChernoffEvidence {
  double empirical = 0;  // the sample mean
  double theory = 0;
  double allowance = 0;  // rounding allowance on the difference
  std::int64_t trials = 0;
  std::string label;
  int look = -1;         // ≥ 0: the look of a sequential check (its share of α); −1: a fixed run
};

class ChernoffMeanCheck {
 public:
  ChernoffMeanCheck(std::string claim, std::string where, double family_alpha, std::size_t points,
                    double equivalence_margin = ClaimCheck::kDefaultEquivalenceMargin);

  // law: the law of one draw under the claim (its deviations bound the sample mean's). The verdict's z is d over the
  // law's SD/√n, for reading only; `reliable` is always true (no gate), `sampled` unless the interval is rounding-wide.
  PointVerdict judge(const ChernoffDeviation& law, const ChernoffEvidence& point);
  // The interval's deviations c⁺, c⁻ at this point's α, as judged (for result rows).
  struct Interval {
    double above = 0, below = 0;
  };
  Interval interval(const ChernoffDeviation& law, const ChernoffEvidence& point) const;
  double point_alpha(int look) const;
  Check result() const;

 private:
  std::string claim_, where_;
  double family_alpha_, margin_;
  std::size_t split_;
  int deepest_look_ = -1;
  std::int64_t held_ = 0, violated_ = 0, inconclusive_ = 0, open_ = 0;
  std::int64_t most_trials_to_settle_ = 0;
  double worst_z_ = 0, worst_margin_ = std::numeric_limits<double>::quiet_NaN();
  double power_ = std::numeric_limits<double>::quiet_NaN();
  std::string worst_label_, power_label_, nonfinite_reason_;
};

}  // namespace favorlab
