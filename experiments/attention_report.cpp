// `favorlab attention-report` — is FAVOR good enough on these inputs? For every layer (a Q, K, V .npy triple, or a
// synthetic layer with a known answer) and head, every arm (feature family × coupling × mode) and m, over --trials
// projection draws per head: the relative output error ‖Ô − O‖²/‖O − Ō‖² and the absolute MSE, beside the exact
// baselines of the same head (uniform attention, exact attention in float32 and on bfloat16-rounded inputs, the best
// rank-r matrix) and the head's diagnostics (attention_report.hpp, attention_baselines.hpp, head_diagnostics.hpp). The
// checks (error falls as m grows, FAVOR no worse than uniform attention, FAVOR's matrix within --floor-factor of the
// rank-r floor, Eckart–Young), the rows and the terminal table come from attention_report_summary.hpp, the closing
// recommendation for --target from attention_recommendation.hpp. With --input-dir, a manifest.json written by
// scripts/capture-qkv.sh (capture_manifest.hpp) names the model, picks the mode (causal or bidirectional arms, unless
// --modes is given) and the softmax scale. This driver reads the options and the layers: every layer is read and
// checked before any work, then read again one at a time (memory: one layer).
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "attention/attend.hpp"
#include "evaluation/attention_recommendation.hpp"
#include "evaluation/attention_report.hpp"
#include "evaluation/attention_report_summary.hpp"
#include "evaluation/capture_manifest.hpp"
#include "evaluation/report_layers.hpp"
#include "evaluation/report_run.hpp"
#include "evaluation/report_slopes.hpp"
#include "evaluation/synthetic_heads.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "io/format_number.hpp"
#include "io/input_layers.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

namespace {

class AttentionReportExperiment final : public Experiment {
 public:
  std::string name() const override { return "attention-report"; }
  std::string summary() const override {
    return "Is FAVOR good enough on these inputs: relative error per layer/head vs uniform attention and the best "
           "rank-m matrix";
  }
  // Trials are projection draws per head. The sign test needs 2^n ≥ points/α to conclude at a point (n draws,
  // points = heads × m values, α = 1e-3): 16 draws settle up to 65 points (the synthetic quick run has 30), 20 up to
  // 1048 (GPT-2 at the default m values: 144 heads × 7 = 1008). "Error falls as m grows" (on more than 60 % of a
  // head's draws) needs 0.6^n ≤ α/heads: 20 draws confirm up to 27 heads (the synthetic run's 16 judged heads with
  // the looks' pilot share of α), 18 up to 9 (the quick run's 8). With --until-conclusive its open heads get looks.
  std::int64_t default_trials(bool quick) const override { return quick ? 18 : 20; }
  bool takes_looks() const override { return true; }

  std::vector<std::pair<std::string, std::string>> input_files() const override {
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& p : inputs_) files.emplace_back("--inputs", p);
    if (!input_dir_.empty())
      for (const LayerFiles& layer : layers_from_directory(input_dir_, "--input-dir"))
        for (const auto& p : {layer.q, layer.k, layer.v}) files.emplace_back("--input-dir", p.string());
    return files;
  }

