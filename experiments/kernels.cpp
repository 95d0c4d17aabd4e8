// `favorlab kernels` — the kernels of Fig. 16 without training: generalized attention φ(u) = f(Wu) + ε_k (and f(u) +
// ε_k without projection) for f ∈ {relu, exp, sigmoid, abs, gelu, cos, tanh, identity}, and the softmax estimators
// (trig, positive, hyperbolic, regularized; orthogonal W), on Gaussian Q, K, V (entries N(0, s²)) at several scales s.
// Per kernel and scale, over --trials draws of W (one draw where there is no projection):
//   the denominators D̂ = Q'((K')ᵀ1) — computed by the library (attend with V = a column of ones and renormalize off),
//   never re-implemented, and tallied by evaluation/kernel_denominators.hpp — their smallest value, the fraction ≤ 0,
//   and for softmax estimators the smallest D̂_i/D_i against the exact row sums; NaN/Inf counts in D̂ and in the
//   renormalized outputs; and the deviation from exact softmax attention: output MSE against exact, mean and
//   standard error over the draws with finite output.
// Checks: positive/hyperbolic/regularized features give D̂ > 0 everywhere (FAVOR+: positive features, positive
// denominators); trig gives non-positive denominators at some scale (the paper's warning); outputs free of NaN/Inf
// for every kernel (reported kernel by kernel: Fig. 16 shows kernels whose training stopped with NaN).
// --backend cuda: denominators and outputs, FAVOR and exact, from the GPU in float32 (backend_option.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/attend.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/kernel_checks.hpp"
#include "evaluation/kernel_denominators.hpp"
#include "experiments/backend_option.hpp"
#include "experiments/experiment.hpp"
#include "io/format_number.hpp"
#include "io/join_list.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

namespace {

constexpr std::uint64_t kKernelInputStream = 0x0F17'2000ULL;

class KernelsExperiment final : public Experiment {
 public:
  std::string name() const override { return "kernels"; }
  std::string summary() const override {
    return "Fig. 16 without training: denominators, NaN/Inf and deviation from softmax of generalized kernels and "
           "softmax estimators";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 5 : 50; }

  // Per scale Q, K, V and the exact output; per concurrent draw W (m×d, d×d blocks), the denominators (a FAVOR
  // forward with V = 1) and the output (a FAVOR forward), each with its braced copies of the inputs; a DenominatorStats
  // per draw.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double L = resolved_length(ctx.quick), d = d_, m = m_, draws = static_cast<double>(ctx.trials);
    AttendShape favor{1, L, L, d, d, m, std::max(widest_columns_per_row(kernels_) * m, d)};
    favor.generalized = any_generalized(kernels_);
    AttendShape exact{1, L, L, d, d};
    exact.exact = true;
    AttendShape denominators = favor;
    denominators.dv = 1;
    const double worker = projection_bytes(Coupling::orthogonal, m, d) +
                          std::max(braced_heads_bytes(denominators) + attend_bytes(denominators, 1),
                                   braced_heads_bytes(favor) + attend_bytes(favor, 1)) +
                          L * d * kDouble;
    return estimate(5 * L * d * kDouble + std::max(task_workers(draws, ctx.threads) * worker,
                                                   braced_heads_bytes(exact) + attend_bytes(exact, 1)) +
                        draws * sizeof(DenominatorStats),
                    "--L, --m or --d");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--kernels", kernels_, "Feature kinds: generalized kernels and softmax estimators")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--scales", scales_, "Standard deviations s of the Gaussian Q, K, V entries, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    length_option_ = app.add_option("--L", length_, "Sequence length (default 1024; quick 512)");
    app.add_option("--d", d_, "Head dimension")->capture_default_str();
    app.add_option("--m", m_, "Random features (rows of W)")->capture_default_str();
    app.add_option("--kernel-epsilon", kernel_epsilon_, "epsilon_k added to generalized-kernel features")
        ->capture_default_str();
    backend_.add_to(app, kDoubleBackendHelp);
  }

