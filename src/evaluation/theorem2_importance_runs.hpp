#pragma once
// Theorem 2's exact MSEs tested again by importance sampling, light-tailed at every point where the plain Monte Carlo
// lines of evaluation/theorem2_checks.hpp are heavy-tailed. One run set per d and estimator, one cell per (kind, m,
// point). The positive estimator on chi-norm rows (mc/importance_coupled.hpp): iid rows (Lemma 2), orthogonal rows
// and, with simplex rows, the paired run (mc/paired_simplex_gap.hpp), which gives the exact simplex MSE and
// simplex ≤ orthogonal (one-sided, on paired trials). smreg's rows of norm √d by their own tilt
// (mc/importance_sphere.hpp): iid and orthogonal rows. Each line, "..., importance-sampled", also gets a line
// "..., plain or importance-sampled" that combines its verdict with the plain one point by point
// (stats/either_check.hpp): the claim holds there when the two methods together settle every point. With looks, the
// cells of the points neither method settled get looks of doubling size (mc/sequential_looks.hpp), one schedule over
// every run set.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "evaluation/theorem2_checks.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/paired_simplex_gap.hpp"
#include "mc/parallel_trials.hpp"
#include "mc/sequential_looks.hpp"
#include "results/result.hpp"

namespace favorlab {

// One cell of a run set. Positive: iid (Lemma 2) and orthogonal rows, and with simplex rows the paired run (its
// simplex figures and simplex ≤ orthogonal); smreg: iid and orthogonal rows of norm √d, their direction tilted toward
// x + y (mc/importance_sphere.hpp).
struct Theorem2ImportanceCell {
  std::size_t k = 0, i = 0, p = 0;  // kind, m index, point
  std::uint64_t stream = 0;
  std::vector<double> theory;       // per line of the cell: its own kind's, and for the paired run simplex ≤ orthogonal
  CoupledImportanceSampledMse run;  // iid or orthogonal rows
  PairedSimplexGap pair;            // simplex rows with their orthogonal twins
};

// The importance-sampled runs of one d and estimator.
struct Theorem2ImportanceRuns {
  Family e = Family::positive;
  Theorem2Cells cells;
  std::int64_t trials = 0;  // the pilot's, per cell
  PlainVerdicts plain;      // this d's plain verdicts, which the combined lines take point by point
  std::vector<Coupling> kinds;
  std::vector<RowProposal> proposals;  // per point: the one-row proposal depends on the geometry alone
  std::vector<Theorem2ImportanceCell> runs;
};

// The pilots of one d (the di-th, which sets the cells' streams) and estimator e (positive or smreg): every cell at
// `trials` trials. simplex: positive features also get the paired simplex run. plain: the d's plain verdicts
// (theorem2_checks, simplex_checks).
Theorem2ImportanceRuns theorem2_importance_pilots(Family e, const Theorem2Cells& cells, std::size_t di, bool simplex,
                                                  std::int64_t trials, std::uint64_t seed, int threads,
                                                  const ProgressFn& progress, const PlainVerdicts& plain);

// Looks over the cells of every run set at once (so that a budget stops them all at the same look), then the checks:
// per run set its importance-sampled lines, then their combined lines, each point judged at its cell's last look
// (alpha: each check's family-wise false-failure rate); annotates the cells' rows in `result` (the rows of
// theorem2_checks and simplex_checks). A fixed-size plan (no looks) judges the pilots as they are.
// pilot_seconds: the wall-clock of the pilots. Returns what the looks did, for the caller to report; nothing (and no
// checks) when there are no cells. Throws std::logic_error when a cell's row is missing.
std::optional<LookRecord> settle_theorem2_importance_runs(Result& result, std::vector<Theorem2ImportanceRuns>& all,
                                                          const LookPlan& plan, std::uint64_t seed, int threads,
                                                          const ProgressFn& progress, double pilot_seconds,
                                                          double alpha);

}  // namespace favorlab
