// `favorlab redraw` — an analogue of Fig. 15 (feature redrawing): how much does the output error of FAVOR depend on
// the projection draw, and what does averaging redrawn outputs buy?
// One input (Gaussian Q, K, V, input 0), its exact output, and for each feature map:
//   • the distribution of the output MSE over N = --trials independent projection draws (draws 0..N−1): mean, median,
//     90 %/99 % quantiles, worst, and the fraction of "unlucky" draws, MSE > --unlucky-factor × the median MSE (with
//     its Clopper–Pearson interval at level --alpha);
//   • the output MSE of the average of k independent redrawn outputs, k ∈ --k-values: k = 1 is the N draws above,
//     every k ≥ 2 has --groups groups of k fresh draws (indices after N), so the k's are independent;
//   • the split of one draw's error into squared bias B and variance V (stats/bias_variance.hpp, jackknife SEs over
//     20 blocks of the N draws): the average of k draws has expected MSE B + V/k.
// Checks per feature map (z intervals through the data's own SEs, Bonferroni over the k ≥ 2, equivalence within 2 %;
// each mean gated by a jackknife upper bound on its skewness, stats/skewness_bound.hpp):
//   1. "averaging k redraws cuts the MSE like 1/k": k·MSE_k = MSE_1 (fails by (k−1)B where the bias matters);
//   2. "MSE_k = B + V/k": the bias-variance law with B, V from the N draws (a consistency check of the split);
//      both judged on their differences estimated from the groups' cross products, far lighter-tailed than the MSEs
//      (stats/redraw_summary.hpp, docs/theory.md#redrawing-averages-of-k-draws);
//   3. "no bias remains (B = 0 within 2 % of one draw's MSE)": violated when B̂ is significantly positive (Student's
//      t for the 20-block jackknife SE) — the renormalized output is a ratio of unbiased estimates, biased at O(1/m);
// for trig features (signed) a draw with a negative normalizer proves the output has no mean: checks 1–3 are then
// out of reach at any number of draws, and say why
// (docs/theory.md#signed-features-the-renormalized-output-has-no-mean);
// and, with both positive and trig, 4. "positive below trig on most draws" (exact sign test; paired_check.hpp).
// --backend cuda: every forward, FAVOR and exact, on the GPU in float32 (backend_option.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/backend.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "evaluation/redraw_sweep.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "features/feature_family.hpp"
#include "io/format_number.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/edgeworth.hpp"
#include "stats/paired_check.hpp"
#include "stats/redraw_summary.hpp"

namespace favorlab {

namespace {

constexpr int kJackknifeBlocks = 20;
constexpr double kBiasMargin = 0.02;  // "no bias" means B within 2 % of one draw's output MSE

class RedrawExperiment final : public Experiment {
 public:
  std::string name() const override { return "redraw"; }
  std::string summary() const override {
    return "Fig. 15 analogue: output error over projection redraws (quantiles, unlucky draws) and averaging k draws";
  }
  // The full run's sizes settle the positive points of checks 1 and 2 at k ≥ 4 (measured: the cross products' skewness
  // gate passes there at 1600 groups; B̂'s SE from 4000 draws leaves the law at k = 16 room inside its 2 % margin).
  std::int64_t default_trials(bool quick) const override { return quick ? 200 : 4000; }

  // One input and its exact output, 20 jackknife blocks of two L×dv sums, every draw's MSE per feature map and every
  // group's MSE and cross product; per concurrent draw or group its braced copies of Q, K, V, W (m×d, d×d blocks), one
  // FAVOR forward, the error and the group's sum.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double L = resolved_L(ctx.quick), d = d_, m = m_, draws = static_cast<double>(ctx.trials);
    const double groups = resolved_groups(ctx.quick), matrix = L * d * kDouble;
    AttendShape favor{1, L, L, d, d, m, widest_columns_per_row(features_) * m};
    favor.causal = causal_;
    AttendShape exact{1, L, L, d, d};
    exact.exact = true;
    const double worker = braced_heads_bytes(favor) + widest_projection_bytes({coupling_}, m, d) +
                          attend_bytes(favor, 1) + 3 * matrix;
    // Per k: each group's MSE and cross product, kept for every feature map.
    const double fixed = 4 * matrix + 2 * kJackknifeBlocks * matrix +
                         (static_cast<double>(features_.size()) + 3) * draws * kDouble +
                         2 * static_cast<double>(features_.size() * ks_.size()) * groups * kDouble;
    return estimate(fixed + std::max(task_workers(std::max<double>(kJackknifeBlocks, groups), ctx.threads) * worker,
                                     braced_heads_bytes(exact) + attend_bytes(exact, ctx.threads)),
                    "--L, --m, --d or --trials");
  }

