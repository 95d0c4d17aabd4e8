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
//   3. "no bias remains (B = 0 within 2 % of one draw's MSE)": violated when B̂ is significantly positive (Student's
//      t for the 20-block jackknife SE) — the renormalized output is a ratio of unbiased estimates, biased at O(1/m);
// and, with both positive and trig, 4. "positive below trig on most draws" (exact sign test; paired_check.hpp).
// --backend cuda: every forward, FAVOR and exact, on the GPU in float32 (backend_option.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "attention/attend.hpp"
#include "attention/attention_error.hpp"
#include "attention/attention_projection.hpp"
#include "attention/favor_error_sweep.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "perf/memory_estimate.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "io/format_number.hpp"
#include "stats/bias_variance.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/edgeworth.hpp"
#include "stats/paired_check.hpp"
#include "stats/running_moments.hpp"
#include "stats/sample_quantile.hpp"
#include "stats/skewness_bound.hpp"

namespace favorlab {

namespace {

constexpr int kJackknifeBlocks = 20;
constexpr double kBiasMargin = 0.02;  // "no bias" means B within 2 % of one draw's output MSE

Json finite_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

struct GroupFigures {
  int k = 1;
  double mse = 0, stderr_ = 0, skewness = 0;
  double skewness_bound = 0;  // the reliability gate's skewness: an upper bound, never the sample value
  std::int64_t groups = 0, nonfinite = 0;
};

GroupFigures summarize(int k, const std::vector<double>& mse) {
  RunningMoments mom;
  GroupFigures g;
  g.k = k;
  std::vector<double> finite;
  for (double v : mse) {
    if (std::isfinite(v)) {
      mom.add(v);
      finite.push_back(v);
    } else {
      ++g.nonfinite;
    }
  }
  g.skewness_bound = skewness_upper_bound(finite, kJackknifeBlocks);
  g.groups = mom.count();
  g.mse = mom.mean();
  g.stderr_ = mom.count() > 1 ? mom.standard_error() : NAN;
  g.skewness = mom.count() > 2 && mom.central_moment(2) > 0 ? mom.skewness() : 0.0;
  return g;
}

class RedrawExperiment final : public Experiment {
 public:
  std::string name() const override { return "redraw"; }
  std::string summary() const override {
    return "Fig. 15 analogue: output error over projection redraws (quantiles, unlucky draws) and averaging k draws";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 200 : 2000; }

  // One input and its exact output, 20 jackknife blocks of two L×dv sums, every draw's MSE per feature map; per
  // concurrent draw or group its braced copies of Q, K, V, W (m×d, d×d blocks), one FAVOR forward, the error and the
  // group's sum.
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
    const double fixed = 4 * matrix + 2 * kJackknifeBlocks * matrix +
                         (static_cast<double>(features_.size()) + 3) * draws * kDouble + groups * kDouble;
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
    app.add_option("--groups", groups_, "Independent groups of k draws per k >= 2 (default: 200, quick 30)");
    app.add_option("--unlucky-factor", unlucky_factor_, "A draw is unlucky when its MSE exceeds this many medians")
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each check (Bonferroni over its points)")
        ->capture_default_str();
    backend_.add_to(app, kDoubleBackendHelp);
  }

