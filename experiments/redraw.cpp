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
// Checks per feature map (evaluation/redraw_report.hpp): 1. averaging k redraws cuts the MSE like 1/k; 2. MSE_k =
// B + V/k; 3. no bias remains; and, with both positive and trig, 4. "positive below trig on most draws" (exact sign
// test; paired_check.hpp).
// --backend cuda: every forward, FAVOR and exact, on the GPU in float32 (backend_option.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/backend.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "evaluation/redraw_report.hpp"
#include "evaluation/redraw_sweep.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "features/feature_family.hpp"
#include "io/format_number.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/paired_check.hpp"

namespace favorlab {

namespace {

constexpr int kJackknifeBlocks = 20;

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
    result.params["row_schema"] = redraw_row_schema();

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
    const RedrawSetting setting{coupling_, causal_, m_, L_, d_, plan, unlucky_factor_, alpha_};
    std::vector<std::vector<double>> per_draw;
    for (std::size_t fi = 0; fi < features.size(); ++fi) {
      AttentionConfig config;
      config.features = features[fi];
      config.coupling = coupling;
      config.m = m_;
      config.causal = causal_;
      const RedrawSweep sweep = run_redraw_sweep(in, exact, config, plan, ctx.seed, backend, ctx.threads,
                                                 part_progress(ctx.progress, fi, features.size()));
      report_redraw(setting, std::string(feature_kind_name(features[fi])), sweep, result);
      add_redraw_compare_figures(result, features[fi], in.v);
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