  void add_options(CLI::App& app) override {
    l_option_ = app.add_option("--L", L_, "Sequence length (default: 1024, quick 512)");
    app.add_option("--d", d_, "Query/key dimension (and value dimension)")->capture_default_str();
    app.add_option("--m", m_, "Number of random features")->capture_default_str();
    app.add_option("--features", features_, "Feature maps: " + family_list(estimates_softmax))
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--coupling", coupling_, "Projection coupling: iid, orthogonal or simplex")->capture_default_str();
    app.add_flag("--causal", causal_, "Causal (unidirectional) attention instead of bidirectional");
    app.add_option("--scale", scale_, "Standard deviation of the entries of the Gaussian Q and K (V: 1)")
        ->capture_default_str();
    app.add_option("--k-values", ks_, "Numbers of redrawn outputs averaged, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--groups", groups_, "Independent groups of k draws per k >= 2 (default: 1600, quick 30)");
    app.add_option("--unlucky-factor", unlucky_factor_, "A draw is unlucky when its MSE exceeds this many medians")
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each check (Bonferroni over its points)")
        ->capture_default_str();
    app.add_option("--input-seed", input_seed_,
                   "Seed of the Gaussian Q, K, V (--seed draws the projections; the default is --seed's default, so "
                   "that another --seed redraws W for the same inputs)")
        ->capture_default_str();
    backend_.add_to(app, kDoubleBackendHelp);
  }

  Result run(const RunContext& ctx) override {
    const int groups = resolved_groups(ctx.quick);
    L_ = resolved_L(ctx.quick);
    validate(groups, ctx.trials);
    const Backend backend = backend_.checked();
    const std::vector<Family> features = parse_softmax_features(features_, name());
    const Coupling coupling = parse_dense_coupling(coupling_, "--coupling", name());
    const std::int64_t N = ctx.trials;
    Result result;
    result.experiment = name();
    result.params = Json{{"L", L_},           {"d", d_},
                         {"dv", d_},          {"m", m_},
                         {"features", features_}, {"coupling", coupling_},
                         {"causal", causal_}, {"input_kind", "gaussian"},
                         {"input_index", 0},  {"input_seed", input_seed_}, {"qk_scale", scale_},
                         {"v_scale", 1.0},    {"draws", N},
                         {"k_values", ks_},   {"groups", groups},
                         {"unlucky_factor", unlucky_factor_}, {"jackknife_blocks", kJackknifeBlocks},
                         {"alpha", alpha_}, {"precision", std::string(backend_precision(backend))}};
    BackendOption::record(result, backend);
    result.params["row_schema"] = row_schema();

    // The input has a seed of its own: a rerun with another --seed then asks the same question of other projection
    // draws, which is what `favorlab compare` can judge.
    const AttentionInput in = gaussian_attention_input(L_, d_, d_, scale_, 1.0, input_seed_, 0);
    AttentionConfig exact_config;
    exact_config.mechanism = Mechanism::exact;
    exact_config.causal = causal_;
    const Eigen::MatrixXd exact =
        attend_double_on_backend(backend, {in.q}, {in.k}, {in.v}, Eigen::MatrixXd(0, d_), exact_config, ctx.threads)
            .front();

    const RedrawPlan plan{N, ks_, groups, kJackknifeBlocks};
    std::vector<std::vector<double>> per_draw;
    for (std::size_t fi = 0; fi < features.size(); ++fi) {
      AttentionConfig config;
      config.features = features[fi];
      config.coupling = coupling;
      config.m = m_;
      config.causal = causal_;
      const RedrawSweep sweep = run_redraw_sweep(in, exact, config, plan, ctx.seed, backend, ctx.threads,
                                                 part_progress(ctx.progress, fi, features.size()));
      report(result, std::string(feature_kind_name(features[fi])), sweep);
      add_compare_figures(result, features[fi], in.v);
      per_draw.push_back(sweep.draw_mse);
    }

    const auto pos = std::find(features.begin(), features.end(), Family::positive);
    const auto trig = std::find(features.begin(), features.end(), Family::trig);
    if (pos != features.end() && trig != features.end()) {
      PairedClaimCheck check("Positive features give lower output MSE than trig (paired over the same draws W)",
                             coupling_ + ", m=" + std::to_string(m_) + ", L=" + std::to_string(L_) + ", " +
                                 std::to_string(N) + " draws",
                             alpha_, 1);
      check.judge(per_draw[static_cast<std::size_t>(pos - features.begin())],
                  per_draw[static_cast<std::size_t>(trig - features.begin())], "m=" + std::to_string(m_));
      result.checks.push_back(check.result());
    }
    return result;
  }

