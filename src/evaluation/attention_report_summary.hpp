#pragma once
// The verdicts, rows and terminal table of `favorlab attention-report` from the per-head measurements
// (attention_report.hpp). Checks, one per arm (feature family × coupling × mode) over all heads, each an exact sign
// test over the independent projection draws (stats/paired_check.hpp), Bonferroni over the check's points:
//   1. the output error falls as m grows on more than 60 % of draws: judged by report_slopes.hpp (with its looks) and
//      passed in; heads where FAVOR is exact to rounding are left out;
//   2. FAVOR's output error is no larger than uniform attention's: per head and m, on most draws, both errors floored
//      at (1e-12)²·mean O² so that an exact FAVOR ties an exact uniform attention;
//   3. bidirectional, matrices computed, rank bound r < min(Lq, L): FAVOR's attention-matrix error is within k =
//      floor_factor times the best rank-r matrix's on most draws, a floor below 1e-12·‖A‖_F counting as that rounding
//      level (FAVOR is then judged against an exact low-rank fit);
//   4. exact: no draw's ‖Â − A‖_F is below the Eckart–Young floor by more than 100·1e-12·‖A‖_F (the SVD's rounding).
// Rows: one per head × arm × m, the fields documented in the README's attention-report section.
#include <cstdint>
#include <string>
#include <vector>

#include "evaluation/attention_report.hpp"
#include "results/result.hpp"

namespace favorlab {

struct ReportedHead {
  std::string layer;
  std::size_t layer_index = 0;
  int head = 0;
  HeadReport report;
};

struct ReportClaims {
  double alpha = 1e-3;       // family-wise false-failure rate of each check
  double floor_factor = 10;  // k of check 3
};

struct SlopeVerdicts;  // report_slopes.hpp

// Appends the rows and checks of every arm of `s` over `heads` (from `layers` layers); `slopes`: check 1, judged.
void summarize_report(const std::vector<ReportedHead>& heads, std::size_t layers, const ReportSettings& s,
                      const ReportClaims& claims, const SlopeVerdicts& slopes, Json& rows, std::vector<Check>& checks);

// The terminal report: per head, the first arm's relative error at each m with its baselines and verdicts; then per
// arm, the median over heads; then the peak memory (bytes; ≤ 0: unknown).
std::string report_table(const Json& rows, const std::vector<Check>& checks, const ReportSettings& s, int heatmap_m,
                         std::int64_t peak);

// ‖A − A_r‖_F of a head from its truncation errors (NaN when the matrix was not computed).
double rank_floor_of(const HeadReport& r, int rank);

}  // namespace favorlab
