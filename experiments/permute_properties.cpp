// `favorlab permute-properties` — PermuteFormer's position encoding on FAVOR features
// (docs/theory.md#permuteformer-properties):
//   sim(i, j) = q̃_iᵀ k̃_j = r^{i−j} φ(q_i)ᵀ P_π^{j−i} φ(k_j),  q̃_i = r^i P_π^i φ(q_i),  k̃_j = r^{−j} P_π^j φ(k_j).
// Per feature map, `--trials` draws of (π, π_x, π_y, a query content q, a key content k), in double: properties 1–3,
// the period = order(π) and the 2-D row wrap at sampled position pairs (evaluation/permute_properties.hpp, whose
// tolerances are floating-point bounds, never fitted; reported by evaluation/permute_property_rows.hpp); property 2's
// bound on the float32 causal mechanism at L = --lengths (evaluation/permute_long_run.hpp). Then the overhead of
// PermuteFormer over plain FAVOR, a timing, never judged (perf/permute_overhead.hpp).
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "attention/attention_projection.hpp"
#include "attention/permute_reference.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/content_rows.hpp"
#include "evaluation/permute_long_run.hpp"
#include "evaluation/permute_properties.hpp"
#include "evaluation/permute_property_rows.hpp"
#include "experiments/experiment.hpp"
#include "io/format_number.hpp"
#include "io/grid_size.hpp"
#include "io/npy.hpp"
#include "perf/memory_estimate.hpp"
#include "perf/permute_overhead.hpp"

namespace favorlab {

namespace {

constexpr std::uint64_t kContentStream = 0x9E40'0000ULL;  // + 0 queries, + 1 keys
constexpr std::uint64_t kPermStream = 0x9E41'0000ULL;     // + 0 π (1-D), + 1 π_x, + 2 π_y
constexpr std::uint64_t kLongStream = 0x9E42'0000ULL;     // + 0 Q, + 1 K of the long float32 runs
constexpr std::uint64_t kTimingStream = 0x9E43'0000ULL;

class PermutePropertiesExperiment final : public Experiment {
 public:
  std::string name() const override { return "permute-properties"; }
  std::string summary() const override {
    return "PermuteFormer: shift invariance, boundedness, positivity, period = order(pi), 2-D wrap, overhead vs FAVOR";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 3 : 12; }

  // Properties (per feature map): a row per grid cell W×H, the sims of up to min(--offsets, 2³⁰) offsets. Long runs
  // (per --lengths L): Q and K in double and float32, the L × m' power table of π (int32, at most 2³¹ entries), the
  // causal float32 PermuteFormer forward and the feature norms. Overhead (per --overhead-L × --overhead-m): float32
  // Q, K, V and the FAVOR and PermuteFormer forwards. --q/--k contents: every row of the files, stacked.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    Sizes s;
    try {
      s = resolve(ctx.quick);
    } catch (const std::exception&) {
      return {};  // run() names the bad value
    }
    double d = d_, contents = 0;
    if (!q_file_.empty() && !k_file_.empty()) {
      const auto q = npy_heads(q_file_), k = npy_heads(k_file_);
      if (q && k) {
        d = q->cols;
        contents = 24 * q->values() + 8 * k->values() + npy_read_bytes(k->values());  // read, stacked, kept
      }
    }
    const double m = m_, columns = widest_columns_per_row(features_) * m;
    const double features = static_cast<double>(features_.size());
    const double cells = static_cast<double>(s.width) * static_cast<double>(s.height);
    const double properties = projection_bytes(Coupling::orthogonal, m, d) +
                              16 * std::min(static_cast<double>(offsets_), 1073741824.0);
    double long_runs = 0;
    for (std::int64_t L : s.lengths)
      long_runs = std::max(long_runs, permute_long_run_bytes(static_cast<double>(L), d, m, columns, chunk_,
                                                             any_generalized(features_)));
    const double overhead = permute_overhead_bytes(overhead_grid(ctx, s));
    const double rows = features * (cells + 360 + static_cast<double>(ctx.trials) + 5 +
                                    static_cast<double>(s.lengths.size())) +
                        2 * static_cast<double>(overhead_m_.size() * s.overhead_lengths.size());
    return estimate(contents + rows_bytes(rows, 12) + std::max({properties, long_runs, overhead}),
                    "--lengths, --grid, --m or --overhead-L");
  }

