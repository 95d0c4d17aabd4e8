#pragma once
// "The smallest size (number of random features m) at which P[success] ≥ target", estimated from success counts on a
// grid of sizes, with its uncertainty: each grid point gets an exact Clopper–Pearson interval (level 1 − point_alpha),
// and the needed size is bracketed by
//   lower    = the first size whose interval reaches the target (at every earlier size, P < target is established),
//   point    = the first size whose observed frequency reaches the target,
//   upper    = the first size whose whole interval lies at or above the target (P ≥ target established there),
//   excluded = the largest size at which — and below which — P < target is established: the size before `lower`, or
//              the last grid size when no interval reaches the target (0 when the first size already may).
// A missing end (0) means the grid does not reach it. No monotonicity in the size is assumed of the data; "first"
// is literal. On the grid, the needed size lies in [lower, upper]; as a real number (a threshold such as C·d·ln d
// that may fall between grid sizes) it lies in (excluded, upper].
// Two claims about how the needed size behaves, judged from brackets:
//   size_independence_check: within each group (e.g. one d, sizes ordered by growing L) the needed size does not grow:
//     violated     when some later bracket lies entirely above an earlier one (lower_later > upper_earlier);
//     holds        when every later bracket lies at or below every earlier one (upper_later ≤ lower_earlier),
//                  i.e. non-growth is established on the grid;
//     inconclusive otherwise, and when no two brackets were compared.
//   size_nondecreasing_check: the mirror, the needed size does not fall along each group.
//   bounded_growth_check: within each group (one d, sizes ordered by growing L) the needed size at the last entry is
//     at most `factor` times that at the first — an equivalence with a stated margin. Where the needed size cannot
//     fall along a group by construction (uniform's nested inputs, one draw of W serving every L), the first and last
//     entries bound every one between, so only they are compared:
//     holds        upper_last ≤ factor · lower_first (established: last ≤ upper_last ≤ factor·lower_first ≤ factor·first);
//     violated     lower_last > factor · upper_first (or, with no lower_last — more than the grid needed —
//                  excluded_last ≥ factor · upper_first);
//     inconclusive otherwise, with the draws that would likely close the brackets involved.
//   Every bracket contains its needed size when every grid point's interval covers (Bonferroni over all points), so a
//   false verdict of any of these checks needs a miss there: the family level bounds them all.
//   proportional_growth_check: needed size = C·rate (e.g. d·ln d) for one constant C: C must satisfy
//     excluded/rate < C ≤ upper/rate for every bracket; violated when no C does (max excluded/rate ≥ min upper/rate);
//     otherwise inconclusive — a constant that fits every bracket does not establish a growth law; the detail gives
//     the interval of C that fits.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/check.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

struct SufficientSize {
  int lower = 0, point = 0, upper = 0;  // 0: not reached on the grid
  int excluded = 0;                     // 0: nothing established below the bracket
  std::string label;                    // where the bracket is, for check details
  // The draws at which the bracket would likely shrink to its point estimate if the observed frequencies persisted
  // (P ≥ target established at `point`, P < target at every size before it): 0 when it already has; kOutOfReach
  // when some frequency sits at the target or no size reaches it.
  std::int64_t draws_to_close = 0;
};

// sizes ascending; successes[i] of trials at sizes[i]; unknown[i] (optional) of those trials could not be judged
// (e.g. a non-finite error): they count as successes where that is conservative (lower, excluded) and as failures
// where that is (point, upper), so an unjudged draw never decides a bracket. Throws std::invalid_argument on
// mismatched lengths or counts.
SufficientSize sufficient_size(const std::vector<int>& sizes, const std::vector<std::int64_t>& successes,
                               std::int64_t trials, double target, double point_alpha,
                               const std::vector<std::int64_t>& unknown = {});

// The counts sufficient_size takes, from one grid point's values over the trials: successes are the finite values
// ≤ threshold, unjudged ones the values that are not finite (NaN or ±∞: neither a success nor a failure).
struct ThresholdCounts {
  std::int64_t successes = 0, unjudged = 0;
};
ThresholdCounts threshold_counts(const std::vector<double>& values, double threshold);

Check size_independence_check(std::string claim, std::string where,
                              const std::vector<std::vector<SufficientSize>>& groups);

// The mirror of size_independence_check: along each group (e.g. one L, sizes ordered by growing d) the needed size
// does not fall: violated when a later bracket lies entirely below an earlier one (upper_later < lower_earlier), holds
// when every later bracket lies at or above every earlier one; `along` names the group's order in the detail ("d").
Check size_nondecreasing_check(std::string claim, std::string where,
                               const std::vector<std::vector<SufficientSize>>& groups, const std::string& along);

Check bounded_growth_check(std::string claim, std::string where, const std::vector<std::vector<SufficientSize>>& groups,
                           double factor);

Check proportional_growth_check(std::string claim, std::string where, const std::vector<SufficientSize>& brackets,
                                const std::vector<double>& rate);

}  // namespace favorlab
