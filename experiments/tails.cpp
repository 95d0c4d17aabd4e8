// `favorlab tails` — Theorem 3: tail bounds for the regularized positive estimator.
// For a > SMREG(x, y) and m ≤ d:  P[SMREG^+_m > a] ≤ exp(−m L_X(a))  and  P[SMREG^ort+_m > a] ≤ d/(d+2)·exp(−m L_X(a)),
// with L_X the Legendre transform of one regularized feature X (kernels/regularized_tail_bound.hpp).
// Per (coupling, d, m, geometry, a = SMREG·(1 + δ)): exceedance counts of the estimator over the trials, and one
// method that decides the point (stats/tail_bound_check.hpp): the count's exact Clopper–Pearson interval; exactly
// (P = 0) where a lies at or above the coupling's largest estimate; or, where the bound is too small for any count,
// the tilted estimate of P (mc/tilted_tail.hpp) with Hoeffding's limits. Checks, one per coupling and d, Bonferroni
// over their points: a point is violated only when its interval's lower end exceeds the bound. A third check per d
// tests the orthogonal rows against the plain Chernoff bound exp(−m L_X(a)), the step of the paper's proof
// (E[e^{θΣX^ort}] ≤ E[e^{θΣX^iid}]) before the factor d/(d+2) is applied.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "evaluation/tail_points.hpp"
#include "experiments/experiment.hpp"
#include "io/format_number.hpp"
#include "io/join_list.hpp"
#include "kernels/regularized_tail_bound.hpp"
#include "kernels/smreg.hpp"
#include "mc/smreg_tail_sweep.hpp"
#include "mc/tilted_tail.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/tail_bound_check.hpp"

namespace favorlab {

namespace {

class TailsExperiment final : public Experiment {
 public:
  std::string name() const override { return "tails"; }
  std::string summary() const override {
    return "Theorem 3: tail bounds exp(-m L_X(a)) (iid) and d/(d+2) exp(-m L_X(a)) (orthogonal) for SMREG estimators";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 100000 : 2000000; }
  Distribution distribution() const override { return Distribution::trial_blocks; }

