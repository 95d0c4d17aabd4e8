#pragma once
// What `favorlab attention-report --target R` recommends: for each arm (feature family × coupling × mode), at which m
// FAVOR's relative output error ‖Ô − O‖²/‖O − Ō‖² reaches R, from the per-head measurements (attention_report.hpp).
// A head's error at one m is the median over its projection draws (NaN draws, where O has no variance, left out); the
// arm's error at that m is the median over heads of those.
//   m_reaching: the smallest m run at which the median head reaches R (≤ R); 0 when none does.
//   fraction_at_max_m: the fraction of heads (with a value) that reach R at the largest m run.
//   slope: least squares of log(median-head error) on log m over the m run (positive errors only), with a two-sided
//     `confidence` Student t interval (n − 2 degrees of freedom; none below 3 points). The line through the points'
//     centroid (x̄, ȳ) gives the m needed, log m* = x̄ + (log R − ȳ)/slope, and its interval from the slope's ends;
//     a slope ≥ 0 at an end means that end is +∞ (the error does not fall). m* beyond the largest m run is an
//     extrapolation of the 1/m-type law and is marked as one.
//   rank floor (bidirectional, heads whose matrix was computed): the best rank-r matrix's (‖A − A_r‖_F/‖A − U‖_F)²,
//     on the same squared scale as the output error, at r = the largest m run (at most the heads' largest min(Lq, L)):
//     the fraction of heads at or below R,
//     and the median over heads of the smallest rank that reaches R.
// The best arm: the smallest m_reaching (ties: the lower median error there); when no arm reaches R, the arm with the
// lowest median error at the largest m ("comes closest"). The paragraph says this in a few sentences; the terminal
// report, the result's params["recommendation"] and the figure's title carry the same text.
#include <string>
#include <vector>

#include "evaluation/attention_report_summary.hpp"
#include "results/result.hpp"

namespace favorlab {

inline constexpr double kDefaultReportTarget = 0.1;

struct ArmRecommendation {
  ReportArm arm;
  std::vector<double> median_by_m;  // per m of the settings: median over heads (NaN: no head has a value)
  int m_reaching = 0;
  double fraction_at_max_m = 0;
  int heads_counted = 0;  // heads with a value at the largest m
  double slope = 0, slope_low = 0, slope_high = 0;  // NaN when fewer than 2 (interval: 3) positive points
  double needed_m = 0, needed_m_low = 0, needed_m_high = 0;  // NaN: no fit; +∞: the error does not fall
  bool extrapolated = false;  // needed_m lies beyond the largest m run
};

struct RankFloorAnswer {
  bool measured = false;  // some head's attention matrix (bidirectional, L ≤ --matrix-max-L) was computed
  int rank = 0;           // the largest m run, capped at the largest min(Lq, L) of the heads
  int heads = 0;
  double fraction = 0;
  double median_rank_needed = 0;  // +∞ when the median head never reaches R
};

struct Recommendation {
  double target = kDefaultReportTarget;
  double confidence = 0.95;
  std::vector<ArmRecommendation> arms;
  int best = -1;            // index into arms; -1 when no arm has a value
  bool reached = false;     // the best arm reaches R at some m run
  RankFloorAnswer floor;
  std::string paragraph;
};

// Throws std::invalid_argument for a target outside (0, ∞) or a confidence outside (0, 1).
Recommendation recommend(const std::vector<ReportedHead>& heads, const ReportSettings& settings, double target,
                         double confidence = 0.95);

Json recommendation_json(const Recommendation& r, const ReportSettings& settings);

// "positive/orthogonal", with "/causal" or "/bidirectional" appended when `with_mode`.
std::string arm_label(const ReportArm& arm, bool with_mode);

// The paragraph broken at spaces into lines of at most `width` characters (a longer word stays whole), for the terminal.
std::string wrap_paragraph(const std::string& text, std::size_t width = 110);

// An m for prose: integers below 1e4 as they are ("256"), larger ones with two significant digits ("2.1e5").
std::string approximate_m(double m);

}  // namespace favorlab
