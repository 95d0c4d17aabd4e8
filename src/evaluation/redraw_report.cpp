#include "evaluation/redraw_report.hpp"

#include <algorithm>
#include <limits>

#include "io/format_number.hpp"
#include "stats/claim_check.hpp"
#include "stats/edgeworth.hpp"
#include "stats/redraw_summary.hpp"

namespace favorlab {

namespace {

constexpr double kBiasMargin = 0.02;  // "no bias" means B within 2 % of one draw's output MSE

// The average rows of one feature map, k = 1 (the single draws) and each k ≥ 2, with checks 1 (k·MSE_k = MSE_1)
// and 2 (MSE_k = B + V/k) on the k ≥ 2 (z intervals, Bonferroni over them). Each is judged on its difference
// estimated from the groups' cross products (stats/redraw_summary.hpp: RedrawGap), whose tail is far lighter than
// the MSEs'; no_mean (non-empty): the claims are out of reach, and why.
void average_rows(const RedrawSetting& s, Result& result, const std::string& fname, const std::string& where,
                  const std::vector<MseSummary>& summaries, const RedrawSweep& sweep, const BiasVarianceFigures& bv,
                  const std::string& no_mean) {
  const MseSummary& single = summaries[static_cast<std::size_t>(std::find(s.plan.ks.begin(), s.plan.ks.end(), 1) - s.plan.ks.begin())];
  const std::size_t big_k =
      static_cast<std::size_t>(std::count_if(s.plan.ks.begin(), s.plan.ks.end(), [](int k) { return k > 1; }));
  const std::string claim1 = "Redrawing: averaging k redrawn outputs cuts the output MSE like 1/k (k MSE_k = MSE_1)";
  const std::string claim2 = "Redrawing: MSE of the k-average = bias^2 + variance/k (B, V from the single draws)";
  ClaimCheck one_over_k(claim1, where, s.alpha, std::max<std::size_t>(big_k, 1));
  ClaimCheck law(claim2, where, s.alpha, std::max<std::size_t>(big_k, 1));
  const double tail_alpha = s.alpha / static_cast<double>(std::max<std::size_t>(big_k, 1));
  for (std::size_t i = 0; i < s.plan.ks.size(); ++i) {
    const int k = s.plan.ks[i];
    const MseSummary& g = summaries[i];
    const MsePrediction predicted = averaged_mse_prediction(sweep.blocks, k);
    Json row{{"kind", "average"},   {"features", fname},  {"estimator", fname}, {"coupling", s.coupling},
             {"causal", s.causal},   {"m", s.m},            {"L", s.L},            {"d", s.d},
             {"k", k},              {"groups", g.count},  {"jackknife_blocks", s.plan.jackknife_blocks},
             {"nonfinite", g.nonfinite},
             {"mse", number_or_null(g.mean)}, {"mse_stderr", number_or_null(g.stderr_)},
             {"mse_skewness", g.skewness}, {"mse_skewness_bound", number_or_null(g.skewness_bound)},
             {"mse_one_over_k", number_or_null(single.mean / k)},
             {"mse_theory", number_or_null(predicted.value)}, {"mse_theory_stderr", number_or_null(predicted.stderr_)}};
    if (k > 1) {
      const std::string label = "k=" + std::to_string(k);
      const RedrawGap a = one_over_k_gap(sweep.group_cross[i], k, s.plan.jackknife_blocks);
      const RedrawGap b = law_gap(sweep.group_cross[i], k, s.plan.jackknife_blocks, bv, s.plan.jackknife_blocks);
      row["one_over_k_gap"] = number_or_null(a.value);
      row["one_over_k_gap_stderr"] = number_or_null(a.stderr_);
      row["law_gap"] = number_or_null(b.value);
      row["law_gap_stderr"] = number_or_null(b.stderr_);
      row["cross_skewness_bound"] = number_or_null(a.skewness_bound);
      if (no_mean.empty()) {
        // Claim 1: E[(k − 1)U] = k·MSE_k − MSE_1 against 0, within 2 % of MSE_1. Claim 2: (k − 1)/k·(Ū − B̂) =
        // MSE_k − B − V/k against 0, within 2 % of the prediction B + V/k.
        PointEvidence ev{a.value, 0, a.stderr_, 0, 0, a.count, a.nonfinite + single.nonfinite, label};
        ev.scale = single.mean;
        ev.min_trials = trials_for_reliable_z_test(a.skewness_bound, one_over_k.critical_z(), tail_alpha);
        const PointVerdict va = one_over_k.judge(ev);
        PointEvidence ew{b.value, 0, b.stderr_, 0, 0, b.count, b.nonfinite + sweep.nonfinite_draws, label};
        ew.scale = predicted.value;
        ew.degrees_of_freedom = b.degrees_of_freedom;
        ew.min_trials = trials_for_reliable_z_test(b.skewness_bound, law.critical_z(), tail_alpha);
        const PointVerdict vb = law.judge(ew);
        row["one_over_k_z"] = va.z;
        row["one_over_k_status"] = va.status;
        row["law_z"] = vb.z;
        row["law_status"] = vb.status;
      } else {
        row["one_over_k_status"] = Verdict::inconclusive;
        row["law_status"] = Verdict::inconclusive;
      }
    }
    result.rows.push_back(row);
  }
  if (big_k == 0) return;
  if (no_mean.empty()) {
    result.checks.push_back(one_over_k.result());
    result.checks.push_back(law.result());
  } else {
    result.checks.push_back(unreachable_check(claim1, where, big_k, no_mean));
    result.checks.push_back(unreachable_check(claim2, where, big_k, no_mean));
  }
}

// The draws row of one feature map: the distribution of the single draws' MSE, the unlucky draws and the
// bias-variance split.
Json draws_row(const RedrawSetting& s, const std::string& fname, const DrawDistribution& dist,
               const MseSummary& single, const BiasVarianceFigures& bv, const std::vector<double>& draw_mse) {
  Json row{{"kind", "draws"}, {"features", fname}, {"estimator", fname}, {"coupling", s.coupling},
           {"causal", s.causal}, {"m", s.m},         {"L", s.L},            {"d", s.d},
           {"k", nullptr},  // the key field of the average rows
           {"draws", dist.draws}, {"jackknife_blocks", s.plan.jackknife_blocks}, {"nonfinite", dist.nonfinite}};
  row["mse_mean"] = number_or_null(single.mean);
  row["mse_stderr"] = number_or_null(single.stderr_);
  row["mse_median"] = number_or_null(dist.median);
  row["mse_q90"] = number_or_null(dist.q90);
  row["mse_q99"] = number_or_null(dist.q99);
  row["mse_worst"] = number_or_null(dist.worst);
  row["mse_best"] = number_or_null(dist.best);
  row["worst_over_median"] = number_or_null(dist.worst_over_median());
  row["unlucky_threshold"] = number_or_null(dist.unlucky_threshold);
  row["unlucky_count"] = dist.unlucky;
  row["unlucky_fraction"] = dist.unlucky_fraction;
  row["unlucky_lower"] = dist.unlucky_interval.lower;
  row["unlucky_upper"] = dist.unlucky_interval.upper;
  row["bias_sq"] = bv.bias_sq;
  row["bias_sq_stderr"] = bv.bias_sq_stderr;
  row["variance"] = bv.variance;
  row["variance_stderr"] = bv.variance_stderr;
  row["bias_share"] = bv.bias_share();
  Json draws_array = Json::array();
  for (double v : draw_mse) draws_array.push_back(number_or_null(v));
  row["mse_per_draw"] = draws_array;
  return row;
}

}  // namespace

// The rows and checks of one feature map: an average row per k with checks 1 and 2, the draws row, check 3 and the
// unlucky draws.
void report_redraw(const RedrawSetting& s, const std::string& fname, const RedrawSweep& sweep, Result& result) {
  const std::string where = fname + " features, " + s.coupling + ", m=" + std::to_string(s.m) + ", L=" +
                            std::to_string(s.L) + ", d=" + std::to_string(s.d) + (s.causal ? ", causal" : "");
  std::vector<MseSummary> summaries;  // per entry of s.plan.ks
  for (std::size_t i = 0; i < s.plan.ks.size(); ++i)
    summaries.push_back(summarize_mse(s.plan.ks[i] == 1 ? sweep.draw_mse : sweep.group_mse[i], s.plan.jackknife_blocks));
  const MseSummary& single = summaries[static_cast<std::size_t>(std::find(s.plan.ks.begin(), s.plan.ks.end(), 1) - s.plan.ks.begin())];
  const DrawDistribution dist = draw_distribution(sweep.draw_mse, s.unlucky_factor, s.alpha);
  const BiasVarianceFigures bv = bias_variance_figures(sweep.blocks);
  // Signed features: a draw with a negative normalizer shows the output has no mean, so B, V and every MSE_k are
  // not finite numbers and the claims about them settle at no number of draws.
  const std::string no_mean =
      sweep.negative.found()
          ? "the renormalized output has no mean (draw " + std::to_string(sweep.negative.draw) +
                " has a negative normalizer, " + format_number(sweep.negative.value, 3) + " at row " +
                std::to_string(sweep.negative.row) +
                "; docs/theory.md#signed-features-the-renormalized-output-has-no-mean)"
          : std::string();
  average_rows(s, result, fname, where, summaries, sweep, bv, no_mean);
  result.rows.push_back(draws_row(s, fname, dist, single, bv, sweep.draw_mse));
  // "No bias remains" is an equality at B = 0, judged against a margin relative to one draw's MSE: holds where
  // the interval on B lies within 2 % of it, violated where it excludes 0. The jackknife SE over G blocks has
  // G − 1 degrees of freedom: its critical value is Student's t (a normal quantile with 20 blocks ran at about
  // 3× the nominal level).
  const std::string bias_claim =
      "Redrawing: no bias remains after averaging (B = 0 within 2 % of one draw's output MSE)";
  const std::string bias_where = where + ", jackknife SE over " + std::to_string(s.plan.jackknife_blocks) + " blocks";
  if (!no_mean.empty()) {
    result.checks.push_back(unreachable_check(bias_claim, bias_where, 1, no_mean));
  } else {
    ClaimCheck unbiased(bias_claim, bias_where, s.alpha, 1, ClaimCheck::Sides::two, kBiasMargin);
    PointEvidence bias{bv.bias_sq, 0, bv.bias_sq_stderr, 0, 0, bv.draws, sweep.nonfinite_draws,
                       "B=" + format_number(bv.bias_sq)};
    bias.scale = single.mean;
    bias.degrees_of_freedom = s.plan.jackknife_blocks - 1;
    unbiased.judge(bias);
    result.checks.push_back(unbiased.result());
  }
  result.checks.push_back(measured_check(
      "Redrawing: fraction of unlucky draws (MSE > " + format_number(s.unlucky_factor) + " x median)", where,
      dist.unlucky_fraction, std::numeric_limits<double>::quiet_NaN(),
      std::to_string(dist.unlucky) + " of " + std::to_string(dist.draws) + " draws; Clopper-Pearson interval [" +
          format_number(dist.unlucky_interval.lower) + ", " + format_number(dist.unlucky_interval.upper) +
          "] at level " + format_number(1 - s.alpha) + "; worst/median " + format_number(dist.worst_over_median()) +
          " (a measurement, no claim)"));
}

// For compare: average rows pair by features × k, the draws row by features (k null). The mean MSE over the groups
// of k draws is a statistic over its groups (params.groups, or params.draws for k = 1: the single draws, less the
// non-finite ones); B, the squared bias, one over the 20 jackknife blocks (params.plan.jackknife_blocks). Their gate
// figure and range come from add_compare_figures. V and the law's prediction B + V/k are not declared:
// V = MSE_1 − B exactly (stats/bias_variance.hpp), so both are functions of declared figures.
Json redraw_row_schema() {
  return Json{{"key", Json::array({"kind", "features", "k"})},
              {"statistics", Json::array({Json{{"value", "mse"},
                                               {"stderr", "mse_stderr"},
                                               {"count", "groups"},
                                               {"count_param", Json::array({"groups", "draws"})},
                                               {"count_dropped", "nonfinite"},
                                               {"skewness", "mse_gate_skewness"},
                                               {"skewness_sampled", true},
                                               {"range", "mse_range"},
                                               {"defined", "mse_has_mean"}},
                                          Json{{"value", "bias_sq"},
                                               {"stderr", "bias_sq_stderr"},
                                               {"count", "jackknife_blocks"},
                                               {"count_param", "jackknife_blocks"},
                                               {"skewness", "mse_gate_skewness"},
                                               {"skewness_sampled", true},
                                               {"defined", "mse_has_mean"}}})},
              {"exact", Json::array({"estimator", "coupling", "causal", "m", "L", "d", "draws"})},
              {"verdict", "one_over_k_status"}};
}

// The rows of feature map f, for compare. Positive features (φ > 0) make every output row a convex combination of
// the value rows, the exact one too, so each entry's error lies within its column's spread and one draw's MSE (a
// k-average's alike) in [0, mean over columns of (max − min)²]: that range, and the jackknife skewness bound as the
// gate figure (sampled: a rerun's differs); B's stand-in gate figure is the single draws' bound, its
// leave-a-block-out values moving with the blocks' mean errors. Features that can be negative (trig) let the
// estimated normalizer cross 0, where the output has no finite moments: the MSE has no finite mean
// (docs/theory.md), so no gate figure, and mse_has_mean false tells compare the statistic estimates nothing there.
void add_redraw_compare_figures(Result& result, Family f, const Eigen::MatrixXd& v) {
  const std::string name(feature_kind_name(f));
  const bool bounded = family_info(f).positive;
  const double range = (v.colwise().maxCoeff() - v.colwise().minCoeff()).array().square().mean();
  Json single_bound = nullptr;
  for (Json& row : result.rows)
    if (row["features"] == name && row["kind"] == "average" && row["k"] == 1) single_bound = row["mse_skewness_bound"];
  for (Json& row : result.rows) {
    if (row["features"] != name) continue;
    const bool average = row["kind"] == "average";
    row["mse_gate_skewness"] = bounded ? (average ? row["mse_skewness_bound"] : single_bound) : Json(nullptr);
    row["mse_has_mean"] = bounded;
    if (average) row["mse_range"] = bounded ? Json(range) : Json(nullptr);
  }
}

}  // namespace favorlab
