#include "evaluation/lemma2_comparisons.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "evaluation/estimator_rows.hpp"
#include "stats/either_check.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

const std::string kLemma2RatioClaim = "Lemma 2: MSE(trig)/MSE(positive) grows as SM -> 0";
const std::string kLemma2HyperbolicClaim = "Lemma 2: hyperbolic with m beats positive with 2m";

std::string lemma2_ratio_where(int m) {
  return "iid, m=" + std::to_string(m) + ", paths x_norm = y_norm = r at each cos in (-1, 0)";
}

std::string lemma2_hyperbolic_where(int m, std::size_t points) {
  return "iid, m=" + std::to_string(m) + " vs 2m=" + std::to_string(2 * m) + ", " + std::to_string(points) + " points";
}

std::optional<std::size_t> find_estimator_spec(const std::vector<EstimatorSpec>& specs, Family e, int m) {
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].estimator == e && specs[i].m == m) return i;
  return std::nullopt;
}

std::vector<std::pair<std::size_t, std::size_t>> lemma2_ratio_steps(const std::vector<Geometry>& points) {
  std::map<double, std::vector<std::size_t>> paths;  // cos → point indices with x_norm = y_norm
  for (std::size_t p = 0; p < points.size(); ++p)
    if (points[p].x_norm == points[p].y_norm && points[p].cos_angle < 0 && points[p].cos_angle > -1 &&
        points[p].x_norm > 0)
      paths[points[p].cos_angle].push_back(p);
  std::vector<std::pair<std::size_t, std::size_t>> steps;
  for (auto& [c, idx] : paths) {
    std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return points[a].x_norm < points[b].x_norm; });
    for (std::size_t i = 1; i < idx.size(); ++i) steps.emplace_back(idx[i - 1], idx[i]);
  }
  return steps;
}

CellPairs lemma2_combined_cells(const std::vector<EstimatorSpec>& specs, int m, const std::vector<Geometry>& points) {
  CellPairs pairs;
  const std::size_t n = points.size();
  if (const auto t = find_estimator_spec(specs, Family::trig, m), pos = find_estimator_spec(specs, Family::positive, m);
      t && pos)
    for (auto [a, b] : lemma2_ratio_steps(points)) {
      const std::size_t cells[] = {*t * n + a, *pos * n + a, *t * n + b, *pos * n + b};
      for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = i + 1; j < 4; ++j) pairs.emplace_back(cells[i], cells[j]);
    }
  if (const auto h = find_estimator_spec(specs, Family::hyperbolic, m),
      pos2 = find_estimator_spec(specs, Family::positive, 2 * m);
      h && pos2)
    for (std::size_t p = 0; p < n; ++p) pairs.emplace_back(*h * n + p, *pos2 * n + p);
  return pairs;
}

