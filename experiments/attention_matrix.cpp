// `favorlab attention-matrix` — the attention matrices themselves (section C.4 extraction): exact softmax attention
// and FAVOR with each feature map × coupling, for one small input (Gaussian Q, K, input 0; projection draw 0), as
// nested arrays for heatmaps, with summary numbers per matrix: max and mean |Â − A|, the largest |row sum − 1|, the
// smallest entry and the count of negative entries. Checks (deterministic, no sampling statistics):
//   1. every row of the exact and of each renormalized FAVOR matrix sums to 1 (|Σ_j A_ij − 1| ≤ --row-sum-tolerance,
//      1e-12: rounding of ~L additions; a near-zero estimated denominator D̂ — possible only with trig features —
//      amplifies rounding and shows up here);
//   2. positive (and hyperbolic, regularized) FAVOR matrices have no negative entry;
//   3. trig FAVOR matrices can have negative entries (holds when one is found; inconclusive when none is — absence
//      in one draw does not refute "can").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "evaluation/attention_error.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "experiments/experiment.hpp"
#include "experiments/softmax_estimator_options.hpp"
#include "io/format_number.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

namespace {

constexpr int kMaxL = 128;  // the matrices go into the JSON: keep the file small

struct MatrixSummary {
  double max_error = 0, mean_error = 0, row_sum_deviation = 0, min_entry = 0;
  std::int64_t negative = 0;
};

MatrixSummary summarize(const Eigen::MatrixXd& a, const Eigen::MatrixXd& exact) {
  MatrixSummary s;
  s.max_error = max_abs_error(a, exact);
  s.mean_error = a.allFinite() ? (a - exact).cwiseAbs().mean() : INFINITY;
  s.row_sum_deviation = (a.rowwise().sum().array() - 1).abs().maxCoeff();
  if (!std::isfinite(s.row_sum_deviation)) s.row_sum_deviation = INFINITY;
  s.min_entry = a.minCoeff();
  s.negative = (a.array() < 0).count();
  return s;
}

double round_to_digits(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return std::strtod(text, nullptr);
}

Json matrix_json(const Eigen::MatrixXd& a) {
  Json rows = Json::array();
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    Json row = Json::array();
    // Four significant digits are plenty for a heatmap (the summary fields carry full precision) and keep the file
    // small.
    for (Eigen::Index j = 0; j < a.cols(); ++j) row.push_back(round_to_digits(a(i, j), 4));
    rows.push_back(row);
  }
  return rows;
}

// What the checks collect over the matrices: the row sums of every matrix, the entries' signs in the non-trig FAVOR
// matrices and the negative entries of the trig ones.
struct MatrixTally {
  double worst_row_sum = 0;
  std::string worst_row_label = "exact";
  std::size_t row_sum_bad = 0, matrices = 1;
  std::size_t signed_bad = 0, signed_checked = 0;
  double most_negative_positive = INFINITY;
  std::int64_t trig_negative = 0;
  double trig_min = INFINITY;
  std::size_t trig_matrices = 0;
};

class AttentionMatrixExperiment final : public Experiment {
 public:
  std::string name() const override { return "attention-matrix"; }
  std::string summary() const override {
    return "Attention matrices of one input: exact vs FAVOR (positive/trig x iid/orthogonal), errors, row sums, signs";
  }
  std::int64_t default_trials(bool) const override { return 2; }  // unused: one input, one draw

