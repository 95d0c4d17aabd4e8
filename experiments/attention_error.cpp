// `favorlab attention-error` — Performers Fig. 4: output MSE of FAVOR against exact attention as m grows.
// For every mode (bidirectional, causal) × coupling (iid, orthogonal) × feature map (trig, positive, hyperbolic,
// regularized) × m, the output MSE mean_{i,c}(Âtt − Att)² on each of --trials independent inputs (Gaussian Q, K, V;
// input i uses projection draw i; or the heads of --q/--k/--v .npy files, one input per head), summarised as
// mean ± std over the inputs; beside it the relative error MSE / variance of the exact output (1: no better than
// predicting the mean row) and uniform attention's error on the same inputs (attention_baselines.hpp). Checks, each a
// paired comparison on the same inputs (evaluation/favor_arm_comparisons.hpp; the exact sign test over the inputs,
// Bonferroni over the m values):
//   1. orthogonal below iid, per feature map and mode;
//   2. positive below trig, per coupling and mode.
// With --until-conclusive (the full reproduce run) an open point gets more Gaussian inputs in looks of doubling size,
// each look's sign test exact at its share of α (favor_arm_comparisons.hpp); the rows keep the pilot's figures and
// record the look (vs_*_look) and inputs (vs_*_inputs) of their verdicts.
// --backend cuda: every forward, FAVOR and exact, on the GPU in float32 (backend_option.hpp); --precision tf32 or
// bfloat16 puts FAVOR's products on the tensor cores in that format (the exact reference stays float32).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "evaluation/attention_baselines.hpp"
#include "evaluation/favor_arm_comparisons.hpp"
#include "evaluation/favor_error_summary.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "io/format_number.hpp"
#include "io/npy_heads.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

namespace {

class AttentionErrorExperiment final : public Experiment {
 public:
  std::string name() const override { return "attention-error"; }
  std::string summary() const override {
    return "Fig. 4: output MSE of FAVOR attention vs exact against m, orthogonal vs iid, positive vs trig";
  }
  // Trials are independent inputs (15, as in Fig. 4).
  std::int64_t default_trials(bool) const override { return 15; }
  // With --until-conclusive the open paired points get more Gaussian inputs (favor_arm_comparisons.hpp).
  bool takes_looks() const override { return true; }

  std::vector<std::pair<std::string, std::string>> input_files() const override {
    return {{"--q", q_path_}, {"--k", k_path_}, {"--v", v_path_}};
  }

  // All inputs are held at once (--trials Gaussian inputs, or every head of the files: read, then copied), with their
  // exact outputs per mode; per concurrent (configuration, input) task its braced copies of Q, K, V, its W (m×d, d×d
  // blocks) and one forward — FAVOR at the largest m and widest features, or exact attention (a 128 × 256 logits
  // tile per thread).
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    double inputs = static_cast<double>(ctx.trials), lq = resolved_L(ctx.quick), lk = lq, d = d_, dv = d_;
    double held = 1;  // copies of the inputs at their peak
    if (!q_path_.empty() && !k_path_.empty() && !v_path_.empty()) {
      const auto q = npy_heads(q_path_), k = npy_heads(k_path_), v = npy_heads(v_path_);
      if (q && k && v) inputs = q->heads, lq = q->rows, lk = k->rows, d = q->cols, dv = v->cols, held = 2;
    }
    double max_m = 0;
    for (int m : resolved_ms(ctx.quick)) max_m = std::max<double>(max_m, m);
    const double columns = widest_columns_per_row(features_) * max_m;
    const double one_input = (lq * d + lk * d + lk * dv) * kDouble;
    double modes = 0, forward = 0;
    for (const std::string& mode : modes_) {
      ++modes;
      AttendShape favor{1, lq, lk, d, dv, max_m, columns};
      favor.causal = mode == "causal";
      forward = std::max(forward, attend_bytes(favor, 1));
    }
    AttendShape exact{1, lq, lk, d, dv};
    exact.exact = true;
    const double task = braced_heads_bytes(exact) + widest_projection_bytes(couplings_, max_m, d) +
                        std::max(forward, attend_bytes(exact, 1)) + lq * dv * kDouble;
    const double tasks = inputs * static_cast<double>(features_.size() * couplings_.size()) * modes *
                         std::max<double>(1, static_cast<double>(resolved_ms(ctx.quick).size()));
    const double baseline = braced_heads_bytes(exact) + attend_bytes(exact, ctx.threads);
    return estimate(held * inputs * one_input + inputs * modes * lq * dv * kDouble +
                        std::max(task_workers(tasks, ctx.threads) * task, baseline) + tasks * kDouble,
                    "--L, --m-values, --d or --trials");
  }

