// `favorlab orthogonal` — Theorem 2: orthogonal random features lower the MSE of the positive estimator of SM
// (chi-norm rows) and of the regularized estimator of SMREG (√d-norm rows), by at least (1 − 1/m)·2/(d+2)·K²,
// K = SM or SMREG, for m ≤ d.
// For every d, both couplings run one sweep each (all m and estimators share a trial's draw). Per point: empirical
// MSE with its SE, the exact iid MSE (Lemma 2; for smreg from the sphere MGF), the exact orthogonal MSE
// (kernels/orthogonal_mse.hpp), the claimed bound and the corrected bound. Checks per d × estimator:
//   1. exact orthogonal MSE = Monte Carlo (two-sided z);           2. exact iid MSE = Monte Carlo (two-sided z);
//   3. Theorem 2 on the exact values (arithmetic, margin);         4. Theorem 2 on the Monte Carlo values:
//      MSE_ort − MSE_iid ≤ −claimed gap (one-sided z, independent streams);
//   5. the corrected bound of the proof on the exact values (arithmetic).
// And simplex rows against R-ORF for positive features (Reid et al. 2023; `--no-simplex` leaves them out), on their
// own stream: 6. exact simplex MSE = Monte Carlo; 7. MSE(simplex) ≤ MSE(orthogonal) on the exact values; 8. the same
// on the Monte Carlo values (one-sided).
// Heavy-tailed points are inconclusive (a-priori squared-error skewness; the iid value stands in for orthogonal rows,
// whose features have the same marginals). So the positive estimator's exact MSEs are tested again by importance
// sampling (mc/importance_coupled.hpp; `--importance-trials 0` leaves it out), light-tailed at every point:
// 9. Lemma 2 (iid rows), 10. the exact orthogonal MSE, 11. the exact simplex MSE, 12. simplex ≤ orthogonal
// (one-sided, on paired trials: mc/paired_simplex_gap.hpp, which also gives 11), each "..., importance-sampled";
// and smreg's rows of norm √d by their own tilt (mc/importance_sphere.hpp): 13. the exact iid MSE, 14. the exact
// orthogonal MSE. Each of 9-14 also gets a line "..., plain or importance-sampled" that combines the plain and the
// importance-sampled verdict point by point (stats/either_check.hpp): the claim holds there when the two methods
// together settle every point. With --until-conclusive the importance-sampled runs of the points neither method
// settled get looks of doubling size (mc/sequential_looks.hpp), one schedule over every d and estimator.
// The checks: evaluation/theorem2_checks.hpp; the importance-sampled runs: evaluation/theorem2_importance_runs.hpp.
#include <algorithm>
#include <chrono>
#include <limits>

#include "evaluation/theorem2_checks.hpp"
#include "evaluation/theorem2_importance_runs.hpp"
#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/sequential_looks.hpp"
#include "mc/sweep_figures.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

namespace {

class OrthogonalExperiment final : public Experiment {
 public:
  std::string name() const override { return "orthogonal"; }
  std::string summary() const override {
    return "Theorem 2: orthogonal features lower the MSE of positive (SM) and regularized (SMREG) estimators";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 10000 : 200000; }
  Distribution distribution() const override { return Distribution::trial_blocks; }
  bool takes_looks() const override { return true; }