  std::vector<std::pair<std::string, std::string>> input_files() const override {
    return {{"--q", q_file_}, {"--k", k_file_}};
  }

  void add_options(CLI::App& app) override {
    app.add_option("--d", d_, "Input dimension d of the property runs")->capture_default_str();
    app.add_option("--m", m_, "Features m (random projections; even for 2-D)")->capture_default_str();
    app.add_option("--q", q_file_, "Query contents from a .npy, (L, d) or (H, L, d): trial t uses row t mod rows "
                                   "(with --k; d then comes from the files)");
    app.add_option("--k", k_file_, "Key contents from a .npy, same d as --q");
    app.add_option("--r", r_, "Decay r of the causal runs, in (0, 1)")->capture_default_str();
    app.add_option("--features", features_, "Feature maps: positive, relu (any positive kind)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--positions", positions_, "Largest token position of the property grids (default 4096, quick 1024)");
    app.add_option("--grid", grid_, "2-D grid WxH (default 32x32, quick 16x16)");
    app.add_option("--lengths", lengths_,
                   "L of the float32 causal runs of property 2 (default 1000,10000,100000,1000000; quick to 30000)")
        ->delimiter(',');
    app.add_option("--offsets", offsets_, "Offsets tested for distinct sims below the order")->capture_default_str();
    app.add_option("--chunk", chunk_, "Causal chunk size")->capture_default_str();
    app.add_option("--scale", scale_, "Standard deviation of the random query/key entries")->capture_default_str();
    app.add_option("--overhead-L", overhead_lengths_, "L of the overhead measurement (default 1024..65536, quick ..8192)")
        ->delimiter(',');
    app.add_option("--overhead-m", overhead_m_, "m of the overhead measurement")->delimiter(',')->capture_default_str();
    app.add_option("--overhead-d", overhead_d_, "d of the overhead measurement")->capture_default_str();
    app.add_option("--repeats", repeats_, "Timed repeats per method (median; default 5, quick 3)");
    app.add_option("--overhead-target", overhead_target_, "Target time ratio PermuteFormer / FAVOR at m = 256")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    load_contents();
    const Sizes s = resolve(ctx.quick);
    Result result;
    result.experiment = name();
    result.params = Json{{"d", d_},
                         {"m", m_},
                         {"r", r_},
                         {"features", features_},
                         {"positions", s.positions},
                         {"grid", std::to_string(s.width) + "x" + std::to_string(s.height)},
                         {"lengths", s.lengths},
                         {"offsets", offsets_},
                         {"chunk", chunk_},
                         {"scale", scale_},
                         {"q_file", q_file_},
                         {"k_file", k_file_},
                         {"overhead_L", s.overhead_lengths},
                         {"overhead_m", overhead_m_},
                         {"overhead_d", overhead_d_},
                         {"repeats", s.repeats},
                         {"overhead_target", overhead_target_}};
    const auto parts = static_cast<std::int64_t>(features_.size() * 2 + 1);
    std::int64_t part = 0;
    const auto step = [&] { if (ctx.progress) ctx.progress(++part, parts); };
    for (const auto& f : features_) {
      properties(ctx, s, parse_feature_kind(f), result);
      step();
      long_runs(ctx, s, parse_feature_kind(f), result);
      step();
    }
    measure_permute_overhead(overhead_grid(ctx, s), result);
    step();
    return result;
  }

 private:
  struct Sizes {
    std::int64_t positions = 0;
    Eigen::Index width = 0, height = 0;
    std::vector<std::int64_t> lengths, overhead_lengths;
    int repeats = 0;
  };