  void add_options(CLI::App& app) override {
    l_option_ = app.add_option("--L", L_, "Sequence length (default: 4096, quick 1024)");
    app.add_option("--d", d_, "Query/key dimension (and value dimension)")->capture_default_str();
    app.add_option("--m-values", ms_, "Numbers of random features, comma-separated (default: 16,32,64,128,256; quick "
                                      "16,64,256)")
        ->delimiter(',');
    app.add_option("--features", features_, "Feature maps: " + family_list(estimates_softmax))
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--couplings", couplings_, "Projection couplings: iid, orthogonal, simplex")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--modes", modes_, "Attention modes: bidirectional, causal")->delimiter(',')->capture_default_str();
    app.add_option("--scale", scale_, "Standard deviation of the entries of the Gaussian Q and K (V: 1)")
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each check (Bonferroni over its m values)")
        ->capture_default_str();
    app.add_option("--q", q_path_, "Queries from a .npy file, (L, d) or (H, L, d): each head is one input (with --k, --v)");
    app.add_option("--k", k_path_, "Keys from a .npy file, same shape as --q");
    app.add_option("--v", v_path_, "Values from a .npy file, (L, dv) or (H, L, dv)");
    backend_.add_to(app, kDoubleBackendHelp);
    backend_.add_precision_to(app);
  }

  Result run(const RunContext& ctx) override {
    const int L = resolved_L(ctx.quick);
    const std::vector<int> ms = resolved_ms(ctx.quick);
    validate(L, ms);
    const Backend backend = backend_.checked();
    const ProductPrecision products = backend_.precision(backend);
    const std::vector<Family> features = parse_softmax_features(features_, name());
    std::vector<Coupling> couplings;
    for (const auto& c : couplings_) couplings.push_back(parse_dense_coupling(c, "--couplings", name()));
    const std::vector<bool> causal_modes = checked_modes(features);

    const bool from_files = !q_path_.empty() || !k_path_.empty() || !v_path_.empty();
    const std::vector<AttentionInput> inputs = load_inputs(L, from_files, ctx);
    Result result;
    result.experiment = name();
    result.params = params(L, ms, inputs, from_files, backend);
    BackendOption::record(result, backend, products);

    const std::vector<FavorArm> arms = favor_arm_grid(causal_modes, couplings, features, ms);
    PilotErrors pilot = measure_favor_arms(arms, inputs, causal_modes, backend, ctx, products);
    const ArmInputs shape{static_cast<int>(inputs.front().k.rows()), static_cast<int>(inputs.front().q.cols()),
                      static_cast<int>(inputs.size()), from_files, ctx.looks.sequential()};
    // The rows describe the pilot's inputs (Fig. 4's 15); the looks add inputs to the paired verdicts only.
    std::vector<Json> rows;
    for (std::size_t a = 0; a < arms.size(); ++a)
      rows.push_back(favor_arm_row(arms[a],
                                   summarize_output_error(pilot.mse[a], pilot.baselines[arms[a].causal ? 1 : 0]),
                                   pilot.mse[a], shape, scale_));

    std::vector<std::string> prefixes;
    const std::vector<ArmComparison> comparisons =
        fig4_comparisons(arms, features, couplings, modes_, shape, ms, prefixes);
    ArmLookSetup setup{&pilot.configs, {L, d_, d_, scale_, 1.0}, ctx.seed, ctx.threads, backend, alpha_, ctx.looks,
                       pilot.seconds, ctx.progress};
    const PairedLookOutcome outcome = compare_arms(comparisons, pilot.mse, setup);
    add_arm_verdicts(result, rows, comparisons, prefixes, outcome, ctx.looks.sequential());
    report_looks(ctx.looks, outcome.record, result);
    for (auto& row : rows) result.rows.push_back(std::move(row));
    return result;
  }

 private:
  // --modes as causal flags; refuses an unknown mode, and --modes causal with a data-dependent feature map.
  std::vector<bool> checked_modes(const std::vector<Family>& features) const {
    std::vector<bool> causal_modes;
    for (const auto& mode : modes_) {
      if (mode != "bidirectional" && mode != "causal")
        throw std::invalid_argument("--modes: unknown mode " + mode + " (bidirectional, causal)");
      causal_modes.push_back(mode == "causal");
    }
    // Refused, as attend refuses it (validate_attention_config): every check pairs arms across features and modes,
    // so a (feature, mode) arm that cannot run would leave a hole that the checks read.
    if (std::find(modes_.begin(), modes_.end(), "causal") != modes_.end())
      for (Family f : features)
        if (family_info(f).data_dependent)
          throw std::invalid_argument("--features " + std::string(feature_kind_name(f)) +
                                      " cannot run --modes causal: its projection is prepared from all keys, which "
                                      "causal attention may not see; drop one of them");
    return causal_modes;
  }

  // The pilot's inputs.
  std::vector<AttentionInput> load_inputs(int L, bool from_files, const RunContext& ctx) const {
    // Inputs: the Gaussian default (--trials of them), or the heads of the --q/--k/--v files (each head one input,
    // with projection draw = head index; --trials, --L, --d and --scale then do not apply).
    if (from_files && (q_path_.empty() || k_path_.empty() || v_path_.empty()))
      throw std::invalid_argument("--q, --k and --v must be given together");
    if (from_files && ctx.looks.sequential())
      throw std::invalid_argument("--until-conclusive: the inputs of --q/--k/--v are fixed (one per head); looks draw "
                                  "more Gaussian inputs, so drop one or the other");
    std::vector<AttentionInput> inputs;
    if (from_files)
      inputs = npy_attention_inputs(q_path_, k_path_, v_path_);
    else
      for (std::int64_t i = 0; i < ctx.trials; ++i)
        inputs.push_back(gaussian_attention_input(L, d_, d_, scale_, 1.0, ctx.seed, static_cast<std::uint64_t>(i)));
    return inputs;
  }

  Json params(int L, const std::vector<int>& ms, const std::vector<AttentionInput>& inputs, bool from_files,
              Backend backend) const {
    Json params{{"L", L},
                {"d", d_},
                {"dv", d_},
                {"m_values", ms},
                {"features", features_},
                {"couplings", couplings_},
                {"modes", modes_},
                {"inputs", static_cast<int>(inputs.size())},
                {"input_kind", "gaussian"},
                {"qk_scale", scale_},
                {"v_scale", 1.0},
                {"typical_scaled_norm",
                 scale_ * std::sqrt(static_cast<double>(d_)) / std::pow(static_cast<double>(d_), 0.25)},
                {"projection_draw", "input index"},
                {"renormalize", true},
                {"stabilizer", true},
                {"alpha", alpha_},
                {"precision", std::string(backend_precision(backend))}};
    if (from_files) {
      params["input_kind"] = "npy";
      params["q"] = q_path_;
      params["k"] = k_path_;
      params["v"] = v_path_;
      params["L"] = static_cast<int>(inputs.front().k.rows());
      params["d"] = static_cast<int>(inputs.front().q.cols());
      params["dv"] = inputs.front().v.cols();
      params["qk_scale"] = nullptr;
      params["typical_scaled_norm"] = nullptr;
    }
    return params;
  }

  void validate(int L, const std::vector<int>& ms) const {
    if (L < 1) throw std::invalid_argument("--L must be at least 1, got " + std::to_string(L));
    if (d_ < 1) throw std::invalid_argument("--d must be at least 1, got " + std::to_string(d_));
    if (ms.empty()) throw std::invalid_argument("--m-values needs at least one value");
    for (int m : ms)
      if (m <= 0) throw std::invalid_argument("--m-values must be positive, got " + std::to_string(m));
    if (features_.empty()) throw std::invalid_argument("--features needs at least one feature map");
    if (couplings_.empty()) throw std::invalid_argument("--couplings needs at least one coupling");
    if (modes_.empty()) throw std::invalid_argument("--modes needs at least one mode");
    if (!(scale_ > 0) || !std::isfinite(scale_))
      throw std::invalid_argument("--scale must be finite and > 0, got " + format_number(scale_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
  }

  int resolved_L(bool quick) const { return l_option_ && l_option_->count() > 0 ? L_ : (quick ? 1024 : 4096); }
  std::vector<int> resolved_ms(bool quick) const {
    return !ms_.empty() ? ms_ : (quick ? std::vector<int>{16, 64, 256} : std::vector<int>{16, 32, 64, 128, 256});
  }

  CLI::Option* l_option_ = nullptr;
  int L_ = 4096;  // unless given: 4096, quick 1024
  int d_ = 16;
  std::vector<int> ms_;
  std::vector<std::string> features_{"trig", "positive", "hyperbolic", "regularized"};
  std::vector<std::string> couplings_{"iid", "orthogonal"};
  std::vector<std::string> modes_{"bidirectional", "causal"};
  double scale_ = 1.0;
  double alpha_ = 1e-3;
  std::string q_path_, k_path_, v_path_;
  BackendOption backend_;
};

}  // namespace

std::unique_ptr<Experiment> make_attention_error_experiment() { return std::make_unique<AttentionErrorExperiment>(); }

}  // namespace favorlab