  // Per (d, coupling) one run_smreg_tail_sweep (mc/smreg_tail_sweep.cpp), one after another: per concurrent trial
  // block W of max m rows (orthogonal: d×d blocks) and exp(Wz) for every geometry; a wave of block counts (m values ×
  // geometries × thresholds). Then at most as many tilted points, each a wave of three sums (and its mixture weights).
  // Every count is a row, with its bound.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double points = static_cast<double>(x_norms_.size()) * static_cast<double>(y_norms_.size()) *
                          static_cast<double>(cosines_.size());
    const double thresholds = static_cast<double>(deltas_.size());
    const double trials = static_cast<double>(ctx.trials);
    double peak = 0, rows = 0;
    for (int d : ds_) {
      double ms = 0, max_m = 0;
      for (int m : ms_)
        if (m <= d) ++ms, max_m = std::max<double>(max_m, m);
      if (ms == 0) continue;
      const double counts = ms * points * (thresholds + 1) * 8;
      for (const std::string& c : couplings_) {
        const Coupling coupling = c == "orthogonal" ? Coupling::orthogonal : Coupling::iid;  // others are refused
        const double per_block = projection_bytes(coupling, max_m, d) + 2 * max_m * points * kDouble;
        const double tilted = wave_accumulators(static_cast<double>(tilted_trials_), ms * points * thresholds * 24) +
                              ms * points * thresholds * TiltedFeature::kMaxTerms * kDouble;
        peak = std::max(peak, block_workers(trials, ctx.threads) * per_block + wave_accumulators(trials, counts) +
                                  points * (d + thresholds) * kDouble + tilted);
        rows += ms * points * thresholds;
      }
    }
    return estimate(peak + rows_bytes(rows, 40) + rows * 160,  // 160 B: a TailPoint per (m, geometry, threshold)
                    "--d, --m, --delta or the grid (--x-norm, --y-norm, --cos)");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--d", ds_, "Dimensions, comma-separated (each uses the --m values <= d)")
        ->delimiter(',')
        ->capture_default_str();
    m_option_ = app.add_option("--m", ms_,
                               "Numbers of random features, comma-separated; each d uses the values <= d (Theorem 3 "
                               "needs m <= d)")
                    ->delimiter(',')
                    ->capture_default_str();
    app.add_option("--x-norm", x_norms_, "Norms of x, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--y-norm", y_norms_, "Norms of y, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--cos", cosines_, "Cosines of the angle between x and y, comma-separated (d = 1 needs +-1)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--delta", deltas_, "Thresholds a = SMREG(x, y)·(1 + delta), comma-separated, each > 0")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--couplings", couplings_, "Projection couplings: iid, orthogonal")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise level of each check's intervals (Bonferroni over its points)")
        ->capture_default_str();
    app.add_option("--tilted-trials", tilted_trials_,
                   "Draws of the tilted estimate at each point whose bound is too small for counting (iid rows, or "
                   "one orthogonal row); 0 counts every point")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    validate();
    std::vector<Coupling> couplings;
    for (const auto& c : couplings_) {
      couplings.push_back(parse_coupling(c));
      // Theorem 3's bounds concern iid and Haar-orthogonal rows only; structured rows would be judged by the wrong one.
      if (couplings.back() != Coupling::iid && couplings.back() != Coupling::orthogonal)
        throw std::invalid_argument("--couplings: tails tests Theorem 3 for iid and orthogonal only, not " + c);
    }
    Result result;
    result.experiment = name();
    result.params = Json{{"d", ds_},         {"m", ms_},         {"x_norm", x_norms_},     {"y_norm", y_norms_},
                         {"cos", cosines_},  {"delta", deltas_}, {"couplings", couplings_}, {"alpha", alpha_},
                         {"tilted_trials", tilted_trials_}};
    // For compare: rows pair by coupling × d × m × geometry × δ; the exceedance proportion is a binomial count
    // (exact conditional test), the tilted estimate a mean with its standard error (rows decided by it only), the
    // thresholds, maxima and bounds closed forms.
    result.params["row_schema"] = Json{
        {"key", Json::array({"estimator", "coupling", "d", "m", "x_norm", "y_norm", "cos_angle", "delta"})},
        {"statistics",
         Json::array({Json{{"value", "p_hat"}, {"successes", "exceed_count"}, {"count", "trials"}, {"kind", "binomial"},
                           {"count_param", "trials"}, {"count_dropped", "nonfinite"}},
                      // Each weighted draw lies in [0, tilted_range]; its skewness is not known (tilted_skewness is
                      // null), so past compare's gate the range decides (a distribution-free bound).
                      Json{{"value", "tilted_p"}, {"stderr", "tilted_stderr"}, {"count", "tilted_trials"},
                           {"count_param", "tilted_trials"}, {"range", "tilted_range"},
                           {"skewness", "tilted_skewness"}}})},
        {"exact", Json::array({"smreg", "truth", "a", "max_estimate", "above_support", "max_estimate_orthogonal",
                               "above_support_orthogonal", "legendre", "theta", "bound", "chernoff_bound",
                               "tilted_range"})},
        {"verdict", "status"}};

    const std::size_t parts = couplings.size() * ds_.size();
    std::size_t part = 0;
    double seconds = 0;
    std::int64_t draws = 0, tilted_draws = 0;
    for (int d : ds_) {
      std::vector<int> ms;
      for (int m : ms_)
        if (m <= d) ms.push_back(m);
      if (ms.empty()) continue;  // every --m value exceeds this d: nothing to test here
      const std::vector<Geometry> points = geometries(d);
      std::vector<std::vector<double>> thresholds(points.size());
      for (std::size_t p = 0; p < points.size(); ++p)
        for (double delta : deltas_) thresholds[p].push_back(smreg_exact(points[p], d) * (1 + delta));
      // The bounds and maxima do not depend on the coupling: compute them once per d.
      std::vector<TailPoint> tail_points;
      for (std::size_t mi = 0; mi < ms.size(); ++mi)
        for (std::size_t p = 0; p < points.size(); ++p)
          for (std::size_t k = 0; k < deltas_.size(); ++k)
            tail_points.push_back({ms[mi], mi, p, k, deltas_[k],
                                   theorem3_bound(points[p], d, ms[mi], thresholds[p][k]), thresholds[p][k]});

      for (Coupling coupling : couplings) {
        // A stream per (coupling, d): the d = 16 counts do not change when other dimensions join the run.
        const std::uint64_t stream = (static_cast<std::uint64_t>(coupling) << 32) | static_cast<std::uint64_t>(d);
        TailSweepConfig config{d, coupling, ms, points, thresholds, ctx.seed, stream, ctx.trials, ctx.threads};
        const TailSweepResult sweep = run_smreg_tail_sweep(config, part_progress(ctx.progress, part++, parts));
        seconds += sweep.seconds;
        draws += sweep.trials;

        tilted_draws += judge_coupling(result, d, coupling, ms, points, tail_points, sweep, stream, ctx);
      }
    }
    result.measurements["projection_draws"] = draws;
    result.measurements["draws_per_second"] = seconds > 0 ? static_cast<double>(draws) / seconds : 0.0;
    result.measurements["tilted_draws"] = tilted_draws;
    return result;
  }

