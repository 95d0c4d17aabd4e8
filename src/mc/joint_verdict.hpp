#pragma once
// One cell of a sequential check (mc/sequential_looks.hpp) that feeds several checks: a Monte Carlo sample judged by
// two claims at once (perm-order's E[order] and E[ln order] on the same permutations). run_looks reads one verdict
// per cell; this is the verdict of the cell as a whole, read the way run_looks reads one:
//   settled    every check holds or is violated (violated if any is, else holds);
//   draws on   some open check would draw on (a reliable open interval, or a z test that becomes reliable within the
//              last look's trials): that check's verdict, so the cell keeps drawing for it;
//   given up   otherwise: an open check skewed beyond the last look is reported before one that no trial count helps,
//              as run_looks reports its reasons.
// The other checks of a cell that draws on are judged again at each look, each at that look's share of α, so a
// check's verdict at the look its cell stopped at has the level of any look.
#include <cstdint>
#include <vector>

#include "stats/claim_check.hpp"

namespace favorlab {

// last_trials: the trials of the last look the plan allows (look_trials(pilot, max_looks − 1)).
PointVerdict joint_verdict(const std::vector<PointVerdict>& checks, std::int64_t last_trials);

}  // namespace favorlab
