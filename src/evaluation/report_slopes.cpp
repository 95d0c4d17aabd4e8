#include "evaluation/report_slopes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "evaluation/attention_baselines.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

// A draw's fitted error at the largest m over that at the smallest: below 1 exactly when its slope is below 0. An
// overflow is a large ratio, not a missing one; NaN stays NaN (the point is then inconclusive).
double fitted_ratio(double slope, double m_span) {
  const double r = std::exp(slope * m_span);
  return r == INFINITY ? std::numeric_limits<double>::max() : r;
}

struct SlopePoint {
  std::size_t arm = 0, head = 0;
  std::vector<std::vector<double>> mse;  // [m][draw]
  std::vector<double> slopes;            // per draw
};

}  // namespace

std::string report_arm_where(const ReportArm& arm, std::size_t heads, std::size_t layers, int draws) {
  return std::string(feature_kind_name(arm.features)) + " features, " + std::string(coupling_name(arm.coupling)) +
         " projections, " + (arm.causal ? "causal" : "bidirectional") + ", " + std::to_string(heads) + " heads in " +
         std::to_string(layers) + " layers, " + std::to_string(draws) + " draws per head";
}

SlopeVerdicts judge_slopes(const std::vector<ReportedHead>& heads, std::size_t layers, const ReportSettings& s,
                           double alpha, const LookPlan& plan, double pilot_seconds,
                           const std::function<AttentionInput(std::size_t)>& load, const ProgressFn& progress) {
  const std::size_t n_ms = s.ms.size();
  const double m_span = n_ms >= 2 ? std::log(static_cast<double>(*std::max_element(s.ms.begin(), s.ms.end())) /
                                             *std::min_element(s.ms.begin(), s.ms.end()))
                                  : 0.0;
  SlopeVerdicts out;
  out.heads.assign(s.arms.size(), std::vector<HeadSlope>(heads.size()));
  std::vector<SlopePoint> points;
  std::vector<PairedLookPoint> look_points;
  std::vector<std::size_t> slope_points(s.arms.size(), 0);  // per arm: its judged heads (Bonferroni)
  for (std::size_t ai = 0; ai < s.arms.size(); ++ai)
    for (std::size_t hi = 0; hi < heads.size(); ++hi) {
      const HeadReport& r = heads[hi].report;
      const double rounding =
          kRoundingAllowance * kRoundingAllowance * r.modes[s.arms[ai].causal ? 1 : 0].output_mean_square;
      bool exact = false;
      for (const ArmPoint& p : r.points[ai])
        for (double e : p.mse) exact = exact || !(e > rounding);
      if (exact || n_ms < 2) continue;
      SlopePoint p{ai, hi, {}, {}};
      for (const ArmPoint& a : r.points[ai]) p.mse.push_back(a.mse);
      p.slopes = error_slopes(s.ms, p.mse);
      points.push_back(std::move(p));
      look_points.push_back({ai, heads[hi].layer + " head " + std::to_string(heads[hi].head)});
      ++slope_points[ai];
    }
  const std::string suffix = plan.sequential() ? " (the slope check's open heads doubling by looks)" : "";
  const auto make_check = [&](std::size_t ai) {
    return PairedClaimCheck("Output error falls as m grows on more than 60 % of draws (per draw, the slope of log "
                            "error against log m below 0; the 1/m law predicts -1)",
                            report_arm_where(s.arms[ai], heads.size(), layers, s.draws) + suffix, alpha,
                            slope_points[ai], PairedClaimCheck::Ties::excluded, "draws", kFallsShare);
  };
  const auto pairs = [&](std::size_t p, std::int64_t n, std::vector<double>& a, std::vector<double>& b) {
    a.clear();
    for (std::int64_t d = 0; d < n; ++d)
      a.push_back(fitted_ratio(points[p].slopes[static_cast<std::size_t>(d)], m_span));
    b.assign(a.size(), 1.0);
  };
  // More draws for the open heads, one head loaded at a time for all its open arms.
  const auto extend = [&](const std::vector<std::size_t>& open, std::int64_t n) {
    std::map<std::size_t, std::vector<std::size_t>> by_head;
    for (std::size_t p : open) by_head[points[p].head].push_back(p);
    std::size_t done = 0;
    for (const auto& [hi, list] : by_head) {
      const AttentionInput input = load(hi);
      for (std::size_t p : list) {
        SlopePoint& point = points[p];
        const int have = static_cast<int>(point.slopes.size());
        const auto more = arm_draw_mse(input, s.arms[point.arm], s, static_cast<std::uint64_t>(hi), have,
                                       static_cast<int>(n) - have);
        for (std::size_t mi = 0; mi < n_ms; ++mi)
          point.mse[mi].insert(point.mse[mi].end(), more[mi].begin(), more[mi].end());
        const auto slopes = error_slopes(s.ms, more);
        point.slopes.insert(point.slopes.end(), slopes.begin(), slopes.end());
        if (progress) progress(static_cast<std::int64_t>(++done), static_cast<std::int64_t>(open.size()));
      }
    }
  };
  const PairedLookOutcome o =
      run_paired_looks(s.arms.size(), look_points, s.draws, pilot_seconds, plan, make_check, pairs, extend);
  out.record = o.record;
  out.checks = o.checks;
  for (std::size_t p = 0; p < points.size(); ++p) {
    HeadSlope& h = out.heads[points[p].arm][points[p].head];
    h.judged = true;
    h.verdict = o.verdicts[p];
    h.draws = o.pairs[p];
    h.look = o.look[p];
    const std::vector<double> used(points[p].slopes.begin(), points[p].slopes.begin() + h.draws);
    const MedianInterval interval = sign_test_median_interval(used, make_check(points[p].arm).point_alpha(h.look));
    h.median = interval.median, h.low = interval.low, h.high = interval.high;
  }
  return out;
}

}  // namespace favorlab
