#pragma once
// The verdicts, rows and terminal table of `favorlab attention-report` from the per-head measurements
// (attention_report.hpp). Checks, one per arm (feature family × coupling × mode) over all heads, every interval Student's
// t over the independent projection draws, Bonferroni over the check's points:
//   1. the output error falls as m grows: the mean over draws of the slope of log MSE against log m is below 0 (the 1/m
//      law predicts −1); heads where FAVOR is exact to rounding (some MSE ≤ (1e-12)²·mean O²) are left out;
//   2. FAVOR's output error is no larger than uniform attention's: per head and m, mean log MSE over draws ≤ log of
//      uniform attention's, both floored at (1e-12)²·mean O² so that an exact FAVOR ties an exact uniform attention;
//   3. bidirectional, matrices computed, rank bound r < min(Lq, L): FAVOR's attention-matrix error is within k =
//      floor_factor times the best rank-r matrix's, mean log ‖Â − A‖_F ≤ log(k·floor), a floor below 1e-12·‖A‖_F
//      counting as that rounding level (FAVOR is then judged against an exact low-rank fit);
//   4. exact: no draw's ‖Â − A‖_F is below the Eckart–Young floor by more than 100·1e-12·‖A‖_F (the SVD's rounding).
// Rows: one per head × arm × m, the fields documented in the README's attention-report section.
#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention_report.hpp"
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

// Appends the rows and checks of every arm of `s` over `heads` (from `layers` layers).
void summarize_report(const std::vector<ReportedHead>& heads, std::size_t layers, const ReportSettings& s,
                      const ReportClaims& claims, Json& rows, std::vector<Check>& checks);

// The terminal report: per head, the first arm's relative error at each m with its baselines and verdicts; then per
// arm, the median over heads; then the peak memory (bytes; ≤ 0: unknown).
std::string report_table(const Json& rows, const std::vector<Check>& checks, const ReportSettings& s, int heatmap_m,
                         std::int64_t peak);

// ‖A − A_r‖_F of a head from its truncation errors (NaN when the matrix was not computed).
double rank_floor_of(const HeadReport& r, int rank);

}  // namespace favorlab