  Result run(const RunContext& ctx) override {
    const int groups = resolved_groups(ctx.quick);
    L_ = resolved_L(ctx.quick);
    validate(groups, ctx.trials);
    const Backend backend = backend_.checked();
    const int threads = host_threads_for(backend, ctx.threads);  // loops of forwards: one host thread drives a GPU
    const std::vector<FeatureKind> features = parse_softmax_features(features_, name());
    const Coupling coupling = parse_dense_coupling(coupling_, "--coupling", name());
    const std::int64_t N = ctx.trials;
    Result result;
    result.experiment = name();
    result.params = Json{{"L", L_},           {"d", d_},
                         {"dv", d_},          {"m", m_},
                         {"features", features_}, {"coupling", coupling_},
                         {"causal", causal_}, {"input_kind", "gaussian"},
                         {"input_index", 0},  {"qk_scale", scale_},
                         {"v_scale", 1.0},    {"draws", N},
                         {"k_values", ks_},   {"groups", groups},
                         {"unlucky_factor", unlucky_factor_}, {"jackknife_blocks", kJackknifeBlocks},
                         {"alpha", alpha_}, {"precision", std::string(backend_precision(backend))}};
    BackendOption::record(result, backend);
    result.params["row_schema"] = row_schema();

    const AttentionInput in = gaussian_attention_input(L_, d_, d_, scale_, 1.0, ctx.seed, 0);
    AttentionConfig exact_config;
    exact_config.mechanism = Mechanism::exact;
    exact_config.causal = causal_;
    const Eigen::MatrixXd exact =
        attend_double_on_backend(backend, {in.q}, {in.k}, {in.v}, Eigen::MatrixXd(0, d_), exact_config, ctx.threads)
            .front();

    std::int64_t k_draws = 0;
    for (int k : ks_)
      if (k > 1) k_draws += static_cast<std::int64_t>(k) * groups;
    const std::int64_t per_feature = N + k_draws, total = per_feature * static_cast<std::int64_t>(features.size());
    std::int64_t done = 0;
    auto tick = [&] {
#pragma omp critical(favorlab_redraw_progress)
      {
        ++done;
        if (ctx.progress && (done % 16 == 0 || done == total)) ctx.progress(done, total);
      }
    };

    std::vector<std::vector<double>> per_draw(features.size());
    for (std::size_t fi = 0; fi < features.size(); ++fi) {
      AttentionConfig config;
      config.features = features[fi];
      config.coupling = coupling;
      config.m = m_;
      config.causal = causal_;
      check_attention_inputs<double>({in.q}, {in.k}, {in.v}, draw_attention_projection(config, d_, ctx.seed, 0),
                                     config);
      auto output_of_draw = [&](std::int64_t draw) {
        const Eigen::MatrixXd w = draw_attention_projection(config, d_, ctx.seed, static_cast<std::uint64_t>(draw));
        return attend_double_on_backend(backend, {in.q}, {in.k}, {in.v}, w, config).front();
      };

      // The N single draws, in jackknife blocks of consecutive draws (one task per block: deterministic sums).
      std::vector<double> mse(static_cast<std::size_t>(N));
      std::vector<ErrorBlock> blocks(kJackknifeBlocks, ErrorBlock(exact.rows(), exact.cols()));
      std::int64_t nonfinite_draws = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : nonfinite_draws)
      for (int b = 0; b < kJackknifeBlocks; ++b) {
        const std::int64_t first = N * b / kJackknifeBlocks, last = N * (b + 1) / kJackknifeBlocks;
        for (std::int64_t r = first; r < last; ++r) {
          const Eigen::MatrixXd out = output_of_draw(r);
          mse[static_cast<std::size_t>(r)] = output_mse(out, exact);
          if (out.allFinite())
            blocks[static_cast<std::size_t>(b)].add(out - exact);
          else
            ++nonfinite_draws;
          tick();
        }
      }
      per_draw[fi] = mse;

      // Groups of k fresh draws for each k ≥ 2.
      std::vector<GroupFigures> figures;
      std::int64_t next_draw = N;
      for (int k : ks_) {
        if (k == 1) {
          figures.push_back(summarize(1, mse));
          continue;
        }
        std::vector<double> group_mse(static_cast<std::size_t>(groups));
        const std::int64_t base = next_draw;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int g = 0; g < groups; ++g) {
          Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(exact.rows(), exact.cols());
          for (int j = 0; j < k; ++j) {
            sum += output_of_draw(base + static_cast<std::int64_t>(g) * k + j);
            tick();
          }
          group_mse[static_cast<std::size_t>(g)] = output_mse(sum / k, exact);
        }
        next_draw += static_cast<std::int64_t>(k) * groups;
        figures.push_back(summarize(k, group_mse));
      }

      // Distribution of the single-draw MSE.
      std::vector<double> sorted;
      for (double v : mse)
        if (std::isfinite(v)) sorted.push_back(v);
      std::sort(sorted.begin(), sorted.end());
      const std::string fname(feature_kind_name(features[fi]));
      const std::string where = fname + " features, " + coupling_ + ", m=" + std::to_string(m_) + ", L=" +
                                std::to_string(L_) + ", d=" + std::to_string(d_) + (causal_ ? ", causal" : "");
      Json dist{{"kind", "draws"},
                {"features", fname},
                {"estimator", fname},
                {"coupling", coupling_},
                {"causal", causal_},
                {"m", m_},
                {"L", L_},
                {"d", d_},
                {"k", nullptr},  // the key field of the average rows
                {"draws", N},
                {"jackknife_blocks", kJackknifeBlocks},
                {"nonfinite", N - static_cast<std::int64_t>(sorted.size())}};
      const bool have = !sorted.empty();
      const double median = have ? sample_quantile(sorted, 0.5) : NAN;
      std::int64_t unlucky = 0;
      for (double v : mse) unlucky += !(v <= unlucky_factor_ * median);  // non-finite draws count as unlucky
      const ProportionInterval ci = clopper_pearson(unlucky, N, alpha_);
      const GroupFigures& single = figures[static_cast<std::size_t>(std::find(ks_.begin(), ks_.end(), 1) - ks_.begin())];
      dist["mse_mean"] = finite_or_null(single.mse);
      dist["mse_stderr"] = finite_or_null(single.stderr_);
      dist["mse_median"] = finite_or_null(median);
      dist["mse_q90"] = finite_or_null(have ? sample_quantile(sorted, 0.9) : NAN);
      dist["mse_q99"] = finite_or_null(have ? sample_quantile(sorted, 0.99) : NAN);
      dist["mse_worst"] = finite_or_null(have ? sorted.back() : NAN);
      dist["mse_best"] = finite_or_null(have ? sorted.front() : NAN);
      dist["worst_over_median"] = finite_or_null(have ? sorted.back() / median : NAN);
      dist["unlucky_threshold"] = finite_or_null(unlucky_factor_ * median);
      dist["unlucky_count"] = unlucky;
      dist["unlucky_fraction"] = static_cast<double>(unlucky) / static_cast<double>(N);
      dist["unlucky_lower"] = ci.lower;
      dist["unlucky_upper"] = ci.upper;