  // One layer at a time (read and copied into heads; a synthetic layer may form an L×L cosine matrix), one head at a
  // time (evaluation/attention_report.hpp): float32 and bfloat16-rounded copies, the exact outputs, for L ≤
  // --matrix-max-L the Lq×L matrix A with one-hot V = I_L and its SVD; per concurrent (arm, m, draw) task W (m×d, d×d
  // blocks) and a FAVOR forward, and with the matrix Â from a forward whose states are columns × (L+1). Every head's
  // per-draw errors and a row per (head, arm, m) stay to the end.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    std::vector<ReportLayerSize> layers;
    double synthetic_square = 0;  // the one-hot layer's L×L cosines
    if (inputs_.empty() && input_dir_.empty()) {
      const double heads = resolved_heads(ctx.quick), L = L_;
      layers.assign(all_synthetic_heads().size(),
                    ReportLayerSize{heads, L, L, static_cast<double>(d_), static_cast<double>(d_)});
      synthetic_square = L * L * kDouble;
    } else {
      try {
        for (const LayerFiles& f : !inputs_.empty() ? layers_from_triples(inputs_, "--inputs")
                                                    : layers_from_directory(input_dir_, "--input-dir")) {
          const auto q = npy_heads(f.q.string()), k = npy_heads(f.k.string()), v = npy_heads(f.v.string());
          if (q && k && v) layers.push_back({q->heads, q->rows, k->rows, q->cols, v->cols});
        }
      } catch (const std::exception&) {  // run() names the problem
      }
    }
    double max_m = 0, n_ms = 0;
    for (int m : resolved_ms(ctx.quick)) max_m = std::max<double>(max_m, m), ++n_ms;
    const double columns = (features_.empty() ? 2 : widest_columns_per_row(features_)) * max_m;
    double features = static_cast<double>(features_.size());
    if (features_.empty())  // chosen_features(): every softmax family
      for (const FamilyInfo& info : families()) features += estimates_softmax(info.family) ? 1 : 0;
    const double arms = features * static_cast<double>(couplings_.size() * modes_.size());
    const double draws = static_cast<double>(ctx.trials), tasks = arms * n_ms * draws;
    const bool any_causal = std::find(modes_.begin(), modes_.end(), "causal") != modes_.end();
    double peak = 0, heads_total = 0, kept = 0;
    for (const ReportLayerSize& l : layers) {
      heads_total += l.heads;
      kept += l.heads * (arms * n_ms * (3 * draws * kDouble + 64) + std::min(l.lq, l.lk) * kDouble);
      peak = std::max(peak, report_layer_bytes(l, max_m, columns, any_causal, matrix_max_L_, couplings_, tasks,
                                               ctx.threads, synthetic_square));
    }
    return estimate(peak + kept + rows_bytes(heads_total * arms * n_ms, 50 + 2 * draws),
                    "--m-values, --matrix-max-L, --trials or the inputs' L");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--inputs", inputs_,
                   "One layer's queries, keys and values: Q.npy,K.npy,V.npy, each (H, L, d) or (L, d); repeat for "
                   "more layers")
        ->delimiter(',');
    app.add_option("--input-dir", input_dir_,
                   "A directory of layers: files <layer>_q.npy, <layer>_k.npy, <layer>_v.npy (separator _ . or -), "
                   "layers in natural order");
    app.add_option("--features", features_,
                   "Feature maps (default: positive, trig, then every other softmax family): " +
                       family_list(estimates_softmax))
        ->delimiter(',');
    app.add_option("--couplings", couplings_, "Projection couplings: iid, orthogonal, simplex")
        ->delimiter(',')
        ->capture_default_str();
    modes_option_ = app.add_option("--modes", modes_,
                                   "Attention modes: bidirectional, causal (default: both; with a capture's "
                                   "manifest.json, the model's own)")
                        ->delimiter(',')
                        ->capture_default_str();
    app.add_option("--target", target_,
                   "Relative output error the closing recommendation asks for (the smallest m reaching it, per "
                   "family and coupling)")
        ->capture_default_str();
    app.add_option("--m-values", ms_, "Numbers of random features (default: 16,32,...,1024; quick 16,64,256)")
        ->delimiter(',');
    app.add_option("--matrix-max-L", matrix_max_L_,
                   "Attention-matrix errors and the rank-m floor (an SVD of the L x L matrix, one head at a time) "
                   "only for L up to this")
        ->capture_default_str();
    app.add_option("--floor-factor", floor_factor_,
                   "k of the check 'FAVOR's matrix error is within k times the best rank-m matrix's'")
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each check (Bonferroni over its points)")
        ->capture_default_str();
    app.add_option("--heatmap-m", heatmap_m_, "m of the heads x layers heat map and the table's floor column "
                                              "(default: 256 if measured, else the middle m)");
    app.add_option("--L", L_, "Synthetic layers (no --inputs): sequence length")->capture_default_str();
    app.add_option("--d", d_, "Synthetic layers: query/key and value dimension")->capture_default_str();
    app.add_option("--heads", heads_, "Synthetic layers: heads per layer (default 4, quick 2)");
  }

  Result run(const RunContext& ctx) override {
    const std::vector<int> ms = resolved_ms(ctx.quick);
    validate_options(ms, ctx.trials);
    // A capture's manifest decides the mode before the arms are made; an explicit --modes still wins.
    const std::optional<CaptureManifest> manifest =
        input_dir_.empty() ? std::nullopt : read_capture_manifest(input_dir_);
    std::vector<std::string> modes = modes_;
    if (manifest && modes_option_->count() == 0) modes = {manifest->causal ? "causal" : "bidirectional"};
    const auto features = chosen_features();
    const ReportSettings settings = report_settings(ms, features, modes, ctx);
    const int heatmap_m = resolved_heatmap_m(ms);

    // Layers: validated in full (every file read and checked) before any work, then read again one at a time.
    const bool from_files = !inputs_.empty() || !input_dir_.empty();
    if (!inputs_.empty() && !input_dir_.empty())
      throw std::invalid_argument("--inputs and --input-dir: give one or the other");
    const int L_synth = L_, H_synth = resolved_heads(ctx.quick);
    if (!from_files) check_synthetic(L_synth, H_synth);
    const ReportLayers layers =
        !from_files ? ReportLayers(H_synth, L_synth, d_, ctx.seed)
                    : ReportLayers(!inputs_.empty() ? layers_from_triples(inputs_, "--inputs")
                                                    : layers_from_directory(input_dir_, "--input-dir"),
                                   manifest);
    const ReportMeasures measures = measure_report(layers, settings, alpha_, ctx);
    const std::vector<ReportLayerShape>& shapes = measures.checked.shapes;
    const std::vector<ReportedHead>& heads = measures.heads;

    Result result;
    result.experiment = name();
    result.params = report_params(shapes, heads, {features, couplings_, modes, heatmap_m, from_files}, settings,
                                  {alpha_, floor_factor_});
    if (!from_files) {
      result.params["synthetic_L"] = L_synth;
      result.params["synthetic_heads"] = H_synth;
    }
    if (manifest) result.params["model"] = manifest->summary;
    summarize_report(heads, shapes.size(), settings, {alpha_, floor_factor_}, measures.slopes, result.rows,
                     result.checks);
    report_looks(ctx.looks, measures.slopes.record, result);
    add_report_closing(result, heads, shapes, settings, manifest, heatmap_m, target_);
    return result;
  }

 private:
  // The report's settings: this run's m values, draws, seed and threads, and its arms (every mode × coupling ×
  // feature family).
  ReportSettings report_settings(const std::vector<int>& ms, const std::vector<Family>& features,
                                 const std::vector<std::string>& modes, const RunContext& ctx) const {
    ReportSettings settings;
    settings.ms = ms;
    settings.draws = static_cast<int>(ctx.trials);
    settings.matrix_max_L = matrix_max_L_;
    settings.seed = ctx.seed;
    settings.threads = ctx.threads;
    std::vector<Coupling> couplings;
    for (const auto& c : couplings_) couplings.push_back(parse_dense_coupling(c, "--couplings", name()));
    std::vector<bool> causal_modes;
    for (const auto& mode : modes) {
      if (mode != "bidirectional" && mode != "causal")
        throw std::invalid_argument("--modes: unknown mode " + mode + " (bidirectional, causal)");
      causal_modes.push_back(mode == "causal");
    }
    settings.arms = report_arms(features, couplings, causal_modes);
    return settings;
  }

  // The m of the heat map and the table's floor column: --heatmap-m, else 256 if measured, else the middle m.
  int resolved_heatmap_m(const std::vector<int>& ms) const {
    const int heatmap_m = heatmap_m_ > 0 ? heatmap_m_
                          : std::find(ms.begin(), ms.end(), 256) != ms.end() ? 256
                                                                              : ms[ms.size() / 2];
    if (std::find(ms.begin(), ms.end(), heatmap_m) == ms.end())
      throw std::invalid_argument("--heatmap-m " + std::to_string(heatmap_m) + " is not among --m-values");
    return heatmap_m;
  }

  void validate_options(const std::vector<int>& ms, std::int64_t trials) const {
    if (d_ < 1 || d_ > 4096) throw std::invalid_argument("--d must lie in [1, 4096], got " + std::to_string(d_));
    if (matrix_max_L_ < 0) throw std::invalid_argument("--matrix-max-L must be at least 0");
    if (!(floor_factor_ >= 1) || !std::isfinite(floor_factor_))
      throw std::invalid_argument("--floor-factor must be finite and at least 1, got " + format_number(floor_factor_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (couplings_.empty()) throw std::invalid_argument("--couplings needs at least one coupling");
    if (modes_.empty()) throw std::invalid_argument("--modes needs at least one mode");
    if (!(target_ > 0) || !std::isfinite(target_))
      throw std::invalid_argument("--target must be a positive relative error, got " + format_number(target_));
    for (int m : ms)
      if (m < 1 || m > 1 << 20)
        throw std::invalid_argument("--m-values must lie in [1, 1048576], got " + std::to_string(m));
    if (trials > kMaxReportDraws)
      throw std::invalid_argument("--trials (projection draws per head) must be at most " +
                                  std::to_string(kMaxReportDraws));
  }

  void check_synthetic(int L, int heads) const {
    // The one-hot layer forms an L×L cosine matrix; the report an L×L attention matrix per task.
    if (L < 2 || L > 16384) throw std::invalid_argument("--L must lie in [2, 16384], got " + std::to_string(L));
    if (heads < 1 || heads > 1024)
      throw std::invalid_argument("--heads must lie in [1, 1024], got " + std::to_string(heads));
  }

  std::vector<int> resolved_ms(bool quick) const {
    return !ms_.empty() ? ms_
                        : (quick ? std::vector<int>{16, 64, 256} : std::vector<int>{16, 32, 64, 128, 256, 512, 1024});
  }
  int resolved_heads(bool quick) const { return heads_ > 0 ? heads_ : (quick ? 2 : 4); }

  std::vector<Family> chosen_features() const {
    if (!features_.empty()) return parse_softmax_features(features_, name());
    std::vector<Family> f{Family::positive, Family::trig};
    for (const auto& info : families())
      if (estimates_softmax(info.family) && std::find(f.begin(), f.end(), info.family) == f.end())
        f.push_back(info.family);
    return f;
  }

  std::vector<std::string> inputs_;
  std::string input_dir_;
  std::vector<std::string> features_;
  std::vector<std::string> couplings_{"orthogonal"};
  std::vector<std::string> modes_{"bidirectional", "causal"};
  CLI::Option* modes_option_ = nullptr;
  double target_ = kDefaultReportTarget;
  std::vector<int> ms_;
  int matrix_max_L_ = 4096;
  double floor_factor_ = 10;
  double alpha_ = 1e-3;
  int heatmap_m_ = 0;
  int L_ = 512, d_ = 32, heads_ = 0;
};

}  // namespace

std::unique_ptr<Experiment> make_attention_report_experiment() {
  return std::make_unique<AttentionReportExperiment>();
}

}  // namespace favorlab