  void load_contents() {
    contents_ = read_content_rows(q_file_, k_file_);
    if (contents_.q.size() > 0) d_ = static_cast<int>(contents_.q.cols());
  }

  AttentionConfig config_for(Family kind, bool causal) const {
    AttentionConfig c;
    c.features = kind;
    c.m = m_;
    c.causal = causal;
    c.chunk = chunk_;
    return c;
  }

  // Properties 1–3, the period and the 2-D wrap, in double, for one feature map.
  void properties(const RunContext& ctx, const Sizes& s, Family kind, Result& result) const {
    const std::string fname(feature_kind_name(kind));
    const AttentionConfig config = config_for(kind, false);
    const int columns = feature_columns(config, d_);
    const Eigen::MatrixXd w = draw_attention_projection(config, d_, ctx.seed, 0);
    const std::int64_t longest = std::max(s.positions, *std::max_element(s.lengths.begin(), s.lengths.end()));
    const PermutePropertyGrid grid{s.positions, longest, s.width, s.height, offsets_, r_};
    PermutePropertyTallies tallies;
    const auto append = [&](std::vector<Json> rows) {
      for (Json& row : rows) result.rows.push_back(std::move(row));
    };
    const auto phi = [&](const Eigen::MatrixXd& rows, std::uint64_t stream, std::uint64_t draw) -> Eigen::VectorXd {
      const Eigen::MatrixXd x = content_row(rows, d_, scale_, ctx.seed, stream, draw);
      return explicit_permute_features(x, w, config).row(0).transpose();
    };
    for (std::int64_t t = 0; t < ctx.trials; ++t) {
      const auto draw = static_cast<std::uint64_t>(t);
      const PermuteDraw one{
          phi(contents_.q, kContentStream, draw), phi(contents_.k, kContentStream + 1, draw),
          random_permutation(columns, ctx.seed, kPermStream, draw),
          random_permutation(columns / 2, ctx.seed, kPermStream + 1, draw),
          random_permutation(columns / 2, ctx.seed, kPermStream + 2, draw),
          fname + ", draw " + std::to_string(t) + ", "};
      const RowWrap wrap = add_permute_properties(one, grid, tallies);
      if (t == 0) append(permute_offset_rows(one, fname));
      result.rows.push_back(permute_wrap_row(wrap, fname, t, s.width, s.height, columns));
      if (t == 0) append(permute_grid_rows(one, fname, s.width, s.height, wrap));
    }
    report_permute_properties(tallies, grid, {fname, columns, d_, ctx.trials}, result);
  }

  // Property 2 (b): the float32 causal mechanism at growing L.
  void long_runs(const RunContext& ctx, const Sizes& s, Family kind, Result& result) const {
    const std::string fname(feature_kind_name(kind));
    AttentionConfig config = config_for(kind, true);
    config.renormalize = false;
    const int columns = feature_columns(config, d_);
    const Eigen::MatrixXd w = draw_attention_projection(config, d_, ctx.seed, 0);
    const PermuteHead head{random_permutation(columns, ctx.seed, kPermStream, 0), std::nullopt, r_};
    CountedCheck tally;
    for (std::int64_t L : s.lengths) {
      const PermuteLongRun run = permute_long_run(
          gaussian_input(static_cast<int>(L), d_, scale_, ctx.seed, kLongStream, 0),
          gaussian_input(static_cast<int>(L), d_, scale_, ctx.seed, kLongStream + 1, 0), w, config, head);
      tally.add(run.badness, fname + ", L=" + std::to_string(L));
      result.rows.push_back(permute_long_run_row(run, fname, d_, r_, chunk_));
    }
    report_permute_long_runs(tally, fname, columns, r_, chunk_, s.lengths.back(), result);
  }

  PermuteOverheadGrid overhead_grid(const RunContext& ctx, const Sizes& s) const {
    return {s.overhead_lengths, overhead_m_, overhead_d_, chunk_, r_, s.repeats, overhead_target_,
            ctx.seed,           kTimingStream, kPermStream};
  }