  Result run(const RunContext& ctx) override {
    std::vector<KernelCase> cases;
    for (const std::string& name : kernels_) {
      const Family kind = parse_kernel(name);
      cases.push_back({kind, true});
      if (!estimates_softmax(kind)) cases.push_back({kind, false});
    }
    length_ = resolved_length(ctx.quick);
    validate();
    const Backend backend = backend_.checked();
    Result result;
    result.experiment = name();
    result.params = Json{{"kernels", kernels_}, {"scales", scales_}, {"L", length_}, {"d", d_}, {"m", m_},
                         {"kernel_epsilon", kernel_epsilon_}, {"coupling", "orthogonal"},
                         {"inputs", "Q, K, V with N(0, s^2) entries, one input per scale"},
                         {"precision", std::string(backend_precision(backend))}};
    BackendOption::record(result, backend);

    KernelChecks checks(cases, scales_.size());
    std::size_t part = 0;
    const std::size_t parts = scales_.size() * cases.size();
    for (std::size_t si = 0; si < scales_.size(); ++si) {
      const double s = scales_[si];
      const AttentionInput input{gaussian_input(length_, d_, s, ctx.seed, kKernelInputStream + 3 * si, 0),
                                 gaussian_input(length_, d_, s, ctx.seed, kKernelInputStream + 3 * si + 1, 0),
                                 gaussian_input(length_, d_, s, ctx.seed, kKernelInputStream + 3 * si + 2, 0)};
      const ExactSoftmax exact = exact_softmax(input, backend);
      for (std::size_t ci = 0; ci < cases.size(); ++ci) {
        const KernelCase& c = cases[ci];
        AttentionConfig config;
        config.features = c.kind;
        config.project = c.project;
        config.m = m_;
        config.coupling = Coupling::orthogonal;
        config.kernel_epsilon = kernel_epsilon_;
        const bool random = projection_rows(config) > 0;
        const std::int64_t draws = random ? ctx.trials : 1;
        const std::uint64_t first_draw = (std::uint64_t(si) << 40) + (std::uint64_t(ci) << 32);
        const DenominatorStats st = favor_denominator_draws(input, exact, config, ctx.seed, first_draw, draws,
                                                            ctx.threads, backend,
                                                            part_progress(ctx.progress, part++, parts));
        result.rows.push_back(kernel_row(c, s, random, draws, st));
        checks.add(c, s, draws, st);
      }
    }

    const std::string setting = "L=" + std::to_string(length_) + ", d=" + std::to_string(d_) + ", m=" +
                                std::to_string(m_) + ", orthogonal W, scales {" + join_list(scales_) + "}, " +
                                std::to_string(ctx.trials) + " draws of W";
    result.checks.push_back(checks.positive(setting));
    result.checks.push_back(checks.trig(setting));
    result.checks.push_back(checks.finite(setting));
    return result;
  }

 private:
  Json kernel_row(const KernelCase& c, double s, bool random, std::int64_t draws, const DenominatorStats& st) const {
    Json row{{"estimator", std::string(feature_kind_name(c.kind))}, {"kernel", c.label()},
             {"project", c.project}, {"softmax_estimator", estimates_softmax(c.kind)}};
    row["scale"] = s;
    row["L"] = length_;
    row["d"] = d_;
    row["m"] = random ? Json(m_) : Json(nullptr);
    row["trials"] = draws;
    row["min_denominator"] = st.denominators ? Json(st.min_denominator) : Json(nullptr);
    row["min_denominator_ratio"] =
        st.denominators && estimates_softmax(c.kind) ? Json(st.min_denominator_ratio) : Json(nullptr);
    row["nonpositive_denominators"] = st.nonpositive;
    row["denominators"] = st.denominators + st.nonfinite_denominators;
    row["nonpositive_fraction"] =
        static_cast<double>(st.nonpositive) / static_cast<double>(st.denominators + st.nonfinite_denominators);
    row["nonfinite_denominators"] = st.nonfinite_denominators;
    row["nonfinite_outputs"] = st.nonfinite_outputs;
    row["nonfinite_draws"] = st.nonfinite_draws;
    row["mse"] = st.mse.count() ? Json(st.mse.mean()) : Json(nullptr);
    row["mse_stderr"] = st.mse.count() > 1 ? Json(st.mse.standard_error()) : Json(nullptr);
    row["mse_draws"] = st.mse.count();
    return row;
  }

  static Family parse_kernel(const std::string& name) {
    try {
      return parse_feature_kind(name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--kernels: ") + e.what());
    }
  }
  int resolved_length(bool quick) const {
    return length_option_ != nullptr && length_option_->count() > 0 ? length_ : (quick ? 512 : 1024);
  }

  void validate() const {
    if (kernels_.empty()) throw std::invalid_argument("--kernels needs at least one kernel");
    if (scales_.empty()) throw std::invalid_argument("--scales needs at least one scale");
    for (double s : scales_)
      if (!(std::isfinite(s) && s > 0)) throw std::invalid_argument("--scales values must be finite and > 0");
    if (length_ < 1 || length_ > 1 << 16) throw std::invalid_argument("--L must lie in [1, 65536]");
    if (d_ < 1 || d_ > 4096) throw std::invalid_argument("--d must lie in [1, 4096]");
    if (m_ < 1 || m_ > 65536) throw std::invalid_argument("--m must lie in [1, 65536]");
    if (!(std::isfinite(kernel_epsilon_) && kernel_epsilon_ >= 0))
      throw std::invalid_argument("--kernel-epsilon must be finite and >= 0");
  }

  std::vector<std::string> kernels_{"relu", "exp",  "sigmoid", "abs",      "gelu",       "cos",
                                    "tanh", "identity", "trig", "positive", "hyperbolic", "regularized"};
  std::vector<double> scales_{0.5, 1.0, 2.0};
  int length_ = 1024, d_ = 16, m_ = 256;
  CLI::Option* length_option_ = nullptr;  // not given: 1024, or 512 with --quick
  double kernel_epsilon_ = 1e-3;
  BackendOption backend_;
};

}  // namespace

std::unique_ptr<Experiment> make_kernels_experiment() { return std::make_unique<KernelsExperiment>(); }

}  // namespace favorlab
