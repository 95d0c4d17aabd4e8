// `favorlab speed` — forward time and peak memory of attention against the sequence length L (Performers paper,
// Fig. 3), with favorlab's performance targets as measured ratios.
// Methods (perf/speed_methods.hpp, one table entry each): exact softmax attention (tiled, bidirectional and causal,
// and the naive reference kernel for the gain), FAVOR bidirectional and causal (positive, oprf, sderf features),
// PermuteFormer bidirectional and causal, identity "X(OPT)" (returns V: the floor of any attention layer) and gemm
// (the four bare products of bidirectional FAVOR: the floor of FAVOR itself); on the device also FAVOR with its inputs
// held as float16 or bfloat16.
// Shapes: regular (8 heads) and small (1 head), d = 64, dv = 64, m = 256, float32, positive features; threads 1 and 2.
// L sweep: powers of 2 from --min-L to --max-L. The sweep (perf/speed_sweep.hpp) times `--trials` repeats of every
// method per (shape, threads, L), interleaved so a load burst on a shared machine hits all methods alike, measures
// each method's peak memory in a forked one-thread child, and drops a method at the next L when its predicted forward
// time passes --time-cap or its predicted peak memory --memory-cap-gb. Rows (perf/speed_rows.hpp): per point its
// times and ratios to exact, identity and gemm from the same run; per method the log-log slope of time against L and
// why it was dropped; per (shape, threads) the crossover L where exact becomes slower than FAVOR.
// Checks (perf/speed_targets.hpp): timing checks are INFORMATIONAL (wall-clock on a machine shared with other jobs;
// the load average is in every row and detail) — never unit tests. The memory check (causal FAVOR peak
// < 3× inputs + outputs) is deterministic up to page granularity.
// FMA peak (cpu backend): one core's multiply-add peak for the build's instruction set (perf/fma_peak.hpp), one
// "fma_peak" row; the gemm and favor_bidirectional rows give their GEMM FLOP/s as a fraction of it (times the thread
// count), and a measured check lists the bare GEMMs' fractions: how near FAVOR's floor is to the machine's own.
// Monte Carlo engine (cpu backend, --mc-trials): the `mse` sweep at its defaults against its own GEMMs alone
// (perf/mc_engine_rate.hpp), one "mc_engine" row and its target (>= 0.5x the GEMM FLOP/s), measured, with the
// ceiling the estimates alone would reach.
// --backend cuda (attention/backend.hpp: time_on_cuda): the same table on the GPU, where every method but
// PermuteFormer and the naive exact kernel has a device implementation; device time from CUDA events, so host threads
// play no part (one row per point, threads = 1), and device bytes allocated above the inputs as the peak. Checks: the
// GPU targets, FAVOR with 16-bit inputs against float32 ones (measured) and the memory check. FAVOR and its bare
// products also run with their products in tf32 and bfloat16 on the tensor cores (methods *_tf32, *_bfloat16),
// interleaved with the float32 ones; exact attention is float32.
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "experiments/backend_option.hpp"
#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "io/format_number.hpp"
#include "perf/fma_peak.hpp"
#include "perf/mc_engine_rate.hpp"
#include "perf/memory_estimate.hpp"
#include "perf/ratio_checks.hpp"
#include "perf/speed_rows.hpp"
#include "perf/speed_sweep.hpp"
#include "perf/speed_targets.hpp"
#include "runtime/load_average.hpp"
#include "runtime/thread_start.hpp"

namespace favorlab {

namespace {

class SpeedExperiment final : public Experiment {
 public:
  std::string name() const override { return "speed"; }
  std::string summary() const override {
    return "Fig. 3: forward time and peak memory vs L (exact, FAVOR, identity, bare GEMMs); CPU performance targets";
  }
  // Trials are the timed repeats per point (median reported); 3 keeps the full run within 10 minutes.
  std::int64_t default_trials(bool) const override { return 3; }
  Distribution distribution() const override { return Distribution::refused; }

