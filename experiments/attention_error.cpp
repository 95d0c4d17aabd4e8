// `favorlab attention-error` — Performers Fig. 4: output MSE of FAVOR against exact attention as m grows.
// For every mode (bidirectional, causal) × coupling (iid, orthogonal) × feature map (trig, positive, hyperbolic,
// regularized) × m, the output MSE mean_{i,c}(Âtt − Att)² on each of --trials independent inputs (Gaussian Q, K, V;
// input i uses projection draw i; or the heads of --q/--k/--v .npy files, one input per head), summarised as
// mean ± std over the inputs; beside it the relative error MSE / variance of the exact output (1: no better than
// predicting the mean row) and uniform attention's error on the same inputs (attention_baselines.hpp). Checks, each a paired comparison on the
// same inputs (stats/paired_check.hpp: the exact sign test over the inputs, Bonferroni over the m values):
//   1. orthogonal below iid, per feature map and mode;
//   2. positive below trig, per coupling and mode.
// --backend cuda: every forward, FAVOR and exact, on the GPU in float32 (backend_option.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "attention/attend.hpp"
#include "attention/attention_baselines.hpp"
#include "attention/favor_error_sweep.hpp"
#include "io/format_number.hpp"
#include "io/join_list.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "perf/memory_estimate.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "stats/paired_check.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

namespace {

struct Arm {
  std::string mode;
  Coupling coupling;
  FeatureKind features;
  int m;
  auto key() const { return std::tuple{mode, static_cast<int>(coupling), static_cast<int>(features), m}; }
};

class AttentionErrorExperiment final : public Experiment {
 public:
  std::string name() const override { return "attention-error"; }
  std::string summary() const override {
    return "Fig. 4: output MSE of FAVOR attention vs exact against m, orthogonal vs iid, positive vs trig";
  }
  // Trials are independent inputs (15, as in Fig. 4).
  std::int64_t default_trials(bool) const override { return 15; }

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
  }

