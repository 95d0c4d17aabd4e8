// `favorlab attention-report` — is FAVOR good enough on these inputs? For every layer (a Q, K, V .npy triple, or a
// synthetic layer with a known answer) and head, every arm (feature family × coupling × mode) and m, over --trials
// projection draws per head: the relative output error ‖Ô − O‖²/‖O − Ō‖² and the absolute MSE, beside the exact
// baselines of the same head (uniform attention, exact attention in float32, the best rank-r matrix) and the head's
// diagnostics (attention_report.hpp, attention_baselines.hpp, head_diagnostics.hpp). Checks, per arm over all heads
// (a point per head, or per head and m; Student t over the draws; Bonferroni over the points):
//   1. the output error falls as m grows: the mean over draws of the slope of log MSE against log m is below 0
//      (the 1/m law predicts −1; heads where FAVOR is exact to rounding are left out);
//   2. FAVOR's output error is no larger than uniform attention's (mean log MSE over draws ≤ log of uniform's);
//   3. bidirectional, L ≤ --matrix-max-L, rank bound r < L: FAVOR's attention-matrix error is within --floor-factor
//      times the best rank-r matrix's (mean log ‖Â − A‖_F ≤ log(k · floor));
//   4. the same matrices: no draw beats the Eckart–Young floor (exact, within rounding) — a check of the arithmetic.
// A compact table goes to stdout; the rows go to the result file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "attention/attend.hpp"
#include "attention/attention_report.hpp"
#include "attention/synthetic_heads.hpp"
#include "experiments/experiment.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "io/format_number.hpp"
#include "io/input_layers.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"
#include "perf/peak_memory.hpp"
#include "stats/exact_inequality.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