  // Per d, sweeps one after another (iid, orthogonal, --structured, simplex), each over estimators × the m ≤ d; every
  // orthogonal or simplex draw holds d×d blocks even for m = 1. Two rows per cell (iid, orthogonal), one more per
  // structured or simplex cell.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    const double points = static_cast<double>(x_norms_.size()) * static_cast<double>(y_norms_.size()) *
                          static_cast<double>(cosines_.size());
    const double estimators = static_cast<double>(estimators_.size());
    double peak = 0, rows = 0;
    for (int d : dims_) {
      // features_for(d) in double: the --m values ≤ d, or 1, 2, 4, …, d.
      double ms = 0, max_m = 0;
      if (ms_.empty()) {
        for (double m = 1; m < d; m *= 2) ++ms;
        ms += 1, max_m = d;
      } else {
        for (int m : ms_)
          if (m <= d) ++ms, max_m = std::max<double>(max_m, m);  // repeats are dropped by run(): an upper bound
      }
      SweepSize size{static_cast<double>(d), max_m, max_m, estimators * ms, points};
      const double structured = static_cast<double>(structured_.size());
      std::vector<Coupling> couplings{Coupling::iid, Coupling::orthogonal};
      if (!no_simplex_) couplings.push_back(Coupling::simplex);
      if (structured > 0) couplings.insert(couplings.end(), {Coupling::hadamard, Coupling::givens});
      for (Coupling c : couplings) {
        size.coupling = c;
        peak = std::max(peak, estimator_sweep_bytes(size, ctx.trials, ctx.threads));
      }
      rows += (2 + structured + (no_simplex_ ? 0 : 1)) * size.specs * points;
    }
    return memory::estimate(peak + memory::rows_bytes(rows, 26), "--d, --m or the grid (--x-norm, --y-norm, --cos)");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--d", dims_, "Dimensions, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--m", ms_,
                   "Numbers of random features, comma-separated; each d uses those <= d (default: 1, 2, 4, ..., d)")
        ->delimiter(',');
    app.add_option("--x-norm", x_norms_, "Norms of x, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--y-norm", y_norms_, "Norms of y, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--cos", cosines_, "Cosines of the angle between x and y, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--estimators", estimators_, "Estimators: positive, smreg")->delimiter(',')->capture_default_str();
    app.add_option("--structured", structured_,
                   "Also test the claim with structured features, Monte Carlo only: hadamard, givens (comma-separated)")
        ->delimiter(',');
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each check (Bonferroni over its points)")
        ->capture_default_str();
    app.add_flag("--no-simplex", no_simplex_, "Leave out simplex rows against R-ORF (positive features)");
    app.add_option("--importance-trials", importance_trials_,
                   "Trials per cell of the importance-sampled checks of the positive and smreg estimators "
                   "(0: skip them; "
                   "default 2000 with --quick, else 200000)");
  }

  Result run(const RunContext& ctx) override {
    validate();
    std::vector<Family> estimators;
    for (const auto& n : estimators_) estimators.push_back(parse_estimator(n));
    Result result;
    result.experiment = name();
    result.params = Json{{"d", dims_},         {"m", ms_},     {"x_norm", x_norms_}, {"y_norm", y_norms_},
                         {"cos", cosines_},    {"estimators", estimators_}, {"structured", structured_},
                         {"simplex", !no_simplex_}, {"alpha", alpha_}};
    const std::int64_t importance_trials = importance_trials_for(ctx);
    result.params["importance_trials"] = importance_trials;
    result.params["row_schema"] = row_schema();
    std::vector<Coupling> structured;
    for (const auto& n : structured_) structured.push_back(parse_coupling(n));

    SweepTally tally;
    const bool simplex = !no_simplex_ && std::find(estimators.begin(), estimators.end(), Family::positive) !=
                                              estimators.end();
    const auto has = [&](Family e) { return std::find(estimators.begin(), estimators.end(), e) != estimators.end(); };
    const bool sampled = importance_trials > 0 && has(Family::positive),
               sampled_smreg = importance_trials > 0 && has(Family::smreg);
    // Progress parts per d: the sweeps, then the importance-sampled runs of each estimator as one more part.
    const std::size_t runs_per_d = 2 + structured.size() + (simplex ? 1 : 0),
                      parts_per_d = runs_per_d + (sampled ? 1 : 0) + (sampled_smreg ? 1 : 0),
                      parts = parts_per_d * dims_.size();
    std::vector<Theorem2ImportanceRuns> sampled_runs;  // per d: positive, then smreg
    double pilot_seconds = 0;
    for (std::size_t di = 0; di < dims_.size(); ++di) {
      Theorem2Cells cells{dims_[di], features_for(dims_[di]), {}, grid()};
      for (Family e : estimators)
        for (int m : cells.ms) cells.specs.push_back({e, m});
      for (const auto& g : cells.points) validate_geometry(g, cells.d);
      auto sweep = [&](Coupling coupling, const std::vector<EstimatorSpec>& specs, std::uint64_t stream,
                       std::size_t part) {
        const SweepConfig config{cells.d, coupling, specs, cells.points, ctx.seed, stream, ctx.trials, ctx.threads,
                                 FeatureParameters{}};
        const SweepResult r = run_estimator_sweep(config, part_progress(ctx.progress, parts_per_d * di + part, parts));
        tally.add(r);
        return sweep_figures(r);
      };

      // Independent streams per (d, coupling): iid and orthogonal, then the structured couplings and simplex.
      const std::vector<CellFigures> iid = sweep(Coupling::iid, cells.specs, 2 * di, 0);
      const std::vector<CellFigures> ort = sweep(Coupling::orthogonal, cells.specs, 2 * di + 1, 1);
      PlainVerdicts plain;
      for (Family e : estimators) theorem2_checks(result, cells, e, iid, ort, plain, alpha_);
      // Structured couplings: Monte Carlo only (no exact theory); the claimed bound is tested against their MSE.
      for (std::size_t si = 0; si < structured.size(); ++si) {
        const std::vector<CellFigures> figures = sweep(structured[si], cells.specs, 1000 + 10 * di + si, 2 + si);
        for (Family e : estimators) structured_check(result, cells, e, structured[si], figures, iid, alpha_);
      }
      if (simplex) {
        // Simplex rows (Reid et al. 2023) for positive features, on their own stream: the sweep for m ∈ ms.
        std::vector<EstimatorSpec> specs;
        for (int m : cells.ms) specs.push_back({Family::positive, m});
        simplex_checks(result, cells, sweep(Coupling::simplex, specs, 2000 + di, runs_per_d - 1), ort, plain, alpha_);
      }
      const auto pilot_start = std::chrono::steady_clock::now();
      if (sampled)
        sampled_runs.push_back(theorem2_importance_pilots(
            Family::positive, cells, di, simplex, importance_trials, ctx.seed, ctx.threads,
            part_progress(ctx.progress, parts_per_d * di + runs_per_d, parts), plain));
      if (sampled_smreg)
        sampled_runs.push_back(theorem2_importance_pilots(
            Family::smreg, cells, di, false, importance_trials, ctx.seed, ctx.threads,
            part_progress(ctx.progress, parts_per_d * (di + 1) - 1, parts), plain));
      pilot_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - pilot_start).count();
    }
    // The importance-sampled checks of every d come last: their looks take all cells at once.
    if (const auto looks = settle_theorem2_importance_runs(result, sampled_runs, ctx.looks, ctx.seed, ctx.threads,
                                                           ctx.progress, pilot_seconds, alpha_))
      report_looks(ctx.looks, *looks, result);
    result.measurements["estimator_evaluations"] = tally.evaluations;
    result.measurements["evaluations_per_second"] = tally.per_second();
    return result;
  }

 private:
  // --importance-trials as given, else by run size (2000 with --quick, else 200000); refuses looks whose last one
  // would pass kMaxTrials.
  std::int64_t importance_trials_for(const RunContext& ctx) const {
    const std::int64_t importance_trials =
        importance_trials_ != kDefaultImportanceTrials ? importance_trials_ : ctx.quick ? 2000 : 200000;
    if (ctx.looks.sequential() && look_trials(importance_trials, ctx.looks.max_looks - 1) > kMaxTrials)
      throw std::invalid_argument("--max-looks " + std::to_string(ctx.looks.max_looks) + " with " +
                                  std::to_string(importance_trials) +
                                  " importance-sampled pilot trials would reach more than 1e15 trials per point at "
                                  "the last look");
    return importance_trials;
  }

  // Rows pair by estimator × coupling × d × m × geometry; the mean and MSE of every coupling are statistics (the
  // structured and simplex rows too), the closed forms exact. The verdict is each row's own check.
  static Json row_schema() {
    Json schema = estimator_row_schema(true);
    // The importance-sampled MSE is compared; its mean is reported only (the proposal is tuned for the squared
    // error, so no skewness figure gates that mean). Its gate figure is partly sampled (the larger of the sampled
    // skewness and the one-row exact one): the baseline's decides, another seed's is not compared. Its count is
    // params.importance_trials at the row's look.
    Json weighted = schema["statistics"][3];
    weighted["skewness_sampled"] = true;
    weighted["count_look"] = "is_look";
    schema["statistics"] = Json::array({schema["statistics"][0], schema["statistics"][1], weighted});
    schema["exact"] = Json::array({"truth", "z_norm", "mse_theory", "mse_iid_theory", "mse_orthogonal_theory",
                                   "mse_simplex_theory", "bound_claimed", "bound_corrected", "claim_exact_margin"});
    return schema;
  }

  void validate() const {
    if (dims_.empty()) throw std::invalid_argument("--d needs at least one dimension");
    for (int d : dims_)
      if (d < 2)
        throw std::invalid_argument("--d values must be at least 2 (two orthogonal rows), got " + std::to_string(d));
    const int d_max = *std::max_element(dims_.begin(), dims_.end());
    for (int m : ms_) {
      if (m <= 0) throw std::invalid_argument("--m values must be positive, got " + std::to_string(m));
      if (m > d_max)
        throw std::invalid_argument("--m value " + std::to_string(m) + " exceeds every --d (Theorem 2 needs m <= d)");
    }
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (importance_trials_ != kDefaultImportanceTrials &&
        (importance_trials_ < 0 || importance_trials_ == 1 || importance_trials_ > kMaxTrials))
      throw std::invalid_argument("--importance-trials must be 0 (skip) or between 2 and 1e15, got " +
                                  std::to_string(importance_trials_));
    if (estimators_.empty()) throw std::invalid_argument("--estimators needs at least one estimator");
    for (const auto& n : estimators_) {
      const Family e = parse_estimator(n);
      if (e != Family::positive && e != Family::smreg)
        throw std::invalid_argument("--estimators: Theorem 2 concerns positive and smreg, not " + n);
    }
    for (const auto& n : structured_) {
      const Coupling c = parse_coupling(n);
      if (c != Coupling::hadamard && c != Coupling::givens)
        throw std::invalid_argument("--structured takes hadamard or givens, not " + n);
    }
    if (x_norms_.empty() || y_norms_.empty() || cosines_.empty())
      throw std::invalid_argument("--x-norm, --y-norm and --cos each need at least one value");
  }

  std::vector<Geometry> grid() const {
    std::vector<Geometry> g;
    for (double xn : x_norms_)
      for (double yn : y_norms_)
        for (double c : cosines_) g.push_back({xn, yn, c});
    return g;
  }

  // The m of dimension d: the --m values ≤ d, or 1, 2, 4, …, d (with d itself).
  std::vector<int> features_for(int d) const {
    std::vector<int> ms;
    if (ms_.empty()) {
      for (long long m = 1; m < d; m *= 2) ms.push_back(static_cast<int>(m));
      ms.push_back(d);
    } else {
      for (int m : ms_)
        if (m <= d) ms.push_back(m);
      std::sort(ms.begin(), ms.end());
      ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
    }
    if (ms.empty()) throw std::invalid_argument("--m has no value <= d=" + std::to_string(d));
    return ms;
  }

  std::vector<int> dims_{4, 16, 64};
  std::vector<int> ms_;
  // ‖x‖ = ‖y‖ = 1: ‖z‖² = 2(1 + cos) runs from 0 (y = −x, where the estimators are exact) through the light-tailed
  // region to ‖z‖ = 2, beyond the ‖z‖ ≈ 1.4–1.7 where the claimed bound starts to hold.
  std::vector<double> x_norms_{1.0};
  std::vector<double> y_norms_{1.0};
  std::vector<double> cosines_{-1, -0.999, -0.99, -0.9, -0.7, -0.5, 0, 0.5, 1};
  std::vector<std::string> estimators_{"positive", "smreg"};
  std::vector<std::string> structured_;
  bool no_simplex_ = false;
  double alpha_ = 1e-3;
  static constexpr std::int64_t kDefaultImportanceTrials = std::numeric_limits<std::int64_t>::min();  // by run size
  std::int64_t importance_trials_ = kDefaultImportanceTrials;
};

}  // namespace

std::unique_ptr<Experiment> make_orthogonal_experiment() { return std::make_unique<OrthogonalExperiment>(); }

}  // namespace favorlab
