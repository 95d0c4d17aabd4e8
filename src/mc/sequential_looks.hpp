#pragma once
// Trials where they are needed (docs/judging.md#looks-until-conclusive). After a pilot of n0 trials, the cells of a
// check that are still open get more trials in looks of doubling size — look k has n0·2^k trials in all, drawn from
// the same counter-based streams, so look k's sample is the sample of a fixed run of that size — until each cell
// settles, its z test stays unreliable (a-priori skewness) beyond the last look, or the looks or the wall-clock budget
// run out. Every look is judged at its share of α (stats/look_spending.hpp), so the family-wise level holds over all
// looks; a cell stops drawing once it settles.
// The budget is checked before each look against a predicted cost (seconds per trial = a + b·cells, fitted to the
// looks so far; the pilot alone gives b only); a look once begun completes — its size is part of the design — so a run
// can pass its budget by the error of one prediction, and LookRecord says by how much. Under MPI the ranks agree on
// every stop (any rank's clock stopping them all), so all ranks take the same looks; a clock may stop a rerun at
// another look, which is why the look reached is recorded: --max-looks = looks_reached repeats the run exactly.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "stats/claim_check.hpp"

namespace favorlab {

// The most trials per point a run may ask for, --trials and the last look alike: 1e15 trials of the cheapest
// experiment take years on any machine, and trial indices, block counts and progress totals (trials × points) stay
// far from std::int64_t's limit.
constexpr std::int64_t kMaxTrials = 1'000'000'000'000'000;

struct LookPlan {
  int max_looks = 1;  // looks in all, the pilot included; 1: a fixed-size run (no look after the pilot)
  double budget_seconds = std::numeric_limits<double>::infinity();  // wall-clock for the looks after the pilot
  bool sequential() const { return max_looks > 1; }
  // The share of the budget left for part `part` (0-based) of `parts` run one after another: the rest of the budget
  // divided evenly over the parts still to run, `spent` seconds having gone to the earlier ones.
  LookPlan share(std::size_t part, std::size_t parts, double spent) const;
};

struct LookRecord {
  std::vector<int> cell_look;        // per cell: the look its verdict comes from (0: the pilot)
  int looks_reached = 1;             // looks taken, the pilot included
  // settled | skewed beyond the last look | no trial count helps (non-finite figures, a difference at the margin) |
  // max looks | budget
  std::string stopped_by = "settled";
  double seconds = 0;                // wall-clock of the looks after the pilot
  std::int64_t extra_cell_trials = 0;  // cell-trials drawn after the pilot
};

// The cost model of the budget: seconds per trial for a look over `cells` cells from the (cells, seconds per trial) of
// the looks so far, oldest first — the line a + b·cells through the latest two cell counts (a, b ≥ 0; one count:
// proportional to the cells), never more per trial than the latest look for no more cells than it had.
double look_seconds_per_trial(const std::vector<std::pair<double, double>>& observations, double cells);

// Trials of look k: pilot·2^k (saturating at INT64_MAX).
std::int64_t look_trials(std::int64_t pilot_trials, int look);

// judge(cell, look): the cell's verdict on the trials it has at that look (a scratch ClaimCheck's judge with
// PointEvidence::look = look); extend(cells, to_trials): brings those cells to to_trials trials each.
// pilot_seconds: the wall-clock of the pilot over all `cells` (the first point of the cost model).
// Throws std::invalid_argument on pilot_trials < 2 or max_looks < 1.
LookRecord run_looks(std::size_t cells, std::int64_t pilot_trials, double pilot_seconds, const LookPlan& plan,
                     const std::function<PointVerdict(std::size_t cell, int look)>& judge,
                     const std::function<void(const std::vector<std::size_t>& cells, std::int64_t to_trials)>& extend);

}  // namespace favorlab