namespace {

constexpr double kHugeLog = 709.0;  // log of an error that overflowed: larger than any finite one

struct Layer {
  std::string name;
  std::string source;  // "synthetic" or the three paths
  std::vector<AttentionInput> heads;
};

struct LayerShape {
  std::string name, source;
  int heads = 0, L = 0, d = 0, dv = 0;
};

struct HeadResult {
  std::size_t layer = 0;
  int head = 0;
  HeadReport report;
};

double log_of(double x) {
  if (std::isnan(x)) return x;
  return x > 0 ? (std::isfinite(x) ? std::log(x) : kHugeLog) : -std::numeric_limits<double>::infinity();
}

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

// Quantile p of the finite values (NaN when none).
double finite_quantile(const std::vector<double>& values, double p) {
  std::vector<double> f;
  for (double v : values)
    if (!std::isnan(v)) f.push_back(v);
  if (f.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(f.begin(), f.end());
  return sample_quantile(f, p);
}

double finite_mean(const std::vector<double>& values) {
  double sum = 0;
  std::size_t n = 0;
  for (double v : values)
    if (!std::isnan(v)) sum += v, ++n;
  return n ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

std::string cell(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string short_verdict(const Json& status) {
  if (status.is_null()) return "-";
  const std::string s = status.get<std::string>();
  return s == "holds" ? "ok" : s == "violated" ? "VIOL" : s == "inconclusive" ? "?" : s;
}

// Violated if any is, holds if all (at least one) hold, else inconclusive; null when nothing was judged.
Json combine(const std::vector<Json>& statuses) {
  std::int64_t held = 0, violated = 0, open = 0;
  for (const auto& s : statuses) {
    if (s.is_null()) continue;
    const std::string v = s.get<std::string>();
    ++(v == "holds" ? held : v == "violated" ? violated : open);
  }
  if (held + violated + open == 0) return nullptr;
  return verdict_name(verdict_from_counts(held, violated, open));
}

class AttentionReportExperiment final : public Experiment {
 public:
  std::string name() const override { return "attention-report"; }
  std::string summary() const override {
    return "Is FAVOR good enough on these inputs: relative error per layer/head vs uniform attention and the best "
           "rank-m matrix";
  }
  // Trials are projection draws per head.
  std::int64_t default_trials(bool quick) const override { return quick ? 4 : 10; }

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
    app.add_option("--modes", modes_, "Attention modes: bidirectional, causal")->delimiter(',')->capture_default_str();
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
    validate_options();
    const std::vector<int> ms = !ms_.empty() ? ms_
                                             : (ctx.quick ? std::vector<int>{16, 64, 256}
                                                          : std::vector<int>{16, 32, 64, 128, 256, 512, 1024});
    for (int m : ms)
      if (m < 1 || m > 1 << 20)
        throw std::invalid_argument("--m-values must lie in [1, 1048576], got " + std::to_string(m));
    if (ctx.trials > kMaxReportDraws)
      throw std::invalid_argument("--trials (projection draws per head) must be at most " +
                                  std::to_string(kMaxReportDraws));
    ReportSettings settings;
    settings.ms = ms;
    settings.draws = static_cast<int>(ctx.trials);
    settings.matrix_max_L = matrix_max_L_;
    settings.seed = ctx.seed;
    settings.threads = ctx.threads;
    const auto features = chosen_features();
    std::vector<Coupling> couplings;
    for (const auto& c : couplings_) couplings.push_back(parse_dense_coupling(c, "--couplings", name()));
    for (const auto& mode : modes_)
      if (mode != "bidirectional" && mode != "causal")
        throw std::invalid_argument("--modes: unknown mode " + mode + " (bidirectional, causal)");
    for (const auto& mode : modes_)
      for (Coupling c : couplings)
        for (FeatureKind f : features) {
          // oprf and sderf take their parameters from every key: no causal arm (validate_attention_config).
          if (mode == "causal" && family_info(f).data_dependent) continue;
          settings.arms.push_back({f, c, mode == "causal"});
        }
    const int heatmap_m = heatmap_m_ > 0 ? heatmap_m_
                          : std::find(ms.begin(), ms.end(), 256) != ms.end() ? 256
                                                                              : ms[ms.size() / 2];
    if (std::find(ms.begin(), ms.end(), heatmap_m) == ms.end())
      throw std::invalid_argument("--heatmap-m " + std::to_string(heatmap_m) + " is not among --m-values");

    // Layers: validated in full (every file read and checked) before any work, then read again one at a time.
    const bool from_files = !inputs_.empty() || !input_dir_.empty();
    std::vector<LayerFiles> files;
    if (!inputs_.empty() && !input_dir_.empty())
      throw std::invalid_argument("--inputs and --input-dir: give one or the other");
    if (!inputs_.empty()) files = layers_from_triples(inputs_, "--inputs");
    if (!input_dir_.empty()) files = layers_from_directory(input_dir_, "--input-dir");
    const int L_synth = L_, H_synth = heads_ > 0 ? heads_ : (ctx.quick ? 2 : 4);
    if (!from_files) check_synthetic(L_synth, H_synth);
    const std::size_t n_layers = from_files ? files.size() : all_synthetic_heads().size();
    auto load = [&](std::size_t i) {
      if (!from_files) {
        const SyntheticHeads kind = all_synthetic_heads()[i];
        return Layer{std::string(synthetic_heads_name(kind)), "synthetic",
                     synthetic_heads(kind, H_synth, L_synth, d_, d_, ctx.seed, i)};
      }
      return read_layer(files[i], settings);
    };
    std::vector<LayerShape> shapes;
    std::int64_t total = 0;
    for (std::size_t i = 0; i < n_layers; ++i) {
      const Layer layer = load(i);
      for (const auto& h : layer.heads) total += report_head_tasks(settings, static_cast<int>(h.k.rows()));
      const AttentionInput& first = layer.heads.front();
      shapes.push_back({layer.name, layer.source, static_cast<int>(layer.heads.size()), static_cast<int>(first.k.rows()),
                        static_cast<int>(first.q.cols()), static_cast<int>(first.v.cols())});
    }

    std::vector<HeadResult> heads;
    std::int64_t done = 0;
    std::uint64_t head_index = 0;
    for (std::size_t i = 0; i < n_layers; ++i) {
      const Layer layer = load(i);
      for (std::size_t h = 0; h < layer.heads.size(); ++h) {
        heads.push_back({i, static_cast<int>(h),
                         report_head(layer.heads[h], settings, head_index++, [&] {
                           if (ctx.progress) ctx.progress(++done, total);
                         })});
      }
    }

    Result result;
    result.experiment = name();
    Json layer_names = Json::array(), heads_per_layer = Json::array(), layer_shapes = Json::array(),
         sources = Json::array();
    bool heads_differ = false;
    for (const auto& shape : shapes) {
      layer_names.push_back(shape.name);
      heads_per_layer.push_back(shape.heads);
      layer_shapes.push_back(Json{{"heads", shape.heads}, {"L", shape.L}, {"d", shape.d}, {"dv", shape.dv}});
      sources.push_back(shape.source);
      heads_differ = heads_differ || shape.heads != shapes.front().heads;
    }
    std::vector<std::string> feature_names;
    for (FeatureKind f : features) feature_names.emplace_back(feature_kind_name(f));
    result.params = Json{{"input_kind", from_files ? "npy" : "synthetic"},
                         {"layers", layer_names},
                         {"heads_per_layer", heads_per_layer},
                         {"heads_differ_between_layers", heads_differ},
                         {"layer_shapes", layer_shapes},
                         {"layer_sources", sources},
                         {"L", heads.front().report.L},
                         {"d", heads.front().report.d},
                         {"dv", heads.front().report.dv},
                         {"m_values", ms},
                         {"features", feature_names},
                         {"couplings", couplings_},
                         {"modes", modes_},
                         {"draws", settings.draws},
                         {"projection_draw", "head index << 20 + draw"},
                         {"matrix_max_L", matrix_max_L_},
                         {"floor_factor", floor_factor_},
                         {"alpha", alpha_},
                         {"heatmap_m", heatmap_m},
                         {"heatmap_features", feature_names.front()},
                         {"heatmap_coupling", couplings_.front()},
                         {"renormalize", true},
                         {"stabilizer", true}};
    if (!from_files) {
      result.params["synthetic_L"] = L_synth;
      result.params["synthetic_heads"] = H_synth;
    }
    build_rows_and_checks(result, heads, shapes, settings);
    const std::int64_t peak = resident_high_water_bytes();
    result.measurements["peak_memory_bytes"] = peak;
    result.text = table(result, settings, heatmap_m, peak);
    return result;
  }

 private:
  void validate_options() const {
    if (d_ < 1 || d_ > 4096) throw std::invalid_argument("--d must lie in [1, 4096], got " + std::to_string(d_));
    if (matrix_max_L_ < 0) throw std::invalid_argument("--matrix-max-L must be at least 0");
    if (!(floor_factor_ >= 1) || !std::isfinite(floor_factor_))
      throw std::invalid_argument("--floor-factor must be finite and at least 1, got " + format_number(floor_factor_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (couplings_.empty()) throw std::invalid_argument("--couplings needs at least one coupling");
    if (modes_.empty()) throw std::invalid_argument("--modes needs at least one mode");
  }

  void check_synthetic(int L, int heads) const {
    // The one-hot layer forms an L×L cosine matrix; the report an L×L attention matrix per task.
    if (L < 2 || L > 16384) throw std::invalid_argument("--L must lie in [2, 16384], got " + std::to_string(L));
    if (heads < 1 || heads > 1024)
      throw std::invalid_argument("--heads must lie in [1, 1024], got " + std::to_string(heads));
  }

  std::vector<FeatureKind> chosen_features() const {
    if (!features_.empty()) return parse_softmax_features(features_, name());
    std::vector<FeatureKind> f{FeatureKind::positive, FeatureKind::trig};
    for (const auto& info : families())
      if (estimates_softmax(info.family) && std::find(f.begin(), f.end(), info.family) == f.end())
        f.push_back(info.family);
    return f;
  }

  static Layer read_layer(const LayerFiles& files, const ReportSettings& settings) {
    const std::string where = "layer " + files.name + ": ";
    auto heads_of = [&](const std::filesystem::path& p, const char* what) {
      try {
        return npy_to_heads<double>(read_npy(p), std::string(what) + " " + p.string());
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + e.what());
      }
    };
    const auto q = heads_of(files.q, "Q"), k = heads_of(files.k, "K"), v = heads_of(files.v, "V");
    try {
      AttentionConfig exact;
      exact.mechanism = Mechanism::exact;
      check_attention_inputs<double>(q, k, v, Eigen::MatrixXd(0, q.empty() ? 0 : q.front().cols()), exact);
      for (const auto& arm : settings.arms)
        if (arm.causal && q.front().rows() != k.front().rows())
          throw std::invalid_argument("causal attention needs as many queries as keys (drop causal from --modes)");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
    Layer layer{files.name, files.q.string() + "," + files.k.string() + "," + files.v.string(), {}};
    for (std::size_t h = 0; h < q.size(); ++h) layer.heads.push_back({q[h], k[h], v[h]});
    return layer;
  }

  void build_rows_and_checks(Result& result, const std::vector<HeadResult>& heads, const std::vector<LayerShape>& layers,
                             const ReportSettings& s) const {
    const std::size_t n_ms = s.ms.size();
    const double k = floor_factor_;
    for (std::size_t ai = 0; ai < s.arms.size(); ++ai) {
      const ReportArm& arm = s.arms[ai];
      const std::string arm_name = std::string(feature_kind_name(arm.features)) + " features, " +
                                   std::string(coupling_name(arm.coupling)) + " projections, " +
                                   (arm.causal ? "causal" : "bidirectional");
      const std::string where = arm_name + ", " + std::to_string(heads.size()) + " heads in " +
                                std::to_string(layers.size()) + " layers, " + std::to_string(s.draws) +
                                " draws per head";
      // Points of each check, counted first (Bonferroni).
      std::size_t floor_points = 0, slope_points = 0;
      std::vector<bool> exact_head(heads.size(), false);
      for (std::size_t hi = 0; hi < heads.size(); ++hi) {
        const HeadReport& r = heads[hi].report;
        const ModeBaselines& b = r.modes[arm.causal ? 1 : 0];
        const double rounding = kRoundingAllowance * kRoundingAllowance * b.output_mean_square;
        for (const auto& p : r.points[ai]) {
          for (double e : p.mse) exact_head[hi] = exact_head[hi] || !(e > rounding);
          if (!p.matrix_error.empty() && p.columns < std::min(r.Lq, r.L)) ++floor_points;
        }
        if (!exact_head[hi]) ++slope_points;
      }
      ClaimCheck slope_check("Output error falls as m grows (slope of log error against log m below 0; the 1/m law "
                             "predicts -1)",
                             where, alpha_, slope_points, ClaimCheck::Sides::upper);
      ClaimCheck uniform_check("FAVOR's output error is no larger than uniform attention's", where, alpha_,
                               heads.size() * n_ms, ClaimCheck::Sides::upper);
      ClaimCheck floor_check("FAVOR's attention-matrix error is within " + format_number(k) +
                                 "x the best rank-r matrix's (r = feature columns; Eckart-Young floor)",
                             where, alpha_, floor_points, ClaimCheck::Sides::upper);
      std::int64_t ey_held = 0, ey_violated = 0;
      double ey_worst = INFINITY;
      std::string ey_worst_label;

      for (std::size_t hi = 0; hi < heads.size(); ++hi) {
        const HeadReport& r = heads[hi].report;
        const std::string head_label = layers[heads[hi].layer].name + " head " + std::to_string(heads[hi].head);
        const ModeBaselines& b = r.modes[arm.causal ? 1 : 0];
        const double rounding = kRoundingAllowance * kRoundingAllowance * b.output_mean_square;
        std::vector<std::vector<double>> mse_by_m;
        for (const auto& p : r.points[ai]) mse_by_m.push_back(p.mse);
        const auto slopes = error_slopes(s.ms, mse_by_m);
        Json slope_status = nullptr;
        double slope_low = NAN, slope_high = NAN, slope_mean = NAN;
        if (!exact_head[hi] && n_ms >= 2) {
          const PointEvidence e = draw_mean_evidence(slopes, 0.0, head_label);
          const PointVerdict v = slope_check.judge(e);
          slope_status = verdict_name(v.status);
          slope_mean = e.empirical;
          const double crit = slope_check.critical_value(e);
          slope_low = e.empirical - crit * e.standard_error;
          slope_high = e.empirical + crit * e.standard_error;
        }
        for (std::size_t mi = 0; mi < n_ms; ++mi) {
          const ArmPoint& p = r.points[ai][mi];
          const std::string label = head_label + ", m=" + std::to_string(s.ms[mi]);
          // Beats uniform: both errors floored at rounding, so an exact FAVOR ties an exact uniform attention.
          std::vector<double> logs;
          for (double e : p.mse) logs.push_back(log_of(std::max(e, rounding)));
          const PointVerdict uv =
              uniform_check.judge(draw_mean_evidence(logs, log_of(std::max(b.uniform_mse, rounding)), label));
          Json row{{"layer", layers[heads[hi].layer].name},
                   {"layer_index", heads[hi].layer},
                   {"head", heads[hi].head},
                   {"features", std::string(feature_kind_name(arm.features))},
                   {"estimator", std::string(feature_kind_name(arm.features))},
                   {"coupling", std::string(coupling_name(arm.coupling))},
                   {"mode", arm.causal ? "causal" : "bidirectional"},
                   {"causal", arm.causal},
                   {"m", s.ms[mi]},
                   {"columns", p.columns},
                   {"L", r.L},
                   {"d", r.d},
                   {"dv", r.dv},
                   {"draws", s.draws},
                   {"rel_error_median", number_or_null(finite_quantile(p.relative, 0.5))},
                   {"rel_error_mean", number_or_null(finite_mean(p.relative))},
                   {"rel_error_q10", number_or_null(finite_quantile(p.relative, 0.1))},
                   {"rel_error_q90", number_or_null(finite_quantile(p.relative, 0.9))},
                   {"rel_error_per_draw", numbers(p.relative)},
                   {"mse_mean", number_or_null(finite_mean(p.mse))},
                   {"mse_per_draw", numbers(p.mse)},
                   {"uniform_mse", b.uniform_mse},
                   {"uniform_rel_error", number_or_null(b.uniform_relative)},
                   {"exact_f32_mse", b.f32_mse},
                   {"exact_f32_rel_error", number_or_null(b.f32_relative)}};
          // Matrix errors against the rank-r floor.
          Json matrix_rel = nullptr, floor_rel = nullptr, ratio = nullptr, floor_status = nullptr;
          Json matrix_per_draw = nullptr;
          double floor = NAN;
          if (!p.matrix_error.empty()) {
            floor = rank_floor_of(r, p.columns);
            const double norm = r.uniform_matrix_error;
            std::vector<double> rel;
            for (double e : p.matrix_error) rel.push_back(norm > 0 ? e / norm : NAN);
            matrix_rel = number_or_null(finite_quantile(rel, 0.5));
            matrix_per_draw = numbers(rel);
            floor_rel = norm > 0 ? Json(floor / norm) : Json(nullptr);
            const double rounding_floor = kRoundingAllowance * r.matrix_norm;
            // Eckart–Young: no rank-r matrix is closer to A than the floor (within the rounding of the SVD).
            for (std::size_t draw = 0; draw < p.matrix_error.size(); ++draw) {
              const double margin = p.matrix_error[draw] - floor;
              ++(margin >= -100 * rounding_floor ? ey_held : ey_violated);
              if (margin < ey_worst) ey_worst = margin, ey_worst_label = label + ", draw " + std::to_string(draw);
            }
            if (p.columns < std::min(r.Lq, r.L)) {
              std::vector<double> log_errors, ratios;
              for (double e : p.matrix_error) {
                log_errors.push_back(log_of(std::max(e, rounding_floor)));
                ratios.push_back(std::log(std::max(e, rounding_floor) / std::max(floor, rounding_floor)));
              }
              if (floor > rounding_floor) ratio = number_or_null(std::exp(finite_mean(ratios)));
              const PointVerdict fv = floor_check.judge(
                  draw_mean_evidence(log_errors, std::log(k * std::max(floor, rounding_floor)), label));
              floor_status = verdict_name(fv.status);
            }
          }
          row["matrix_rel_error_median"] = matrix_rel;
          row["matrix_rel_error_per_draw"] = matrix_per_draw;
          row["rank_floor"] = number_or_null(floor);
          row["rank_floor_rel"] = floor_rel;
          row["floor_ratio"] = ratio;
          const HeadDiagnostics& g = r.diagnostics;
          row["q_norm_q10"] = g.q_norm_q10;
          row["q_norm_q50"] = g.q_norm_q50;
          row["q_norm_q90"] = g.q_norm_q90;
          row["k_norm_q10"] = g.k_norm_q10;
          row["k_norm_q50"] = g.k_norm_q50;
          row["k_norm_q90"] = g.k_norm_q90;
          row["row_entropy_mean"] = g.row_entropy_mean;
          row["row_entropy_min"] = g.row_entropy_min;
          row["max_logit_range"] = g.max_logit_range;
          row["median_pair_z_sq"] = g.median_pair_z_sq;
          row["lemma2_rel_mse"] = number_or_null(lemma2_positive_relative_mse(g.median_pair_z_sq, s.ms[mi]));
          row["slope"] = number_or_null(slope_mean);
          row["slope_low"] = number_or_null(slope_low);
          row["slope_high"] = number_or_null(slope_high);
          row["slope_status"] = slope_status;
          row["beats_uniform_status"] = verdict_name(uv.status);
          row["floor_status"] = floor_status;
          result.rows.push_back(std::move(row));
        }
      }
      Check slope = slope_check.result();
      std::size_t exact_heads = 0;
      for (bool e : exact_head) exact_heads += e;
      if (exact_heads > 0)
        slope.detail += "; " + std::to_string(exact_heads) + " heads left out: FAVOR exact to rounding there";
      slope.detail += "; t intervals over the draws' slopes";
      result.checks.push_back(slope);
      Check uniform = uniform_check.result();
      uniform.detail += "; t intervals of the mean log MSE over the draws, both errors floored at rounding";
      result.checks.push_back(uniform);
      if (floor_points > 0) {
        Check fc = floor_check.result();
        fc.detail += "; t intervals of the mean log matrix error over the draws; a floor below rounding counts as "
                     "the rounding level";
        result.checks.push_back(fc);
      }
      if (ey_held + ey_violated > 0)
        result.checks.push_back(exact_check(
            "FAVOR's attention-matrix error is at least the best rank-r matrix's (Eckart-Young)", where, ey_held,
            ey_violated, ey_worst,
            std::to_string(ey_held) + " draws at or above the floor, " + std::to_string(ey_violated) +
                " below it (allowance 100 x 1e-12 ||A||_F for the SVD's rounding); smallest error - floor " +
                format_number(ey_worst) + " at " + ey_worst_label));
    }
  }

  static double rank_floor_of(const HeadReport& r, int rank) {
    if (r.truncation.empty()) return NAN;
    const std::size_t i = std::min(static_cast<std::size_t>(rank), r.truncation.size() - 1);
    return r.truncation[i];
  }


  // The terminal report: per head, the headline arm's relative error at each m with its baselines and verdicts;
  // then per arm, the median over heads.
  static std::string table(const Result& result, const ReportSettings& s, int heatmap_m, std::int64_t peak) {
    const Json& rows = result.rows;
    const Json& first = rows.front();
    const std::string features = first["features"], coupling = first["coupling"], mode = first["mode"];
    std::ostringstream out;
    char line[512];
    out << "\nRelative output error |O^ - O|^2 / |O - mean row|^2 (1 = no better than the mean row; median of "
        << s.draws << " draws), " << features << "/" << coupling << ", " << mode << ":\n";
    std::snprintf(line, sizeof line, "%-14s %4s", "layer", "head");
    out << line;
    for (int m : s.ms) out << cell_text("m=" + std::to_string(m));
    out << cell_text("uniform") << cell_text("fp32") << cell_text("floor@" + std::to_string(heatmap_m))
        << cell_text("slope") << "  falls unif. floor  |q|med  H/lnL\n";
    for (std::size_t i = 0; i < rows.size();) {
      // The rows of one head and arm are consecutive, one per m.
      const Json& r = rows[i];
      if (r["features"] != features || r["coupling"] != coupling || r["mode"] != mode) {
        i += s.ms.size();
        continue;
      }
      std::snprintf(line, sizeof line, "%-14.14s %4d", r["layer"].get<std::string>().c_str(), r["head"].get<int>());
      out << line;
      std::vector<Json> unif, floors;
      Json floor_at = nullptr;
      for (std::size_t mi = 0; mi < s.ms.size(); ++mi) {
        const Json& x = rows[i + mi];
        out << cell_text(json_cell(x["rel_error_median"]));
        unif.push_back(x["beats_uniform_status"]);
        floors.push_back(x["floor_status"]);
        if (x["m"] == heatmap_m) floor_at = x["rank_floor_rel"];
      }
      const double entropy = r["row_entropy_mean"].get<double>() / std::log(static_cast<double>(r["L"].get<int>()));
      out << cell_text(json_cell(r["uniform_rel_error"])) << cell_text(json_cell(r["exact_f32_rel_error"]))
          << cell_text(json_cell(floor_at)) << cell_text(json_cell(r["slope"]));
      std::snprintf(line, sizeof line, "  %-5s %-5s %-5s %6.3g %6.3g\n", short_verdict(r["slope_status"]).c_str(),
                    short_verdict(combine(unif)).c_str(), short_verdict(combine(floors)).c_str(),
                    r["q_norm_q50"].get<double>(), entropy);
      out << line;
      i += s.ms.size();
    }
    out << "(uniform: uniform attention's relative error; fp32: exact attention in float32; floor: the best rank-r "
           "matrix's error relative to |A - uniform|; slope: of log error vs log m, the 1/m law gives -1; verdicts ok = "
           "holds, VIOL = violated, ? = inconclusive, - = not judged; |q|med: median |q| d^-1/4; H/lnL: mean row "
           "entropy over ln L)\n";

    out << "\nMedian over heads of the relative output error, per arm:\n";
    std::snprintf(line, sizeof line, "%-38s", "features/coupling/mode");
    out << line;
    for (int m : s.ms) out << cell_text("m=" + std::to_string(m));
    out << "  verdicts (falls, beats uniform, within floor factor)\n";
    for (const auto& arm : s.arms) {
      const std::string f(feature_kind_name(arm.features)), c(coupling_name(arm.coupling)),
          md = arm.causal ? "causal" : "bidirectional";
      std::snprintf(line, sizeof line, "%-38s", (f + "/" + c + "/" + md).c_str());
      out << line;
      for (int m : s.ms) {
        std::vector<double> values;
        for (const auto& r : rows)
          if (r["features"] == f && r["coupling"] == c && r["mode"] == md && r["m"] == m &&
              !r["rel_error_median"].is_null())
            values.push_back(r["rel_error_median"].get<double>());
        out << cell_text(cell(finite_quantile(values, 0.5)));
      }
      std::string verdicts;
      for (const auto& check : result.checks)
        if (check.where.rfind(f + " features, " + c + " projections, " + md + ",", 0) == 0 &&
            check.claim.find("at least the best") == std::string::npos)
          verdicts += std::string(verdicts.empty() ? "  " : ", ") + verdict_name(check.status);
      out << verdicts << "\n";
    }
    out << "\nPeak memory (resident high-water mark of the process): "
        << (peak > 0 ? format_number(static_cast<double>(peak) / (1 << 20), 4) + " MiB" : std::string("unknown"))
        << "\n";
    return out.str();
  }

  static std::string cell_text(const std::string& text) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, " %8s", text.c_str());
    return buffer;
  }
  static std::string json_cell(const Json& v) { return v.is_null() ? "-" : cell(v.get<double>()); }

  std::vector<std::string> inputs_;
  std::string input_dir_;
  std::vector<std::string> features_;
  std::vector<std::string> couplings_{"orthogonal"};
  std::vector<std::string> modes_{"bidirectional", "causal"};
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