 private:
  // The rows and checks of one feature map: an average row per k with checks 1 and 2, the draws row, check 3 and the
  // unlucky draws.
  void report(Result& result, const std::string& fname, const RedrawSweep& sweep) const {
    const std::string where = fname + " features, " + coupling_ + ", m=" + std::to_string(m_) + ", L=" +
                              std::to_string(L_) + ", d=" + std::to_string(d_) + (causal_ ? ", causal" : "");
    std::vector<MseSummary> summaries;  // per entry of ks_
    for (std::size_t i = 0; i < ks_.size(); ++i)
      summaries.push_back(summarize_mse(ks_[i] == 1 ? sweep.draw_mse : sweep.group_mse[i], kJackknifeBlocks));
    const MseSummary& single = summaries[static_cast<std::size_t>(std::find(ks_.begin(), ks_.end(), 1) - ks_.begin())];
    const DrawDistribution dist = draw_distribution(sweep.draw_mse, unlucky_factor_, alpha_);
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
    average_rows(result, fname, where, summaries, sweep, bv, no_mean);
    result.rows.push_back(draws_row(fname, dist, single, bv, sweep.draw_mse));
    // "No bias remains" is an equality at B = 0, judged against a margin relative to one draw's MSE: holds where
    // the interval on B lies within 2 % of it, violated where it excludes 0. The jackknife SE over G blocks has
    // G − 1 degrees of freedom: its critical value is Student's t (a normal quantile with 20 blocks ran at about
    // 3× the nominal level).
    const std::string bias_claim =
        "Redrawing: no bias remains after averaging (B = 0 within 2 % of one draw's output MSE)";
    const std::string bias_where = where + ", jackknife SE over " + std::to_string(kJackknifeBlocks) + " blocks";
    if (!no_mean.empty()) {
      result.checks.push_back(unreachable_check(bias_claim, bias_where, 1, no_mean));
    } else {
      ClaimCheck unbiased(bias_claim, bias_where, alpha_, 1, ClaimCheck::Sides::two, kBiasMargin);
      PointEvidence bias{bv.bias_sq, 0, bv.bias_sq_stderr, 0, 0, bv.draws, sweep.nonfinite_draws,
                         "B=" + format_number(bv.bias_sq)};
      bias.scale = single.mean;
      bias.degrees_of_freedom = kJackknifeBlocks - 1;
      unbiased.judge(bias);
      result.checks.push_back(unbiased.result());
    }
    result.checks.push_back(measured_check(
        "Redrawing: fraction of unlucky draws (MSE > " + format_number(unlucky_factor_) + " x median)", where,
        dist.unlucky_fraction, std::numeric_limits<double>::quiet_NaN(),
        std::to_string(dist.unlucky) + " of " + std::to_string(dist.draws) + " draws; Clopper-Pearson interval [" +
            format_number(dist.unlucky_interval.lower) + ", " + format_number(dist.unlucky_interval.upper) +
            "] at level " + format_number(1 - alpha_) + "; worst/median " + format_number(dist.worst_over_median()) +
            " (a measurement, no claim)"));
  }

