#pragma once
// The check "output error falls as m grows" of `favorlab attention-report`, per arm over its heads, with looks.
// Each draw of a head gives the slope of log MSE against log m (error_slopes, attention_report.hpp). The claim: the
// error falls (slope below 0) on more than kFallsShare = 60 % of a head's draws, judged by the exact binomial test at
// that share (stats/paired_check.hpp). Why 60 % and not "most" (½): a head where the error does not change with m in
// the range run has slopes placed symmetrically about 0 (exactly so when the errors at the m values are exchangeable;
// the log m grid is symmetric), P(slope < 0) = ½, and no number of draws settles a claim whose boundary sits on the
// truth; against 60 % such a head is refuted, while 20 draws that all fall still confirm a head (0.6^20 ≤ α over 16
// heads, the look-0 share included). docs/judging.md#few-draws-the-sign-test has the argument.
// Heads where FAVOR is exact to rounding (some MSE ≤ (1e-12)²·mean O²) are left out. With looks (mc/paired_looks.hpp)
// an open head gets more draws in looks of doubling size: draw r of a head is always the same W (report_draw_index),
// so its first n draws at any look are those of a fixed run of n.
#include <cstdint>
#include <functional>
#include <vector>

#include "evaluation/attention_report.hpp"
#include "evaluation/attention_report_summary.hpp"
#include "mc/paired_looks.hpp"

namespace favorlab {

inline constexpr double kFallsShare = 0.6;

struct HeadSlope {
  bool judged = false;  // false: FAVOR exact to rounding at this head (or fewer than two m values)
  PairedVerdict verdict;
  double median = 0, low = 0, high = 0;  // the median slope and its sign-test interval at the point's α
  std::int64_t draws = 0;                // draws the verdict was judged on
  int look = -1;                         // the look it stopped at (−1: a fixed run)
};

struct SlopeVerdicts {
  std::vector<std::vector<HeadSlope>> heads;  // [arm][head]
  std::vector<Check> checks;                  // per arm
  LookRecord record;
};

// The checks' `where` of an arm (the same for every check of the report).
std::string report_arm_where(const ReportArm& arm, std::size_t heads, std::size_t layers, int draws);

// load(head): the input of heads[head] (read again for the looks). pilot_seconds: the report's wall-clock so far,
// the first point of the looks' cost model. Without looks (plan.max_looks = 1) every head is judged on its pilot
// draws at the whole α.
SlopeVerdicts judge_slopes(const std::vector<ReportedHead>& heads, std::size_t layers, const ReportSettings& s,
                           double alpha, const LookPlan& plan, double pilot_seconds,
                           const std::function<AttentionInput(std::size_t head)>& load,
                           const ProgressFn& progress = {});

}  // namespace favorlab
