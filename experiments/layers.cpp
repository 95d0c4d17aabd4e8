// `favorlab layers` — Fig. 14 of the Performers paper ("Output approximation errors between a vanilla Transformer and
// a Performer (with orthogonal features) for varying numbers of layers"; D.1: "error propagation due to non-attention
// components of the Transformer is one of the primary reasons that pretrained Transformer weights cannot be
// immediately used"; 4.3: "small errors can easily propagate throughout multiple Transformer layers"). The paper
// makes no quantitative claim; this experiment measures the growth.
// A stack of n random-weight pre-LayerNorm layers (evaluation/transformer_layer.hpp: H heads, MLP 4·width with GELU,
// residuals; weights N(0, 1/fan_in), fixed for the run) runs on one Gaussian input with exact attention and with FAVOR
// (default: positive features, orthogonal W, m = 256, a fresh W per layer and draw). Per depth n = 1..--layers, over
// --trials draws of the projections: the relative error ‖Y_favor − Y_exact‖_F/‖Y_exact‖_F after n layers, and the
// "local" error of layer n alone (FAVOR layer n applied to the exact input of layer n), mean ± std.
// Check: the error after the last layer exceeds the error after one layer on most draws (paired over draws, the
// exact sign test: stats/paired_check.hpp);
// the fitted per-layer growth factor exp(slope of ln error against n) is reported.
// --backend cuda: each layer's attention on the GPU in float32, the rest of the layer in double (backend_option.hpp).
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/transformer_layer.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "mc/indexed_trials.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/paired_check.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

namespace {

constexpr std::uint64_t kLayerInputStream = 0x0F17'3000ULL, kLayerStream = 0x0F17'3001ULL;

struct DepthErrors {
  std::vector<RunningMoments> error, local;
  std::vector<double> first, last;  // per draw: the error after the first layer and after the last (NaN: not finite)
  std::int64_t nonfinite = 0;
  explicit DepthErrors(std::size_t layers = 0) : error(layers), local(layers) {}
};

double relative_error(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact) {
  if (!approx.allFinite()) return std::numeric_limits<double>::infinity();
  return (approx - exact).norm() / exact.norm();
}

// A parse that names the option in its error message.
template <class F>
auto parse_option(const std::string& option, F&& parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(option + ": " + e.what());
  }
}

class LayersExperiment final : public Experiment {
 public:
  std::string name() const override { return "layers"; }
  std::string summary() const override {
    return "Fig. 14: relative output error of FAVOR vs exact attention through 1..n random Transformer layers";
  }
  // The sign test at α = 1e-3 can settle its one point from 10 draws on (2^-10 < 1e-3).
  std::int64_t default_trials(bool quick) const override { return quick ? 10 : 20; }