  // At the largest L: the inputs of the widest shape (float32 Q, K, V per head, drawn in double), W (m×d, d×d blocks)
  // and on the CPU the largest forward at the most threads — exact (a 128 × 256 logits tile per thread; its naive
  // reference 128 × L), FAVOR bidirectional, causal or PermuteFormer — which the drop rule keeps under
  // --memory-cap-gb once it measures memory (the peak-memory child forks a one-thread copy of a forward, never more).
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    bool gpu = false;
    try {
      gpu = backend_.parsed() == Backend::cuda;
    } catch (const std::exception&) {  // run() names the bad value
    }
    const double L = resolved_max_l(ctx.quick, gpu), d = d_, m = m_;
    double heads = 1, threads = 1;
    for (const std::string& shape : shapes_) heads = std::max(heads, shape == "small" ? 1.0 : 8.0);
    if (!gpu)
      for (int t : thread_counts_) threads = std::max<double>(threads, t);
    const double inputs = 3 * heads * L * d * kFloat + L * d * kDouble + projection_bytes(Coupling::orthogonal, m, d);
    double forward = 0;
    if (!gpu) {
      forward = speed_forward_bytes(heads, L, d, m, chunk(Backend::cpu), threads);
      if (!no_memory_) forward = std::min(forward, memory_cap_gb_ * 1073741824.0);
    }
    return estimate(inputs + forward, "--max-L, --m or --d");
  }

  void add_options(CLI::App& app) override {
    max_l_option_ = app.add_option("--max-L", max_l_,
                   "Largest sequence length (powers of 2 from 512; default 65536, quick 4096; cuda: 262144, quick "
                   "65536)");
    app.add_option("--min-L", min_l_, "Smallest sequence length (a power of 2)")->capture_default_str();
    app.add_option("--memory-cap-gb", memory_cap_gb_,
                   "Drop a method once its predicted peak memory passes this many GiB")
        ->capture_default_str();
    time_cap_option_ = app.add_option("--time-cap", time_cap_,
                   "Drop a method once its predicted forward time (CPU per thread; cuda: device time) passes this "
                   "many seconds (default 10, quick 1; cuda: 30, quick 5)");
    app.add_option("--shapes", shapes_, "Shapes: regular (8 heads), small (1 head)")
        ->delimiter(',')
        ->capture_default_str();
    thread_counts_option_ = app.add_option("--thread-counts", thread_counts_, "Thread counts to time (cpu backend)")
                                ->delimiter(',')
                                ->capture_default_str();
    app.add_option("--d", d_, "Head dimension d (= dv)")->capture_default_str();
    app.add_option("--m", m_, "Random features m")->capture_default_str();
    chunk_option_ = app.add_option("--chunk", chunk_, "Causal FAVOR chunk (rows; default 48 on cpu, 512 on cuda)");
    app.add_option("--fit-from", fit_from_, "Fit the log-log slopes on L >= this")->capture_default_str();
    app.add_flag("--no-memory", no_memory_, "Skip the peak-memory measurements");
    mc_trials_option_ = app.add_option("--mc-trials", mc_trials_,
                   "Trials of the Monte Carlo engine row (the mse sweep against its own GEMMs; cpu backend; default "
                   "4000, quick 500; 0 skips it)");
    backend_.add_to(app, "cpu, or cuda: time the methods on the GPU (device time, device memory; needs a CUDA build "
                         "and a device)");
  }

