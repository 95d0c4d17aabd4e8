#pragma once
// "The smallest size (number of random features m) at which P[success] ≥ target", estimated from success counts on a
// grid of sizes, with its uncertainty: each grid point gets an exact Clopper–Pearson interval (level 1 − point_alpha),
// and the needed size is bracketed by
//   lower = the first size whose interval reaches the target (below it, P < target is established),
//   point = the first size whose observed frequency reaches the target,
//   upper = the first size whose whole interval lies at or above the target (P ≥ target established there).
// A missing end (0) means the grid does not reach it. No monotonicity in the size is assumed of the data; "first"
// is literal.
// Two claims about how the needed size behaves, judged from brackets:
//   size_independence_check: within each group (e.g. one d, sizes ordered by growing L) the needed size does not grow:
//     violated when some later bracket lies entirely above an earlier one (lower_later > upper_earlier);
//     inconclusive when not violated but a bracket is open (upper missing); holds otherwise.
//   proportional_growth_check: needed size ∝ rate (e.g. d·log d) for some constant C: consistent iff
//     max lower/rate ≤ min upper/rate over the group (a C fits every bracket); violated otherwise;
//     inconclusive when a bracket is open.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"

namespace favorlab {

struct SufficientSize {
  int lower = 0, point = 0, upper = 0;  // 0: not reached on the grid
  std::string label;                   // where the bracket is, for check details
};

// sizes ascending; successes[i] of trials at sizes[i]. Throws std::invalid_argument on mismatched lengths or counts.
SufficientSize sufficient_size(const std::vector<int>& sizes, const std::vector<std::int64_t>& successes,
                               std::int64_t trials, double target, double point_alpha);

Check size_independence_check(std::string claim, std::string where,
                              const std::vector<std::vector<SufficientSize>>& groups);

Check proportional_growth_check(std::string claim, std::string where, const std::vector<SufficientSize>& brackets,
                                const std::vector<double>& rate);

}  // namespace favorlab
