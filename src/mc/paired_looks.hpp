#pragma once
// Sign tests with looks (docs/judging.md#few-draws-the-sign-test). The points of one or more paired checks
// (stats/paired_check.hpp) whose pairs come from counter-based streams: pair i of a point is the same numbers whatever
// else ran, so a point's first n pairs at any look are the pairs of a fixed run of n. After the pilot (n0 pairs per
// point, already drawn) the open points get looks of doubling size (mc/sequential_looks.hpp): look k has n0·2^k
// pairs, and each look's sign test is exact at its share of α (stats/look_spending.hpp), so the family-wise level
// holds over every look. A point stops drawing once it holds or is violated; the final verdict of each point is its
// verdict at the look it stopped at. Without looks (plan.max_looks = 1) every point is judged once at the whole α,
// exactly as a fixed-size check.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mc/sequential_looks.hpp"
#include "stats/paired_check.hpp"

namespace favorlab {

struct PairedLookPoint {
  std::size_t check = 0;  // which check it belongs to (0-based, < checks)
  std::string label;      // where it is, for the check's detail
};

struct PairedLookOutcome {
  LookRecord record;                     // the looks taken (a fixed run: one look, "settled" or as it stood)
  std::vector<PairedVerdict> verdicts;   // per point, at the look it stopped at
  std::vector<int> look;                 // per point: that look; −1 in a fixed run (judged at the whole α)
  std::vector<std::int64_t> pairs;       // per point: the pairs its verdict was judged on
  std::vector<Check> checks;             // per check, each point counted once
};

// make_check(c): a fresh PairedClaimCheck for check c (its claim, where, family α, points, ties, unit).
// pairs(p, n, a, b): fills a and b with the first n pairs of point p (extend has brought p at least that far).
// extend(points, n): brings those points to n pairs each.
// Throws std::invalid_argument on a point whose check is ≥ checks, or on pilot < 2 with looks.
PairedLookOutcome run_paired_looks(
    std::size_t checks, const std::vector<PairedLookPoint>& points, std::int64_t pilot, double pilot_seconds,
    const LookPlan& plan, const std::function<PairedClaimCheck(std::size_t check)>& make_check,
    const std::function<void(std::size_t point, std::int64_t n, std::vector<double>& a, std::vector<double>& b)>& pairs,
    const std::function<void(const std::vector<std::size_t>& points, std::int64_t n)>& extend);

}  // namespace favorlab