  Result run(const RunContext& ctx) override {
    const Backend backend = backend_.parsed();
    const bool gpu = backend == Backend::cuda;
    const int max_l = resolved_max_l(ctx.quick, gpu);
    const double time_cap =
        given(time_cap_option_) ? time_cap_ : gpu ? (ctx.quick ? 5.0 : 30.0) : (ctx.quick ? 1.0 : 10.0);
    validate(max_l, time_cap, ctx);
    if (gpu && thread_counts_option_->count() > 0)
      throw std::invalid_argument("--thread-counts applies to --backend cpu only (device time does not depend on "
                                  "the host's threads)");
    backend_.checked();  // before any work: one clear line where CUDA cannot run
    SpeedSweepConfig config;
    for (const auto& s : shapes_) config.shapes.push_back({s, s == "regular" ? 8 : 1});
    for (int l = min_l_; l <= max_l; l *= 2) config.lengths.push_back(l);
    config.thread_counts = gpu ? std::vector<int>{1} : thread_counts_;
    config.favor.features = Family::positive;
    config.favor.m = m_;
    config.favor.chunk = chunk(backend);
    config.d = d_;
    config.repeats = static_cast<int>(ctx.trials);
    config.time_cap = time_cap;
    config.memory_cap_gb = memory_cap_gb_;
    config.measure_memory = !no_memory_;
    config.backend = backend;
    config.seed = ctx.seed;
    config.progress = ctx.progress;

    Result result;
    result.experiment = name();
    std::vector<std::string> measured, not_here;
    for (const SpeedMethod& m : speed_methods()) (m.runs_on(backend) ? measured : not_here).push_back(m.name);
    result.params = Json{{"min_L", min_l_},         {"max_L", max_l},       {"memory_cap_gb", memory_cap_gb_},
                         {"time_cap", time_cap},    {"shapes", shapes_},    {"thread_counts", config.thread_counts},
                         {"d", d_},                 {"dv", d_},             {"m", m_},
                         {"chunk", chunk(backend)}, {"features", "positive"}, {"precision", "float32"},
                         {"fit_from", fit_from_},   {"repeats", config.repeats}, {"memory", !no_memory_},
                         {"mc_trials", mc_trials(ctx.quick)},
                         {"methods", measured},
                         {"methods_without_this_backend", not_here},
                         {"timing", gpu ? "device time (CUDA events), inputs resident on the device"
                                        : "wall clock and process CPU time, interleaved repeats"},
                         {"peak_memory", gpu ? "device bytes allocated by one forward above its inputs"
                                             : "rise of the resident set in a forked child, one thread"}};
    BackendOption::record(result, backend);

    // One core's multiply-add peak for this build's instruction set, before any attention runs: what the bare GEMMs'
    // FLOP/s are divided by.
    std::optional<FmaPeak> peak;
    if (!gpu) peak = measure_fma_peak(ctx.quick ? 0.02 : 0.1);
    const SpeedSweep sweep = run_speed_sweep(config);
    add_speed_rows(result.rows, sweep, config.shapes, {d_, m_, fit_from_, gpu, peak});
    if (gpu) {
      result.checks = cuda_speed_checks(sweep.points, shapes_, d_, m_);
    } else {
      result.rows.push_back(Json{{"kind", "fma_peak"},
                                 {"flops_per_second", peak->flops_per_second},
                                 {"lanes", peak->lanes},
                                 {"chains", peak->chains},
                                 {"fused", peak->fused},
                                 {"steps", peak->steps},
                                 {"runs", peak->runs},
                                 {"threads", 1},
                                 {"load_average", load_average()}});
      for (Check& c : fma_fraction_checks(sweep.points, config.shapes, d_, m_, *peak))
        result.checks.push_back(std::move(c));
      for (Check& c : cpu_speed_checks(sweep.points, shapes_)) result.checks.push_back(std::move(c));
      emit_mc_engine(result, ctx, config.repeats);
    }
    result.checks.push_back(causal_memory_check(sweep.points, config.shapes, d_, m_, max_l, gpu));
    result.measurements["speed_checksum"] = sweep.checksum;
    result.measurements["load_average_end"] = load_average();
    return result;
  }

 private:
  // The Monte Carlo engine against its own GEMMs (perf/mc_engine_rate.hpp) on the `mse` sweep at its defaults: d = 16,
  // trig, positive and hyperbolic at m = 16 plus positive at 2m, the 208-point geometry grid, iid, one thread.
  void emit_mc_engine(Result& result, const RunContext& ctx, int repeats) const {
    const std::int64_t trials = mc_trials(ctx.quick);
    if (trials == 0) return;
    const EstimatorGridOptions grid;
    SweepConfig config;
    config.d = grid.d;
    config.specs = {{Family::trig, grid.m}, {Family::positive, grid.m}, {Family::hyperbolic, grid.m},
                    {Family::positive, 2 * grid.m}};
    config.points = grid.points();
    config.seed = ctx.seed;
    config.trials = trials;
    const McEngineTiming t = time_mc_engine(config, repeats);
    result.rows.push_back(Json{{"kind", "mc_engine"},
                               {"d", config.d},
                               {"m", grid.m},
                               {"estimators", "trig, positive, hyperbolic (m); positive (2m)"},
                               {"points", config.points.size()},
                               {"trials", trials},
                               {"threads", 1},
                               {"repeats", repeats},
                               {"sweep_seconds_median", t.sweep_seconds},
                               {"products_seconds_median", t.products_seconds},
                               {"estimates_seconds_median", t.estimates_seconds},
                               {"gemm_flops", t.flops},
                               {"sweep_gemm_flops_per_second", t.flops / t.sweep_seconds},
                               {"products_flops_per_second", t.flops / t.products_seconds},
                               {"rate", t.rate()},
                               {"ceiling", t.ceiling()},
                               {"load_average", t.load}});
    Ratios r;
    r.add("mse-defaults/trials=" + std::to_string(trials), t.rate(), t.load);
    result.checks.push_back(ratio_check(
        "Target: the Monte Carlo mse sweep reaches >= 0.5x the GEMM FLOP/s of its own products",
        "time(the products alone)/time(run_estimator_sweep), the mse defaults (d = 16, m = 16, 208 points, 4 specs, "
        "iid), one thread",
        r, 0.5, true, true,
        "a timing (wall clock on a possibly shared machine), measured, never judged; the products are the sweep's "
        "X W^T and Y W^T per spec and trial, timed interleaved with it; the estimates alone (products, feature maps "
        "and phi(x)^T phi(y)) took " + format_number(t.estimates_seconds / t.sweep_seconds, 3) +
            "x the sweep's time, so the rate's ceiling, with drawing projections and accumulating statistics free, "
            "is " + format_number(t.ceiling(), 3) + " (the row's `ceiling`); "));
  }