  // One input; per matrix the one-hot V = I_L and the L×L output (exact: 128 × L logits per thread; FAVOR: W of m×d
  // with d×d blocks, and states of columns × (L+1) per 512 keys), and a row holding the L×L entries as JSON.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double L = L_, d = d_, m = m_, matrices = static_cast<double>(features_.size() * couplings_.size()) + 1;
    AttendShape favor{1, L, L, d, L, m, widest_columns_per_row(features_) * m};
    favor.causal = causal_;
    AttendShape exact{1, L, L, d, L};
    exact.exact = true;
    const double forward = std::max(attend_bytes(exact, ctx.threads),
                                    widest_projection_bytes(couplings_, m, d) + attend_bytes(favor, ctx.threads));
    const double entry = 100;  // a matrix entry as JSON: in memory, copied, as text
    return estimate(3 * L * d * kDouble + braced_heads_bytes(favor) + forward + 2 * L * L * kDouble +
                        rows_bytes(matrices, 12) + matrices * L * L * entry,
                    "--m or --d");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--L", L_, "Sequence length (at most 128: the matrices go into the result file)")
        ->capture_default_str();
    app.add_option("--d", d_, "Query/key dimension")->capture_default_str();
    app.add_option("--m", m_, "Number of random features")->capture_default_str();
    app.add_option("--features", features_, "Feature maps: " + family_list(estimates_softmax))
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--couplings", couplings_, "Projection couplings: iid, orthogonal, simplex")
        ->delimiter(',')
        ->capture_default_str();
    app.add_flag("--causal", causal_, "Causal (lower-triangular) attention");
    app.add_option("--scale", scale_, "Standard deviation of the entries of the Gaussian Q and K")
        ->capture_default_str();
    app.add_option("--row-sum-tolerance", tolerance_, "Largest |row sum - 1| that counts as 1 (rounding)")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    validate();
    const std::vector<Family> features = parse_softmax_features(features_, name());
    std::vector<Coupling> couplings;
    for (const auto& c : couplings_) couplings.push_back(parse_dense_coupling(c, "--couplings", name()));
    Result result;
    result.experiment = name();
    result.params = Json{{"L", L_},         {"d", d_},
                         {"m", m_},         {"features", features_},
                         {"couplings", couplings_}, {"causal", causal_},
                         {"input_kind", "gaussian"}, {"input_index", 0},
                         {"qk_scale", scale_}, {"projection_draw", 0},
                         {"row_sum_tolerance", tolerance_}};
    const MatrixTally tally = add_rows(result, features, couplings, ctx);
    add_checks(result, tally);
    return result;
  }

 private:
  // The exact matrix of input 0 and the FAVOR matrix of each feature map × coupling (projection draw 0), a row each;
  // returns what the checks need from them.
  MatrixTally add_rows(Result& result, const std::vector<Family>& features, const std::vector<Coupling>& couplings,
                       const RunContext& ctx) const {
    const AttentionInput in = gaussian_attention_input(L_, d_, 1, scale_, 1.0, ctx.seed, 0);
    AttentionConfig exact_config;
    exact_config.mechanism = Mechanism::exact;
    exact_config.causal = causal_;
    const Eigen::MatrixXd exact =
        attention_matrix<double>(in.q, in.k, Eigen::MatrixXd(0, d_), exact_config, ctx.threads);
    const MatrixSummary es = summarize(exact, exact);

    MatrixTally t;
    t.worst_row_sum = es.row_sum_deviation;
    t.row_sum_bad = es.row_sum_deviation > tolerance_ ? 1 : 0;
    result.rows.push_back(row("exact", "none", exact, es));
    const std::size_t total = features.size() * couplings.size();
    std::size_t done = 0;
    for (Family f : features)
      for (Coupling c : couplings) {
        AttentionConfig config;
        config.features = f;
        config.coupling = c;
        config.m = m_;
        config.causal = causal_;
        const Eigen::MatrixXd w = draw_attention_projection(config, d_, ctx.seed, 0);
        const Eigen::MatrixXd a = attention_matrix<double>(in.q, in.k, w, config, ctx.threads);
        const MatrixSummary s = summarize(a, exact);
        const std::string label = std::string(feature_kind_name(f)) + "/" + std::string(coupling_name(c));
        result.rows.push_back(row(std::string(feature_kind_name(f)), std::string(coupling_name(c)), a, s));
        ++t.matrices;
        if (!(s.row_sum_deviation <= tolerance_)) ++t.row_sum_bad;
        if (!(s.row_sum_deviation <= t.worst_row_sum)) {
          t.worst_row_sum = s.row_sum_deviation;
          t.worst_row_label = label;
        }
        if (f == Family::trig) {
          ++t.trig_matrices;
          t.trig_negative += s.negative;
          t.trig_min = std::min(t.trig_min, s.min_entry);
        } else {
          ++t.signed_checked;
          if (s.negative > 0 || !a.allFinite()) ++t.signed_bad;
          t.most_negative_positive = std::min(t.most_negative_positive, s.min_entry);
        }
        if (ctx.progress) ctx.progress(static_cast<std::int64_t>(++done), static_cast<std::int64_t>(total));
      }
    return t;
  }

  // Checks 1–3: row sums, no negative entry without trig features, trig's negative entries.
  void add_checks(Result& result, const MatrixTally& t) const {
    const std::string where = "L=" + std::to_string(L_) + ", d=" + std::to_string(d_) + ", m=" + std::to_string(m_) +
                              (causal_ ? ", causal" : ", bidirectional") + ", one input, projection draw 0";
    // Row sums and the sign of positive-feature entries hold by construction (renormalization; exp > 0): measured,
    // and violated only by a counterexample. "Trig can go negative" is an existence claim: one negative entry
    // confirms it.
    Check rows = measured_check("Rows of the exact and renormalized FAVOR attention matrices sum to 1", where,
                                t.worst_row_sum, tolerance_,
                                std::to_string(t.matrices - t.row_sum_bad) + " of " + std::to_string(t.matrices) +
                                    " matrices within " + format_number(tolerance_) + "; largest |row sum - 1| " +
                                    format_number(t.worst_row_sum) + " (" + t.worst_row_label +
                                    "); true by construction, so measured (value: largest |row sum - 1|, target: "
                                    "the rounding tolerance)");
    if (t.row_sum_bad > 0) rows.status = Verdict::violated;
    result.checks.push_back(rows);
    if (t.signed_checked > 0) {
      Check sign = measured_check("Positive-feature attention matrices have no negative entries", where,
                                  t.most_negative_positive, 0,
                                  std::to_string(t.signed_checked - t.signed_bad) + " of " +
                                      std::to_string(t.signed_checked) +
                                      " non-trig matrices without a negative entry; smallest entry " +
                                      format_number(t.most_negative_positive) +
                                      "; true by construction (exp > 0), so measured (value: smallest entry)");
      if (t.signed_bad > 0) sign.status = Verdict::violated;
      result.checks.push_back(sign);
    }
    if (t.trig_matrices > 0) {
      Check trig;
      trig.claim = "Trig-feature attention matrices can have negative entries";
      trig.where = where;
      set_point_counts(trig, t.trig_negative > 0 ? 1 : 0, 0, t.trig_negative > 0 ? 0 : 1);
      trig.statistic = t.trig_min;
      trig.detail = std::to_string(t.trig_negative) + " negative entries in " + std::to_string(t.trig_matrices) +
                    " trig matrices (" + std::to_string(L_ * L_) + " entries each); smallest entry " +
                    format_number(t.trig_min) +
                    (t.trig_negative > 0 ? " (an example confirms 'can')"
                                         : "; none seen in this draw, which neither confirms nor refutes 'can'");
      result.checks.push_back(trig);
    }
  }
  Json row(const std::string& features, const std::string& coupling, const Eigen::MatrixXd& a,
           const MatrixSummary& s) const {
    return Json{{"features", features},
                {"estimator", features},
                {"coupling", coupling},
                {"causal", causal_},
                {"m", features == "exact" ? 0 : m_},
                {"L", L_},
                {"d", d_},
                {"max_abs_error", number_or_null(s.max_error)},
                {"mean_abs_error", number_or_null(s.mean_error)},
                {"row_sum_deviation", number_or_null(s.row_sum_deviation)},
                {"min_entry", number_or_null(s.min_entry)},
                {"negative_entries", s.negative},
                {"matrix", matrix_json(a)}};
  }

  void validate() const {
    if (L_ < 2 || L_ > kMaxL)
      throw std::invalid_argument("--L must lie in [2, " + std::to_string(kMaxL) + "], got " + std::to_string(L_));
    if (d_ < 1) throw std::invalid_argument("--d must be at least 1, got " + std::to_string(d_));
    if (m_ <= 0) throw std::invalid_argument("--m must be positive, got " + std::to_string(m_));
    if (features_.empty()) throw std::invalid_argument("--features needs at least one feature map");
    if (couplings_.empty()) throw std::invalid_argument("--couplings needs at least one coupling");
    if (!(scale_ > 0) || !std::isfinite(scale_))
      throw std::invalid_argument("--scale must be finite and > 0, got " + format_number(scale_));
    if (!(tolerance_ > 0) || !std::isfinite(tolerance_))
      throw std::invalid_argument("--row-sum-tolerance must be finite and > 0, got " + format_number(tolerance_));
  }

  int L_ = 64, d_ = 16, m_ = 64;
  std::vector<std::string> features_{"positive", "trig"};
  std::vector<std::string> couplings_{"iid", "orthogonal"};
  bool causal_ = false;
  double scale_ = 1.0;
  double tolerance_ = 1e-12;
};

}  // namespace

std::unique_ptr<Experiment> make_attention_matrix_experiment() {
  return std::make_unique<AttentionMatrixExperiment>();
}

}  // namespace favorlab