  // The layers' weights (12 width² each) and the exact output after every layer (L × width each); a layer
  // (evaluation/transformer_layer.cpp) holds about 18 L × width matrices (Q, K, V and their heads, the MLP's 4·width
  // hidden layer, residuals) beside its attention; per concurrent draw the running output, W (m × head size) and one
  // FAVOR layer at a time.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double L = resolved_length(ctx.quick), width = width_, heads = std::max(1, heads_), layers = layers_;
    const double size = width / heads, m = m_, activations = L * width * kDouble;
    double columns = 2 * m, coupling = projection_bytes(Coupling::simplex, m, size);
    try {
      columns = feature_columns_of(parse_feature_kind(features_), m, size);
      coupling = projection_bytes(parse_coupling(coupling_), m, size);
    } catch (const std::exception&) {  // run() names the bad value
    }
    AttendShape favor{heads, L, L, size, size, m, columns};
    favor.generalized = any_generalized({features_});
    AttendShape exact{heads, L, L, size, size};
    exact.exact = true;
    const double draw = 2 * activations + coupling + 18 * activations + attend_bytes(favor, 1);
    return estimate(layers * (12 * width * width + 5 * width) * kDouble + (layers + 2) * activations +
                        std::max(18 * activations + attend_bytes(exact, ctx.threads),
                                 task_workers(static_cast<double>(ctx.trials), ctx.threads) * draw) +
                        static_cast<double>(ctx.trials) * layers * 2 * kDouble,
                    "--L, --width, --layers or --m");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--layers", layers_, "Largest number of layers n")->capture_default_str();
    app.add_option("--width", width_, "Model width")->capture_default_str();
    app.add_option("--heads", heads_, "Attention heads (must divide the width)")->capture_default_str();
    length_option_ = app.add_option("--L", length_, "Sequence length (default 512; quick 256)");
    app.add_option("--m", m_, "Random features of FAVOR")->capture_default_str();
    app.add_option("--features", features_, "FAVOR feature map (trig, positive, hyperbolic, regularized, ...)")
        ->capture_default_str();
    app.add_option("--coupling", coupling_, "Projection coupling: iid, orthogonal, ...")->capture_default_str();
    app.add_option("--alpha", alpha_, "Level of the one-sided test that the error grows with depth")
        ->capture_default_str();
    backend_.add_to(app, "Where the attention runs: cpu (float64), or cuda (the GPU in float32; the rest of each "
                         "layer stays in float64 on the CPU; needs a CUDA build and a device)");
  }

  Result run(const RunContext& ctx) override {
    AttentionConfig favor;
    favor.features = parse_option("--features", [&] { return parse_feature_kind(features_); });
    favor.coupling = parse_option("--coupling", [&] { return parse_coupling(coupling_); });
    favor.m = m_;
    length_ = resolved_length(ctx.quick);
    validate();
    const int head_size = width_ / heads_;
    validate_attention_config(favor, head_size);
    const Backend backend = backend_.checked();

    Result result;
    result.experiment = name();
    result.params = Json{{"layers", layers_}, {"width", width_},       {"heads", heads_},
                         {"head_size", head_size}, {"L", length_},    {"m", m_},
                         {"features", features_},  {"coupling", coupling_}, {"alpha", alpha_},
                         {"inputs", "one N(0, 1) input; layer weights N(0, 1/fan_in), fixed; W redrawn per layer and draw"},
                         {"attention_precision", std::string(backend_precision(backend))}};
    BackendOption::record(result, backend);

    const DepthErrors errors = measure(ctx, favor, backend, head_size);
    const double slope = add_rows(result, errors);
    add_growth_check(result, errors, slope, ctx.trials);
    return result;
  }

 private:
  // Every draw's relative error after each layer (FAVOR through all layers so far) and of each layer alone (FAVOR in
  // that layer only, on the exact input), against the exact stack.
  DepthErrors measure(const RunContext& ctx, const AttentionConfig& favor, Backend backend, int head_size) const {
    AttentionConfig exact;
    exact.mechanism = Mechanism::exact;
    const Eigen::MatrixXd x = gaussian_input(length_, width_, 1.0, ctx.seed, kLayerInputStream, 0);
    std::vector<TransformerLayerWeights> weights;
    std::vector<Eigen::MatrixXd> exact_out{x};
    for (int n = 0; n < layers_; ++n) {
      weights.push_back(random_transformer_layer(width_, heads_, ctx.seed, kLayerStream, std::uint64_t(n)));
      exact_out.push_back(transformer_layer(exact_out.back(), weights.back(), exact, Eigen::MatrixXd(0, head_size),
                                            ctx.threads, backend));
    }
    const auto layers = static_cast<std::size_t>(layers_);
    // Few expensive draws: one task per draw, the per-draw errors reduced in draw order.
    struct DrawResult {
      std::vector<double> error, local;
      bool finite = true;
    };
    const std::vector<DrawResult> draws = run_indexed_trials<DrawResult>(
        ctx.trials, host_threads_for(backend, ctx.threads),  // one host thread drives a GPU
        [&](std::int64_t t) {
          DrawResult r;
          Eigen::MatrixXd y = x;
          for (std::size_t n = 0; n < layers; ++n) {
            const Eigen::MatrixXd w =
                draw_attention_projection(favor, head_size, ctx.seed, std::uint64_t(t) * layers + n);
            r.local.push_back(
                relative_error(transformer_layer(exact_out[n], weights[n], favor, w, 1, backend), exact_out[n + 1]));
            y = transformer_layer(y, weights[n], favor, w, 1, backend);
            r.error.push_back(relative_error(y, exact_out[n + 1]));
            if (!std::isfinite(r.error.back()) || !std::isfinite(r.local.back())) {
              r.finite = false;
              break;
            }
          }
          return r;
        },
        ctx.progress);
    DepthErrors errors(layers);
    for (const DrawResult& r : draws) {
      if (!r.finite) {
        ++errors.nonfinite;
        errors.first.push_back(NAN), errors.last.push_back(NAN);  // the sign test then leaves the point open
        continue;
      }
      for (std::size_t n = 0; n < layers; ++n) {
        errors.error[n].add(r.error[n]);
        errors.local[n].add(r.local[n]);
      }
      errors.first.push_back(r.error.front()), errors.last.push_back(r.error.back());
    }

    return errors;
  }

  // One row per depth; returns the slope of ln(mean error) against depth (least squares).
  double add_rows(Result& result, const DepthErrors& errors) const {
    const auto layers = static_cast<std::size_t>(layers_);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t n = 0; n < layers; ++n) {
      const RunningMoments& e = errors.error[n];
      const RunningMoments& l = errors.local[n];
      Json row{{"layers", n + 1}, {"L", length_}, {"width", width_}, {"heads", heads_}, {"m", m_}};
      row["estimator"] = features_;
      row["coupling"] = coupling_;
      row["rel_error_mean"] = e.mean();
      row["rel_error_std"] = e.count() > 1 ? std::sqrt(e.variance()) : 0.0;
      row["rel_error_stderr"] = e.count() > 1 ? e.standard_error() : 0.0;
      row["local_error_mean"] = l.mean();
      row["local_error_std"] = l.count() > 1 ? std::sqrt(l.variance()) : 0.0;
      row["trials"] = e.count();
      row["nonfinite"] = errors.nonfinite;
      result.rows.push_back(row);
      if (e.count() > 0 && e.mean() > 0) {
        const double xn = static_cast<double>(n + 1), yn = std::log(e.mean());
        sx += xn, sy += yn, sxx += xn * xn, sxy += xn * yn;
      }
    }
    const double count = static_cast<double>(layers);
    const double slope = layers > 1 ? (count * sxy - sx * sy) / (count * sxx - sx * sx) : 0.0;
    result.measurements["growth_factor_per_layer"] = std::exp(slope);
    const double first = errors.error.front().mean(), last = errors.error.back().mean();
    result.measurements["error_ratio_last_to_first"] = first > 0 ? last / first : 0.0;
    return slope;
  }

  // Fig. 14's qualitative claim: the error after the last layer exceeds that after the first on most draws.
  void add_growth_check(Result& result, const DepthErrors& errors, double slope, std::int64_t trials) const {
    const auto layers = static_cast<std::size_t>(layers_);
    const double first = errors.error.front().mean(), last = errors.error.back().mean();
    std::ostringstream where;
    where << "error after " << layers_ << " layers vs after 1, paired over " << trials << " draws of W; "
          << features_ << " features, " << coupling_ << " W, m=" << m_ << ", width " << width_ << ", " << heads_
          << " heads, L=" << length_ << "; exact sign test, one-sided, at alpha " << alpha_;
    PairedClaimCheck growth_check("Fig. 14 (qualitative): the output error grows with the number of layers on most "
                                  "draws",
                                  where.str(), alpha_, 1);
    std::ostringstream detail;
    detail << "mean error " << first << " after 1 layer, " << last << " after " << layers_ << " (ratio "
           << (first > 0 ? last / first : 0.0) << "); fitted growth factor per layer exp(slope of ln error) = "
           << std::exp(slope);
    if (layers < 2) {
      detail << "; one layer: nothing to compare";
    } else {
      const PairedVerdict v =
          growth_check.judge(errors.first, errors.last, "layer 1 vs layer " + std::to_string(layers_));
      detail << "; " << v.n - v.above << " of " << v.n << " draws grew";
    }
    Check growth = growth_check.result();
    growth.detail = detail.str() + "; " + growth.detail;
    result.checks.push_back(growth);
  }

  int resolved_length(bool quick) const {
    return length_option_ != nullptr && length_option_->count() > 0 ? length_ : (quick ? 256 : 512);
  }

  void validate() const {
    if (layers_ < 1 || layers_ > 100) throw std::invalid_argument("--layers must lie in [1, 100], got " + std::to_string(layers_));
    if (width_ < 1 || width_ > 4096) throw std::invalid_argument("--width must lie in [1, 4096]");
    if (heads_ < 1 || width_ % heads_ != 0) throw std::invalid_argument("--heads must be >= 1 and divide --width");
    if (length_ < 1 || length_ > 1 << 16) throw std::invalid_argument("--L must lie in [1, 65536]");
    if (m_ < 1 || m_ > 65536) throw std::invalid_argument("--m must lie in [1, 65536], got " + std::to_string(m_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
  }

  int layers_ = 12, width_ = 64, heads_ = 4, length_ = 512, m_ = 256;
  CLI::Option* length_option_ = nullptr;  // not given: 512, or 256 with --quick
  std::string features_ = "positive", coupling_ = "orthogonal";
  double alpha_ = 1e-3;
  BackendOption backend_;
};

}  // namespace

std::unique_ptr<Experiment> make_layers_experiment() { return std::make_unique<LayersExperiment>(); }

}  // namespace favorlab