  // Options whose default depends on the run: the value given, else the run's default (never a sentinel value a user
  // could type).
  std::int64_t mc_trials(bool quick) const { return given(mc_trials_option_) ? mc_trials_ : quick ? 500 : 4000; }
  static bool given(const CLI::Option* option) { return option != nullptr && option->count() > 0; }
  // The causal chunk: --chunk where given, else the backend's default (48 on the CPU, 512 on the GPU).
  int chunk(Backend backend) const { return given(chunk_option_) ? chunk_ : default_chunk(backend); }

  int resolved_max_l(bool quick, bool gpu) const {
    return given(max_l_option_) ? max_l_ : gpu ? (quick ? 65536 : 262144) : (quick ? 4096 : 65536);
  }

  void validate(int max_l, double time_cap, const RunContext& ctx) const {
    auto power_of_two = [](int x) { return x > 0 && (x & (x - 1)) == 0; };
    if (!power_of_two(min_l_) || min_l_ < 2)
      throw std::invalid_argument("--min-L must be a power of 2 of at least 2, got " + std::to_string(min_l_));
    if (!power_of_two(max_l) || max_l < min_l_)
      throw std::invalid_argument("--max-L must be a power of 2 of at least --min-L, got " + std::to_string(max_l));
    if (max_l > (1 << 24)) throw std::invalid_argument("--max-L must be at most 16777216");
    if (!(memory_cap_gb_ > 0)) throw std::invalid_argument("--memory-cap-gb must be positive");
    if (!(time_cap > 0)) throw std::invalid_argument("--time-cap must be positive");
    if (shapes_.empty()) throw std::invalid_argument("--shapes needs at least one shape");
    for (const auto& s : shapes_)
      if (s != "regular" && s != "small")
        throw std::invalid_argument("--shapes: unknown shape '" + s + "' (expected regular or small)");
    if (thread_counts_.empty()) throw std::invalid_argument("--thread-counts needs at least one thread count");
    for (int t : thread_counts_)
      if (t < 1 || t > 1024) throw std::invalid_argument("--thread-counts must lie in [1, 1024], got " + std::to_string(t));
    check_threads_can_start(*std::max_element(thread_counts_.begin(), thread_counts_.end()));
    if (d_ < 1 || d_ > 4096) throw std::invalid_argument("--d must lie in [1, 4096], got " + std::to_string(d_));
    if (m_ < 1 || m_ > 65536) throw std::invalid_argument("--m must lie in [1, 65536], got " + std::to_string(m_));
    if (given(chunk_option_) && chunk_ < 1)
      throw std::invalid_argument("--chunk must be positive, got " + std::to_string(chunk_));
    if (given(mc_trials_option_) && (mc_trials_ < 0 || mc_trials_ == 1 || mc_trials_ > 100000000))
      throw std::invalid_argument("--mc-trials must be 0 (skip) or lie in [2, 1e8], got " + std::to_string(mc_trials_));
    if (fit_from_ < 1) throw std::invalid_argument("--fit-from must be positive, got " + std::to_string(fit_from_));
    (void)ctx;
  }

  int min_l_ = 512;
  int max_l_ = 0;  // when not given: the default for the run and backend (resolved_max_l)
  double memory_cap_gb_ = 16;
  double time_cap_ = 0;  // when not given: the default for the run and backend
  std::vector<std::string> shapes_{"regular", "small"};
  std::vector<int> thread_counts_{1, 2};
  int d_ = 64;
  int m_ = 256;
  int chunk_ = 0;  // when not given: the backend's default (default_chunk)
  int fit_from_ = 1024;
  bool no_memory_ = false;
  std::int64_t mc_trials_ = 0;  // when not given: the default for the run (4000, quick 500)
  BackendOption backend_;
  CLI::Option* thread_counts_option_ = nullptr;
  CLI::Option* max_l_option_ = nullptr;
  CLI::Option* chunk_option_ = nullptr;
  CLI::Option* time_cap_option_ = nullptr;
  CLI::Option* mc_trials_option_ = nullptr;
};

}  // namespace

std::unique_ptr<Experiment> make_speed_experiment() { return std::make_unique<SpeedExperiment>(); }

}  // namespace favorlab