 private:
  // The checks and rows of one coupling at one d, from its sweep; the tilted estimates it needs are drawn here.
  // Returns the tilted draws made.
  std::int64_t judge_coupling(Result& result, int d, Coupling coupling, const std::vector<int>& ms,
                              const std::vector<Geometry>& points, const std::vector<TailPoint>& tail_points,
                              const TailSweepResult& sweep, std::uint64_t stream, const RunContext& ctx) const {
    const bool iid = coupling == Coupling::iid;
    const std::string where = std::string(coupling_name(coupling)) + " rows of norm sqrt(d), d=" + std::to_string(d) +
                              ", m in {" + join_list(ms) + "}, " + std::to_string(points.size()) + " geometries x " +
                              std::to_string(deltas_.size()) + " thresholds";
    TailBoundCheck check(iid ? "Theorem 3: P[SMREG+_m > a] <= exp(-m L_X(a))"
                             : "Theorem 3: P[SMREG-ort+_m > a] <= d/(d+2) exp(-m L_X(a))",
                         where, alpha_, tail_points.size());
    TailBoundCheck chernoff("Theorem 3 proof step: P[SMREG-ort+_m > a] <= exp(-m L_X(a)) (without d/(d+2))", where,
                            alpha_, tail_points.size());
    const std::vector<TailMethodChoice> methods =
        choose_tail_methods(tail_points, points, d, coupling, sweep.trials, check.point_alpha(), tilted_trials_);
    // The tilted draws' stream: the sweep's with the top bit set; each point's key is its grid position.
    std::vector<TiltedTailPoint> tilted_points;
    std::vector<std::size_t> tilted_at(tail_points.size(), 0);
    for (std::size_t i = 0; i < tail_points.size(); ++i)
      if (methods[i].method == TailMethod::tilted) {
        tilted_at[i] = tilted_points.size();
        const TailPoint& tp = tail_points[i];
        tilted_points.push_back({points[tp.p], tp.m, tp.a, tp.bound.theta, static_cast<std::uint64_t>(i)});
      }
    const std::vector<TiltedTailEstimate> tilted =
        tilted_points.empty() ? std::vector<TiltedTailEstimate>{}
                              : run_tilted_tails(d, tilted_points, ctx.seed, stream | (std::uint64_t{1} << 63),
                                                 tilted_trials_, ctx.threads);

    for (std::size_t i = 0; i < tail_points.size(); ++i) {
      const TailPoint& tp = tail_points[i];
      const std::int64_t nonfinite = sweep.nonfinite_count(tp.mi, tp.p);
      const TailPointEvidence ev{sweep.exceed_count(tp.mi, tp.p, tp.k), sweep.trials - nonfinite, nonfinite,
                                 iid ? tp.bound.iid : tp.bound.orthogonal,
                                 "d=" + std::to_string(d) + ", m=" + std::to_string(tp.m) + ", " +
                                     geometry_label(points[tp.p]) + ", a=SMREG*(1+" + format_number(tp.delta) + ")"};
      const TailMethod method = methods[i].method;
      const TiltedTailEstimate* est = method == TailMethod::tilted ? &tilted[tilted_at[i]] : nullptr;
      Json row = tail_count_row(coupling, d, tp, points[tp.p], ev, check.point_alpha());
      const TailPointVerdict v = judge_tail_point(check, method, ev, est);
      if (v.status == Verdict::inconclusive && !methods[i].why_counted.empty()) check.add_note(methods[i].why_counted);
      row["method"] = tail_method_name(method);
      if (est != nullptr) add_tilted_tail_fields(row, *est, v);
      row["margin"] = v.margin;
      row["confirmed"] = v.confirmed;
      row["status"] = v.status;
      if (!iid) {
        TailPointEvidence weak = ev;
        weak.bound = tp.bound.iid;
        const Verdict weak_status = judge_tail_point(chernoff, method, weak, est).status;
        if (weak_status == Verdict::inconclusive && !methods[i].why_counted.empty())
          chernoff.add_note(methods[i].why_counted);
        row["chernoff_status"] = weak_status;
      }
      result.rows.push_back(row);
    }
    result.checks.push_back(check.result());
    if (!iid) result.checks.push_back(chernoff.result());
    return static_cast<std::int64_t>(tilted_points.size()) * (tilted_points.empty() ? 0 : tilted_trials_);
  }