  Result run(const RunContext& ctx) override {
    const int L = resolved_L(ctx.quick);
    const std::vector<int> ms = resolved_ms(ctx.quick);
    validate(L, ms);
    const Backend backend = backend_.checked();
    const std::vector<FeatureKind> features = parse_softmax_features(features_, name());
    std::vector<Coupling> couplings;
    for (const auto& c : couplings_) couplings.push_back(parse_dense_coupling(c, "--couplings", name()));
    for (const auto& mode : modes_)
      if (mode != "bidirectional" && mode != "causal")
        throw std::invalid_argument("--modes: unknown mode " + mode + " (bidirectional, causal)");
    // Refused, as attend refuses it (validate_attention_config): every check pairs arms across features and modes,
    // so a (feature, mode) arm that cannot run would leave a hole that the checks read.
    if (std::find(modes_.begin(), modes_.end(), "causal") != modes_.end())
      for (FeatureKind f : features)
        if (family_info(f).data_dependent)
          throw std::invalid_argument("--features " + std::string(feature_kind_name(f)) +
                                      " cannot run --modes causal: its projection is prepared from all keys, which "
                                      "causal attention may not see; drop one of them");

    // Inputs: the Gaussian default (--trials of them), or the heads of the --q/--k/--v files (each head one input,
    // with projection draw = head index; --trials, --L, --d and --scale then do not apply).
    std::vector<AttentionInput> inputs;
    const bool from_files = !q_path_.empty() || !k_path_.empty() || !v_path_.empty();
    int L_used = L, d_used = d_;
    if (from_files) {
      if (q_path_.empty() || k_path_.empty() || v_path_.empty())
        throw std::invalid_argument("--q, --k and --v must be given together");
      const auto q = npy_to_heads<double>(read_npy(q_path_), "--q " + q_path_);
      const auto k = npy_to_heads<double>(read_npy(k_path_), "--k " + k_path_);
      const auto v = npy_to_heads<double>(read_npy(v_path_), "--v " + v_path_);
      AttentionConfig exact;
      exact.mechanism = Mechanism::exact;
      check_attention_inputs<double>(q, k, v, Eigen::MatrixXd(0, q.front().cols()), exact);
      for (std::size_t h = 0; h < q.size(); ++h) inputs.push_back({q[h], k[h], v[h]});
      L_used = static_cast<int>(k.front().rows());
      d_used = static_cast<int>(q.front().cols());
    }
    const int inputs_n = from_files ? static_cast<int>(inputs.size()) : static_cast<int>(ctx.trials);
    Result result;
    result.experiment = name();
    result.params = Json{{"L", L},
                         {"d", d_},
                         {"dv", d_},
                         {"m_values", ms},
                         {"features", features_},
                         {"couplings", couplings_},
                         {"modes", modes_},
                         {"inputs", inputs_n},
                         {"input_kind", "gaussian"},
                         {"qk_scale", scale_},
                         {"v_scale", 1.0},
                         {"typical_scaled_norm", scale_ * std::sqrt(static_cast<double>(d_)) /
                                                     std::pow(static_cast<double>(d_), 0.25)},
                         {"projection_draw", "input index"},
                         {"renormalize", true},
                         {"stabilizer", true},
                         {"alpha", alpha_},
                         {"precision", std::string(backend_precision(backend))}};
    BackendOption::record(result, backend);

    if (from_files) {
      result.params["input_kind"] = "npy";
      result.params["q"] = q_path_;
      result.params["k"] = k_path_;
      result.params["v"] = v_path_;
      result.params["L"] = L_used;
      result.params["d"] = d_used;
      result.params["dv"] = inputs.front().v.cols();
      result.params["qk_scale"] = nullptr;
      result.params["typical_scaled_norm"] = nullptr;
    } else {
      for (int i = 0; i < inputs_n; ++i)
        inputs.push_back(gaussian_attention_input(L, d_, d_, scale_, 1.0, ctx.seed, static_cast<std::uint64_t>(i)));
    }

    std::vector<Arm> arms;
    std::vector<AttentionConfig> configs;
    for (const auto& mode : modes_)
      for (Coupling c : couplings)
        for (FeatureKind f : features)
          for (int m : ms) {
            arms.push_back({mode, c, f, m});
            AttentionConfig config;
            config.features = f;
            config.coupling = c;
            config.m = m;
            config.causal = mode == "causal";
            configs.push_back(config);
          }
    const auto mse = favor_output_mse(inputs, configs, ctx.seed, ctx.threads, ctx.progress, backend);
    // The scale of each input's exact output and the error of uniform attention on it, per mode (double, CPU).
    std::map<std::string, std::vector<OutputBaseline>> baselines;
    for (const auto& mode : modes_) {
      AttentionConfig exact;
      exact.mechanism = Mechanism::exact;
      exact.causal = mode == "causal";
      for (const auto& in : inputs) {
        const Eigen::MatrixXd o = attend<double>({in.q}, {in.k}, {in.v}, Eigen::MatrixXd(0, d_used), exact,
                                                 ctx.threads).front();
        baselines[mode].push_back(output_baseline(o, in.v, exact.causal));
      }
    }
    std::map<decltype(arms[0].key()), std::size_t> index;
    for (std::size_t a = 0; a < arms.size(); ++a) index[arms[a].key()] = a;
    auto find = [&](std::string mode, Coupling c, FeatureKind f, int m) -> std::optional<std::size_t> {
      const auto it = index.find(Arm{mode, c, f, m}.key());
      if (it == index.end()) return std::nullopt;
      return it->second;
    };

    std::vector<Json> rows;
    for (std::size_t a = 0; a < arms.size(); ++a) {
      RunningMoments moments;
      std::int64_t nonfinite = 0;
      for (double v : mse[a]) {
        if (std::isfinite(v))
          moments.add(v);
        else
          ++nonfinite;
      }
      Json row{{"features", std::string(feature_kind_name(arms[a].features))},
               {"estimator", std::string(feature_kind_name(arms[a].features))},
               {"coupling", std::string(coupling_name(arms[a].coupling))},
               {"mode", arms[a].mode},
               {"causal", arms[a].mode == "causal"},
               {"m", arms[a].m},
               {"L", L_used},
               {"d", d_used},
               {"qk_scale", from_files ? Json(nullptr) : Json(scale_)},
               {"mse_mean", number_or_null(moments.count() > 0 ? moments.mean() : NAN)},
               {"mse_std", number_or_null(moments.count() > 1 ? std::sqrt(moments.variance()) : NAN)},
               {"mse_stderr", number_or_null(moments.count() > 1 ? moments.standard_error() : NAN)},
               {"inputs", static_cast<std::int64_t>(mse[a].size())},
               {"nonfinite", nonfinite}};
      Json per_input = Json::array();
      for (double v : mse[a]) per_input.push_back(number_or_null(v));
      row["mse_per_input"] = per_input;
      // Relative error mse/variance of the exact output (1: no better than predicting the mean row) and uniform
      // attention's, averaged over the inputs where the exact output varies.
      RunningMoments relative, uniform_relative, uniform_mse;
      for (std::size_t i = 0; i < mse[a].size(); ++i) {
        const OutputBaseline& b = baselines.at(arms[a].mode)[i];
        uniform_mse.add(b.uniform_mse);
        if (b.variance > 0 && std::isfinite(mse[a][i])) {
          relative.add(mse[a][i] / b.variance);
          uniform_relative.add(b.uniform_mse / b.variance);
        }
      }
      row["rel_error_mean"] = number_or_null(relative.count() > 0 ? relative.mean() : NAN);
      row["rel_error_stderr"] = number_or_null(relative.count() > 1 ? relative.standard_error() : NAN);
      row["uniform_mse_mean"] = number_or_null(uniform_mse.mean());
      row["uniform_rel_error_mean"] = number_or_null(uniform_relative.count() > 0 ? uniform_relative.mean() : NAN);
      rows.push_back(row);
    }

    // Check 1: orthogonal below iid, per (mode, features).
    if (find_coupling(couplings, Coupling::iid) && find_coupling(couplings, Coupling::orthogonal))
      for (const auto& mode : modes_)
        for (FeatureKind f : features) {
          PairedClaimCheck check("Fig. 4: orthogonal features give lower output MSE than iid",
                                 std::string(feature_kind_name(f)) + " features, " + mode + ", L=" +
                                     std::to_string(L_used) + ", d=" + std::to_string(d_used) + ", " +
                                     std::to_string(inputs_n) + " inputs, m in {" + join_list(ms) + "}",
                                 alpha_, ms.size());
          for (int m : ms) {
            const std::size_t ort = *find(mode, Coupling::orthogonal, f, m), iid = *find(mode, Coupling::iid, f, m);
            const PairedVerdict v = check.judge(mse[ort], mse[iid], "m=" + std::to_string(m));
            annotate(rows[ort], "vs_iid", v);
          }
          result.checks.push_back(check.result());
        }
    // Check 2: positive below trig, per (mode, coupling).
    if (std::find(features.begin(), features.end(), FeatureKind::trig) != features.end() &&
        std::find(features.begin(), features.end(), FeatureKind::positive) != features.end())
      for (const auto& mode : modes_)
        for (Coupling c : couplings) {
          PairedClaimCheck check("Fig. 4: positive features give lower output MSE than trig",
                                 std::string(coupling_name(c)) + " projections, " + mode + ", L=" +
                                     std::to_string(L_used) + ", d=" + std::to_string(d_used) + ", " +
                                     std::to_string(inputs_n) + " inputs, m in {" + join_list(ms) + "}",
                                 alpha_, ms.size());
          for (int m : ms) {
            const std::size_t pos = *find(mode, c, FeatureKind::positive, m), trig = *find(mode, c, FeatureKind::trig, m);
            const PairedVerdict v = check.judge(mse[pos], mse[trig], "m=" + std::to_string(m));
            annotate(rows[pos], "vs_trig", v);
          }
          result.checks.push_back(check.result());
        }
    for (auto& row : rows) result.rows.push_back(std::move(row));
    return result;
  }

 private:
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

  static bool find_coupling(const std::vector<Coupling>& cs, Coupling c) {
    return std::find(cs.begin(), cs.end(), c) != cs.end();
  }
  static void annotate(Json& row, const std::string& prefix, const PairedVerdict& v) {
    row[prefix + "_ratio"] = number_or_null(v.ratio);
    row[prefix + "_median_ratio"] = number_or_null(v.median_ratio);
    row[prefix + "_pairs"] = v.n;
    row[prefix + "_above"] = v.above;
    row[prefix + "_p_violated"] = v.p_violated;
    row[prefix + "_p_holds"] = v.p_holds;
    row[prefix + "_status"] = v.status;
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