      // Bias-variance split with jackknife SEs.
      const BiasVariance bv = bias_variance(blocks);
      const double bias_se = jackknife_standard_error(blocks, [](const BiasVariance& x) { return x.bias_sq; });
      const double var_se = jackknife_standard_error(blocks, [](const BiasVariance& x) { return x.variance; });
      dist["bias_sq"] = bv.bias_sq;
      dist["bias_sq_stderr"] = bias_se;
      dist["variance"] = bv.variance;
      dist["variance_stderr"] = var_se;
      dist["bias_share"] = bv.bias_sq / (bv.bias_sq + bv.variance);
      Json draws_array = Json::array();
      for (double v : mse) draws_array.push_back(finite_or_null(v));
      dist["mse_per_draw"] = draws_array;

      const std::size_t big_k = static_cast<std::size_t>(std::count_if(ks_.begin(), ks_.end(), [](int k) { return k > 1; }));
      ClaimCheck one_over_k("Redrawing: averaging k redrawn outputs cuts the output MSE like 1/k (k MSE_k = MSE_1)",
                            where, alpha_, std::max<std::size_t>(big_k, 1));
      ClaimCheck law("Redrawing: MSE of the k-average = bias^2 + variance/k (B, V from the single draws)", where,
                     alpha_, std::max<std::size_t>(big_k, 1));
      for (const GroupFigures& g : figures) {
        const double predicted = bv.bias_sq + bv.variance / g.k;
        const double predicted_se = jackknife_standard_error(
            blocks, [k = g.k](const BiasVariance& x) { return x.bias_sq + x.variance / k; });
        Json row{{"kind", "average"},   {"features", fname},  {"estimator", fname}, {"coupling", coupling_},
                 {"causal", causal_},   {"m", m_},            {"L", L_},            {"d", d_},
                 {"k", g.k},            {"groups", g.groups}, {"jackknife_blocks", kJackknifeBlocks},
                 {"nonfinite", g.nonfinite},
                 {"mse", finite_or_null(g.mse)}, {"mse_stderr", finite_or_null(g.stderr_)},
                 {"mse_skewness", g.skewness}, {"mse_skewness_bound", finite_or_null(g.skewness_bound)},
                 {"mse_one_over_k", finite_or_null(single.mse / g.k)},
                 {"mse_theory", finite_or_null(predicted)}, {"mse_theory_stderr", finite_or_null(predicted_se)}};
        if (g.k > 1) {
          const std::string label = "k=" + std::to_string(g.k);
          // Two independent means (G groups, N single draws), each gated by an upper bound on its skewness
          // (stats/skewness_bound.hpp; the sample skewness is biased low for heavy tails): the difference is
          // trustworthy when each mean is, so the groups needed are G·max(need_k/G, need_1/N).
          const double tail_alpha = alpha_ / static_cast<double>(big_k);  // two-sided: the point alpha per tail
          const double need_k = static_cast<double>(
              trials_for_reliable_z_test(g.skewness_bound, one_over_k.critical_z(), tail_alpha));
          const double need_1 = static_cast<double>(
              trials_for_reliable_z_test(single.skewness_bound, one_over_k.critical_z(), tail_alpha));
          const double scale = std::max(need_k / static_cast<double>(g.groups),
                                        need_1 / static_cast<double>(single.groups));
          const auto groups_needed = static_cast<std::int64_t>(std::min(9.0e18, std::ceil(scale * g.groups)));
          PointEvidence ev{g.k * g.mse, single.mse, std::hypot(g.k * g.stderr_, single.stderr_), 0, 0, g.groups,
                           g.nonfinite + single.nonfinite, label};
          ev.min_trials = groups_needed;
          const PointVerdict a = one_over_k.judge(ev);
          const PointVerdict b = law.judge({g.mse, predicted, std::hypot(g.stderr_, predicted_se), 0,
                                            g.skewness_bound, g.groups, g.nonfinite + nonfinite_draws, label});
          row["one_over_k_z"] = a.z;
          row["one_over_k_status"] = a.status;
          row["law_z"] = b.z;
          row["law_status"] = b.status;
        }
        result.rows.push_back(row);
      }
      result.rows.push_back(dist);
      if (big_k > 0) {
        result.checks.push_back(one_over_k.result());
        result.checks.push_back(law.result());
      }
      // "No bias remains" is an equality at B = 0, judged against a margin relative to one draw's MSE: holds where
      // the interval on B lies within 2 % of it, violated where it excludes 0. The jackknife SE over G blocks has
      // G − 1 degrees of freedom: its critical value is Student's t (a normal quantile with 20 blocks ran at about
      // 3× the nominal level).
      ClaimCheck unbiased("Redrawing: no bias remains after averaging (B = 0 within 2 % of one draw's output MSE)",
                          where + ", jackknife SE over " + std::to_string(kJackknifeBlocks) + " blocks", alpha_, 1,
                          ClaimCheck::Sides::two, kBiasMargin);
      PointEvidence bias{bv.bias_sq, 0, bias_se, 0, 0, bv.draws, nonfinite_draws, "B=" + format_number(bv.bias_sq)};
      bias.scale = single.mse;
      bias.degrees_of_freedom = kJackknifeBlocks - 1;
      unbiased.judge(bias);
      result.checks.push_back(unbiased.result());
      Check unlucky_check = measured_check(
          "Redrawing: fraction of unlucky draws (MSE > " + format_number(unlucky_factor_) + " x median)", where,
          static_cast<double>(unlucky) / static_cast<double>(N), std::numeric_limits<double>::quiet_NaN(),
          std::to_string(unlucky) + " of " + std::to_string(N) + " draws; Clopper-Pearson interval [" +
              format_number(ci.lower) + ", " + format_number(ci.upper) + "] at level " + format_number(1 - alpha_) +
              "; worst/median " + format_number(have ? sorted.back() / median : NAN) + " (a measurement, no claim)");
      result.checks.push_back(unlucky_check);
    }