  void validate() const {
    if (ds_.empty()) throw std::invalid_argument("--d needs at least one value");
    for (int d : ds_)
      if (d <= 0) throw std::invalid_argument("--d values must be positive, got " + std::to_string(d));
    if (ms_.empty()) throw std::invalid_argument("--m needs at least one value");
    const int max_d = *std::max_element(ds_.begin(), ds_.end());
    for (int m : ms_) {
      if (m <= 0) throw std::invalid_argument("--m values must be positive, got " + std::to_string(m));
      if (m > max_d && m_option_ && m_option_->count() > 0)  // the default list is simply cut at each d
        throw std::invalid_argument("--m " + std::to_string(m) + " exceeds every --d (Theorem 3 needs m <= d)");
    }
    if (deltas_.empty()) throw std::invalid_argument("--delta needs at least one value");
    for (double delta : deltas_)
      if (!(delta > 0) || !std::isfinite(delta))
        throw std::invalid_argument("--delta values must be finite and > 0 (Theorem 3 needs a > SMREG), got " +
                                    format_number(delta));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (tilted_trials_ < 0 || tilted_trials_ >= (std::int64_t{1} << 40))
      throw std::invalid_argument("--tilted-trials must lie in [0, 2^40), got " + std::to_string(tilted_trials_));
    if (couplings_.empty()) throw std::invalid_argument("--couplings needs at least one coupling");
    if (x_norms_.empty() || y_norms_.empty() || cosines_.empty())
      throw std::invalid_argument("--x-norm, --y-norm and --cos each need at least one value");
  }

  std::vector<Geometry> geometries(int d) const {
    std::vector<Geometry> out;
    for (double xn : x_norms_)
      for (double yn : y_norms_)
        for (double c : cosines_) {
          Geometry g{xn, yn, c};
          validate_geometry(g, d);
          // SMREG, the thresholds above it and the largest estimate Λe^{√d‖z‖} must be normal doubles.
          const double top_threshold = smreg_exact(g, d) * (1 + *std::max_element(deltas_.begin(), deltas_.end()));
          const double top_estimate = std::exp(g.log_lambda() + std::sqrt(d * g.z_sq()));
          if (!std::isnormal(smreg_exact(g, d)) || !std::isfinite(top_threshold) || !std::isnormal(top_estimate))
            throw std::invalid_argument("--x-norm/--y-norm out of range: SMREG(x, y) or the largest estimate overflows "
                                        "or underflows double at " + geometry_label(g));
          out.push_back(g);
        }
    return out;
  }

  static std::string geometry_label(const Geometry& g) {
    return "x_norm=" + format_number(g.x_norm) + ", y_norm=" + format_number(g.y_norm) + ", cos=" + format_number(g.cos_angle);
  }

  CLI::Option* m_option_ = nullptr;
  std::vector<int> ds_{1, 2, 16};
  std::vector<int> ms_{1, 2, 4, 8, 16};
  std::vector<double> x_norms_{0.1, 0.5};
  std::vector<double> y_norms_{0.5};
  std::vector<double> cosines_{1};
  std::vector<double> deltas_{0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5};
  std::vector<std::string> couplings_{"iid", "orthogonal"};
  double alpha_ = 1e-3;
  std::int64_t tilted_trials_ = 4096;
};

}  // namespace

std::unique_ptr<Experiment> make_tails_experiment() { return std::make_unique<TailsExperiment>(); }

}  // namespace favorlab