  Sizes resolve(bool quick) const {
    Sizes s;
    s.positions = positions_ > 0 ? positions_ : (quick ? 1024 : 4096);
    const std::string g = grid_.empty() ? (quick ? "16x16" : "32x32") : grid_;
    std::tie(s.width, s.height) = parse_grid_size(g, "--grid");
    s.lengths = !lengths_.empty() ? lengths_
                                  : (quick ? std::vector<std::int64_t>{1000, 10000, 30000}
                                           : std::vector<std::int64_t>{1000, 10000, 100000, 1000000});
    s.overhead_lengths = !overhead_lengths_.empty()
                             ? overhead_lengths_
                             : (quick ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                                      : std::vector<std::int64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536});
    s.repeats = repeats_ > 0 ? repeats_ : (quick ? 3 : 5);
    validate(s);
    return s;
  }

  void validate(const Sizes& s) const {
    if (d_ <= 0) throw std::invalid_argument("--d must be positive, got " + std::to_string(d_));
    if (m_ <= 0) throw std::invalid_argument("--m must be positive, got " + std::to_string(m_));
    if (m_ % 2 != 0)
      throw std::invalid_argument("--m must be even (2-D halves for pi_x and pi_y), got " + std::to_string(m_));
    if (m_ < 12)
      throw std::invalid_argument("--m must be at least 12 (the order-60 permutation), got " + std::to_string(m_));
    if (!(r_ > 0 && r_ < 1)) throw std::invalid_argument("--r must lie in (0, 1), got " + format_number(r_));
    if (features_.empty()) throw std::invalid_argument("--features needs at least one feature map");
    for (const auto& f : features_)
      if (!positive_feature_kind(parse_feature_kind(f)))
        throw std::invalid_argument("--features '" + f + "' can be negative; PermuteFormer needs positive features");
    if (s.positions < 8) throw std::invalid_argument("--positions must be at least 8");
    if (s.width < 2 || s.height < 2) throw std::invalid_argument("--grid sides must be at least 2");
    for (std::int64_t L : s.lengths)
      if (L < 1 || L > 100'000'000) throw std::invalid_argument("--lengths must lie in [1, 1e8]");
    if (s.lengths.empty()) throw std::invalid_argument("--lengths needs at least one length");
    for (std::int64_t L : s.overhead_lengths)
      if (L < 1 || L > 10'000'000) throw std::invalid_argument("--overhead-L must lie in [1, 1e7]");
    for (int m : overhead_m_)
      if (m <= 0) throw std::invalid_argument("--overhead-m must be positive");
    if (overhead_d_ <= 0) throw std::invalid_argument("--overhead-d must be positive");
    if (offsets_ < 2) throw std::invalid_argument("--offsets must be at least 2");
    if (chunk_ < 1) throw std::invalid_argument("--chunk must be positive");
    if (!(scale_ > 0) || !std::isfinite(scale_)) throw std::invalid_argument("--scale must be positive and finite");
    if (s.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
    if (!(overhead_target_ > 0)) throw std::invalid_argument("--overhead-target must be positive");
  }

  int d_ = 16, m_ = 64;
  std::string q_file_, k_file_;
  ContentRows contents_;
  double r_ = 0.88;
  std::vector<std::string> features_{"positive", "relu"};
  std::int64_t positions_ = 0;
  std::string grid_;
  std::vector<std::int64_t> lengths_, overhead_lengths_;
  std::int64_t offsets_ = 256;
  int chunk_ = 128;
  double scale_ = 1.0;
  std::vector<int> overhead_m_{64, 128, 256};
  int overhead_d_ = 64;
  int repeats_ = 0;
  double overhead_target_ = 1.10;
};

}  // namespace

std::unique_ptr<Experiment> make_permute_properties_experiment() {
  return std::make_unique<PermutePropertiesExperiment>();
}

}  // namespace favorlab