    const auto pos = std::find(features.begin(), features.end(), FeatureKind::positive);
    const auto trig = std::find(features.begin(), features.end(), FeatureKind::trig);
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
  // For compare: average rows pair by features × k, the draws row by features (k null). The mean MSE over the groups
  // of k draws is a statistic over its groups, gated by the experiment's own skewness gate (an upper bound from the
  // jackknife, stats/skewness_bound.hpp, taken from the baseline only); the single-draw mean of the draws row is the
  // k = 1 row's. B, V and the law's prediction come from 20 jackknife blocks: their count is the blocks, and with no
  // a-priori skewness (and Student's t, not the normal, for 19 degrees of freedom) they are gated, not compared.
  static Json row_schema() {
    auto jackknifed = [](const char* value, const char* stderr_field) {
      return Json{{"value", value},
                  {"stderr", stderr_field},
                  {"count", "jackknife_blocks"},
                  {"skewness", "jackknife_skewness"}};  // absent from the rows: unknown, always gated
    };
    return Json{{"key", Json::array({"kind", "features", "k"})},
                {"statistics", Json::array({Json{{"value", "mse"},
                                                 {"stderr", "mse_stderr"},
                                                 {"count", "groups"},
                                                 {"skewness", "mse_skewness_bound"}},
                                            jackknifed("bias_sq", "bias_sq_stderr"),
                                            jackknifed("variance", "variance_stderr"),
                                            jackknifed("mse_theory", "mse_theory_stderr")})},
                {"exact", Json::array({"estimator", "coupling", "causal", "m", "L", "d", "draws"})},
                {"verdict", "one_over_k_status"}};
  }

  int resolved_L(bool quick) const { return l_option_ && l_option_->count() > 0 ? L_ : (quick ? 512 : 1024); }
  int resolved_groups(bool quick) const { return groups_ > 0 ? groups_ : (quick ? 30 : 200); }

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
  BackendOption backend_;
};

}  // namespace

std::unique_ptr<Experiment> make_redraw_experiment() { return std::make_unique<RedrawExperiment>(); }

}  // namespace favorlab