Check lemma2_ratio_check(const std::vector<Geometry>& points, const SweepResult& sweep, std::size_t t_spec,
                         std::size_t pos_spec, const std::vector<MseFigure>& trig, const std::vector<MseFigure>& pos,
                         bool sampled, int m, double alpha, JudgedPoints& judged) {
  const std::vector<std::pair<std::size_t, std::size_t>> steps = lemma2_ratio_steps(points);
  const std::size_t n_points = points.size();
  const std::string claim = kLemma2RatioClaim + (sampled ? ", importance-sampled" : "");
  const std::string where =
      lemma2_ratio_where(m) + (sampled ? ", positive MSEs importance-sampled (independent runs)" : "");
  if (steps.empty())
    return exact_check(claim, where, 0, 0, 0,
                       "the grid has no two equal-norm points at a common cos in (-1, 0), so nothing is judged; add "
                       "them with --x-norm/--y-norm/--cos");
  ClaimCheck check(claim, where, alpha, steps.size(), ClaimCheck::Sides::upper);
  double largest_ratio = 0, sm_there = 0;
  for (auto [a, b] : steps) {
    auto log_ratio = [&](std::size_t p) { return std::log(trig[p].mse) - std::log(pos[p].mse); };
    const double fall = log_ratio(a) - log_ratio(b);
    // Gradient of the fall in the four MSEs, with their covariances (all from the same ω per trial).
    const double se =
        sampled ? std::hypot(mse_combination_stderr(sweep, {{t_spec * n_points + a, 1 / trig[a].mse},
                                                            {t_spec * n_points + b, -1 / trig[b].mse}}),
                             pos[a].stderr_ / pos[a].mse, pos[b].stderr_ / pos[b].mse)
                : mse_combination_stderr(sweep, {{t_spec * n_points + a, 1 / trig[a].mse},
                                                 {pos_spec * n_points + a, -1 / pos[a].mse},
                                                 {t_spec * n_points + b, -1 / trig[b].mse},
                                                 {pos_spec * n_points + b, 1 / pos[b].mse}});
    const double skew = std::max({std::abs(trig[a].skewness), std::abs(trig[b].skewness), std::abs(pos[a].skewness),
                                  std::abs(pos[b].skewness)});
    const std::int64_t n = std::min({trig[a].trials, trig[b].trials, pos[a].trials, pos[b].trials});
    const std::int64_t bad = trig[a].nonfinite + trig[b].nonfinite + pos[a].nonfinite + pos[b].nonfinite;
    PointEvidence e{fall, 0, se, 0, skew, n, bad,
                    point_label(points[a]) + " -> x_norm=y_norm=" + std::to_string(points[b].x_norm)};
    e.scale = 1;  // a fall of the log ratio is already relative: power is in units of log(ratio)
    judged.emplace_back(e.label, check.judge(e));
    const double ratio_b = trig[b].mse / pos[b].mse;
    if (ratio_b > largest_ratio) {
      largest_ratio = ratio_b;
      sm_there = std::exp(points[b].dot());
    }
  }
  Check c = check.result();
  c.detail += "; largest empirical ratio " + std::to_string(largest_ratio) + " at SM = " + std::to_string(sm_there);
  return c;
}

Check lemma2_hyperbolic_check(const std::vector<Geometry>& points, const SweepResult& sweep, std::size_t h_spec,
                              std::size_t pos2_spec, const std::vector<MseFigure>& hyp,
                              const std::vector<MseFigure>& pos2, bool sampled, int m, double alpha,
                              JudgedPoints& judged) {
  const std::size_t n_points = points.size();
  ClaimCheck check(kLemma2HyperbolicClaim + (sampled ? ", importance-sampled" : ""),
                   lemma2_hyperbolic_where(m, points.size()) +
                       (sampled ? ", independent importance-sampled runs (positive at 2m: its m-feature MSE / 2)" : ""),
                   alpha, points.size(), ClaimCheck::Sides::upper);
  for (std::size_t p = 0; p < points.size(); ++p) {
    const double se =
        sampled ? std::hypot(hyp[p].stderr_, pos2[p].stderr_)
                : mse_combination_stderr(sweep, {{h_spec * n_points + p, 1}, {pos2_spec * n_points + p, -1}});
    const double skew = std::max(std::abs(hyp[p].skewness), std::abs(pos2[p].skewness));
    const double allowance = std::pow(kRoundingAllowance * std::exp(points[p].dot()), 2);
    PointEvidence e{hyp[p].mse - pos2[p].mse, 0, se, allowance, skew, std::min(hyp[p].trials, pos2[p].trials),
                    hyp[p].nonfinite + pos2[p].nonfinite, point_label(points[p])};
    e.scale = pos2[p].mse;  // power relative to the MSE being beaten
    judged.emplace_back(e.label, check.judge(e));
  }
  return check.result();
}

std::optional<Check> plain_or_sampled_line(const std::string& claim, const std::string& where,
                                           const JudgedPoints& plain, const JudgedPoints& sampled,
                                           std::int64_t importance_trials) {
  if (plain.empty() || plain.size() != sampled.size()) return std::nullopt;
  EitherCheck either = plain_or_importance_sampled(claim, where, importance_trials);
  for (std::size_t i = 0; i < plain.size(); ++i) either.add(plain[i].second, sampled[i].second, plain[i].first);
  return either.result();
}

}  // namespace favorlab
