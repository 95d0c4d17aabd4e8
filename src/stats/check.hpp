#pragma once
// The verdict on one claim (docs/judging.md#verdicts), typed so that plots and CI read it
// without parsing text:
//   holds        the data confirm the claim: the interval lies on the claim's side (one-sided claims) or inside the
//                stated equivalence margin (equality claims), at every judged point;
//   violated     the data refute the claim at some point;
//   inconclusive neither — including a check with no judged point; `trials_needed` says what would settle it;
//   measured     a timing or a quantity true by construction: `value` against `target`, nothing judged.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace favorlab {

enum class Verdict { holds, violated, inconclusive, measured };

// In memory, trials_needed = kOutOfReach stands for "no trial count would settle it".
inline constexpr std::int64_t kOutOfReach = std::numeric_limits<std::int64_t>::max();

const char* verdict_name(Verdict v);  // "holds", "violated", "inconclusive", "measured"

// The aggregate rule of every multi-point check: violated if any point is; holds only if at least one point was
// judged and every point holds; inconclusive otherwise.
Verdict verdict_from_counts(std::int64_t held, std::int64_t violated, std::int64_t inconclusive);

struct WorstPoint {
  std::string label;  // empty: no point was judged
  double statistic = std::numeric_limits<double>::quiet_NaN();  // the point's test statistic (z, t, ratio, ...)
  double margin = std::numeric_limits<double>::quiet_NaN();     // its distance from violating, relative to the claim
};

struct Check {
  std::string claim;
  std::string where;
  // Where the claim comes from ("Performers, Lemma 2") and what kind of statement it is ("paper", "corrected", ...):
  // filled from the claims table (ledger/claim_sources.hpp) when the result is written.
  std::string source;
  std::string kind;
  Verdict status = Verdict::inconclusive;
  double statistic = 0;  // the worst point's statistic (kept for readers of favorlab.result/1)
  std::string detail;

  double critical = std::numeric_limits<double>::quiet_NaN();  // critical value of the statistic (NaN: none)
  std::int64_t points_total = 0, points_held = 0, points_violated = 0, points_inconclusive = 0;
  WorstPoint worst;
  // The smallest relative deviation from the claim that this check, on these data, would have reported as violated
  // (a theory or bound off by more than `power`, as a fraction of its scale, is caught). NaN: not defined.
  double power = std::numeric_limits<double>::quiet_NaN();
  // Equality claims: the stated equivalence margin (relative). One-sided claims: the smallest relative margin by
  // which a held point confirmed the claim. NaN: not defined.
  double margin = std::numeric_limits<double>::quiet_NaN();
  std::int64_t trials_needed = 0;  // trials (or inputs, draws) per point that would likely settle an inconclusive check
  // trials_needed = kOutOfReach: no number would (result files write trials_needed null); why, in a few words
  // ("infinite variance", "skewness too large for a z test at any trial count", ...).
  std::string out_of_reach;

  double value = std::numeric_limits<double>::quiet_NaN();   // measured checks: the figure
  double target = std::numeric_limits<double>::quiet_NaN();  // measured checks: the target it is compared with
};

// Phrases of a check's detail that the claims ledger reads back (result files carry no field for them): the power
// comes from points exact to rounding alone, and the check evaluated closed forms without sampling anything.
inline constexpr std::string_view kRoundingPowerPhrase = "at every judged point";
inline constexpr std::string_view kClosedFormsPhrase = "exact values (no sampling";

// A check with nothing judged: its figure and the target it is read against. `detail` says which is better.
Check measured_check(std::string claim, std::string where, double value, double target, std::string detail);

// A check decided without sampling (exact arithmetic, exhaustive search, closed forms compared within rounding):
// `held` and `violated` points, status from the counts. `power`: the smallest relative departure the comparison
// would catch — for a bound, its tightest margin plus the rounding tolerance; NaN where none is defined.
Check exact_check(std::string claim, std::string where, std::int64_t held, std::int64_t violated, double statistic,
                  std::string detail, double power = std::numeric_limits<double>::quiet_NaN());

// What the four verdicts mean, a few lines for a terminal (printed by `favorlab reproduce`).
const char* verdict_legend();

// One line for a terminal: the point counts, or the measured value against its target, and what would settle an
// inconclusive check.
std::string check_summary(const Check& c);

// Sets status (from the counts, via verdict_from_counts) and the counts.
void set_point_counts(Check& c, std::int64_t held, std::int64_t violated, std::int64_t inconclusive);

}  // namespace favorlab