  // The average rows of one feature map, k = 1 (the single draws) and each k ≥ 2, with checks 1 (k·MSE_k = MSE_1)
  // and 2 (MSE_k = B + V/k) on the k ≥ 2 (z intervals, Bonferroni over them). Each is judged on its difference
  // estimated from the groups' cross products (stats/redraw_summary.hpp: RedrawGap), whose tail is far lighter than
  // the MSEs'; no_mean (non-empty): the claims are out of reach, and why.
  void average_rows(Result& result, const std::string& fname, const std::string& where,
                    const std::vector<MseSummary>& summaries, const RedrawSweep& sweep, const BiasVarianceFigures& bv,
                    const std::string& no_mean) const {
    const MseSummary& single = summaries[static_cast<std::size_t>(std::find(ks_.begin(), ks_.end(), 1) - ks_.begin())];
    const std::size_t big_k = static_cast<std::size_t>(std::count_if(ks_.begin(), ks_.end(), [](int k) { return k > 1; }));
    const std::string claim1 = "Redrawing: averaging k redrawn outputs cuts the output MSE like 1/k (k MSE_k = MSE_1)";
    const std::string claim2 = "Redrawing: MSE of the k-average = bias^2 + variance/k (B, V from the single draws)";
    ClaimCheck one_over_k(claim1, where, alpha_, std::max<std::size_t>(big_k, 1));
    ClaimCheck law(claim2, where, alpha_, std::max<std::size_t>(big_k, 1));
    const double tail_alpha = alpha_ / static_cast<double>(std::max<std::size_t>(big_k, 1));
    for (std::size_t i = 0; i < ks_.size(); ++i) {
      const int k = ks_[i];
      const MseSummary& g = summaries[i];
      const MsePrediction predicted = averaged_mse_prediction(sweep.blocks, k);
      Json row{{"kind", "average"},   {"features", fname},  {"estimator", fname}, {"coupling", coupling_},
               {"causal", causal_},   {"m", m_},            {"L", L_},            {"d", d_},
               {"k", k},              {"groups", g.count},  {"jackknife_blocks", kJackknifeBlocks},
               {"nonfinite", g.nonfinite},
               {"mse", number_or_null(g.mean)}, {"mse_stderr", number_or_null(g.stderr_)},
               {"mse_skewness", g.skewness}, {"mse_skewness_bound", number_or_null(g.skewness_bound)},
               {"mse_one_over_k", number_or_null(single.mean / k)},
               {"mse_theory", number_or_null(predicted.value)}, {"mse_theory_stderr", number_or_null(predicted.stderr_)}};
      if (k > 1) {
        const std::string label = "k=" + std::to_string(k);
        const RedrawGap a = one_over_k_gap(sweep.group_cross[i], k, kJackknifeBlocks);
        const RedrawGap b = law_gap(sweep.group_cross[i], k, kJackknifeBlocks, bv, kJackknifeBlocks);
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
  Json draws_row(const std::string& fname, const DrawDistribution& dist, const MseSummary& single,
                 const BiasVarianceFigures& bv, const std::vector<double>& draw_mse) const {
    Json row{{"kind", "draws"}, {"features", fname}, {"estimator", fname}, {"coupling", coupling_},
             {"causal", causal_}, {"m", m_},         {"L", L_},            {"d", d_},
             {"k", nullptr},  // the key field of the average rows
             {"draws", dist.draws}, {"jackknife_blocks", kJackknifeBlocks}, {"nonfinite", dist.nonfinite}};
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

  // For compare: average rows pair by features × k, the draws row by features (k null). The mean MSE over the groups
  // of k draws is a statistic over its groups (params.groups, or params.draws for k = 1: the single draws, less the
  // non-finite ones); B, the squared bias, one over the 20 jackknife blocks (params.jackknife_blocks). Their gate
  // figure and range come from add_compare_figures. V and the law's prediction B + V/k are not declared:
  // V = MSE_1 − B exactly (stats/bias_variance.hpp), so both are functions of declared figures.
  static Json row_schema() {
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
  static void add_compare_figures(Result& result, Family f, const Eigen::MatrixXd& v) {
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

  int resolved_L(bool quick) const { return l_option_ && l_option_->count() > 0 ? L_ : (quick ? 512 : 1024); }
  int resolved_groups(bool quick) const { return groups_ > 0 ? groups_ : (quick ? 30 : 1600); }

  void validate(int groups, std::int64_t trials) const {
    if (L_ < 1) throw std::invalid_argument("--L must be at least 1, got " + std::to_string(L_));
    if (d_ < 1) throw std::invalid_argument("--d must be at least 1, got " + std::to_string(d_));
    if (m_ <= 0) throw std::invalid_argument("--m must be positive, got " + std::to_string(m_));
    if (features_.empty()) throw std::invalid_argument("--features needs at least one feature map");
    if (groups < 2) throw std::invalid_argument("--groups must be at least 2, got " + std::to_string(groups));
    if (trials < kJackknifeBlocks)
      throw std::invalid_argument("--trials (draws) must be at least " + std::to_string(kJackknifeBlocks) +
                                  " for the jackknife blocks, got " + std::to_string(trials));
    if (std::find(ks_.begin(), ks_.end(), 1) == ks_.end())
      throw std::invalid_argument("--k-values must include 1 (the single draws)");
    for (int k : ks_)
      if (k < 1) throw std::invalid_argument("--k-values must be at least 1, got " + std::to_string(k));
    if (!(unlucky_factor_ > 1) || !std::isfinite(unlucky_factor_))
      throw std::invalid_argument("--unlucky-factor must be finite and > 1, got " + format_number(unlucky_factor_));
    if (!(scale_ > 0) || !std::isfinite(scale_))
      throw std::invalid_argument("--scale must be finite and > 0, got " + format_number(scale_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
  }

  CLI::Option* l_option_ = nullptr;
  int L_ = 1024, d_ = 16, m_ = 64;  // L: 1024, quick 512 unless given
  std::vector<std::string> features_{"positive", "trig"};
  std::string coupling_ = "orthogonal";
  bool causal_ = false;
  double scale_ = 1.0;
  std::vector<int> ks_{1, 2, 4, 8, 16};
  int groups_ = 0;
  double unlucky_factor_ = 2.0;
  double alpha_ = 1e-3;
  std::uint64_t input_seed_ = RunContext{}.seed;  // --seed's default
  BackendOption backend_;
};

}  // namespace

std::unique_ptr<Experiment> make_redraw_experiment() { return std::make_unique<RedrawExperiment>(); }

}  // namespace favorlab
