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
// (one-sided, on paired trials: mc/paired_simplex_gap.hpp, which also gives 11), each "..., importance-sampled"; and smreg's rows of norm √d by their own tilt
// (mc/importance_sphere.hpp): 13. the exact iid MSE, 14. the exact orthogonal MSE. Each of 9-14 also gets a line
// "..., plain or importance-sampled" that combines the plain and the importance-sampled verdict point by point
// (stats/either_check.hpp): the claim holds there when the two methods together settle every point. With
// --until-conclusive the importance-sampled runs of the points neither method settled get looks of doubling size
// (mc/sequential_looks.hpp), one schedule over every d and estimator.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "features/family_theory.hpp"
#include "features/theorem2_point.hpp"
#include "io/join_list.hpp"
#include "kernels/simplex_moments.hpp"
#include "kernels/smreg.hpp"
#include "kernels/softmax_kernel.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/paired_simplex_gap.hpp"
#include "mc/sequential_looks.hpp"
#include "mc/sweep_figures.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/either_check.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled runs, disjoint from the sweeps' (below 3000): base + (3·d index + kind)·2³² + cell.
constexpr std::uint64_t kImportanceStream = 0x1700'0000ULL;
// smreg's: base + (2·d index + coupling)·2³² + cell (cells stay below 2²⁴, so the two bases never meet).
constexpr std::uint64_t kSphereImportanceStream = 0x1800'0000ULL;

// The plain Monte Carlo verdicts of one d by (claim without its method, point label): what the importance-sampled
// checks combine with, point by point.
using PlainVerdicts = std::map<std::pair<std::string, std::string>, PointVerdict>;

// The claims that both Monte Carlo methods judge, without their method suffix.
const std::string kLemma2Positive = "Lemma 2: MSE(positive) closed form";
const std::string kOrthogonalPositive = "Exact orthogonal MSE (positive, from the proof of Theorem 2) = Monte Carlo";
const std::string kSimplexPositive = "Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo";
const std::string kSimplexOrder = "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal)";
// Where simplex ≤ orthogonal is judged on paired trials (mc/paired_simplex_gap.hpp).
const std::string kPairedRows = "paired trials (one frame and one set of row norms for both couplings), ";
const std::string kIidSmreg = "Exact iid MSE (smreg, sphere MGF) = Monte Carlo";
const std::string kOrthogonalSmreg = "Exact orthogonal MSE (smreg, from the proof of Theorem 2) = Monte Carlo";

// The cells of one d: its m values, the (estimator, m) specs every sweep runs and the geometries; figures and rows
// index them spec-major, [spec * points + point].
struct Cells {
  int d = 0;
  std::vector<int> ms;
  std::vector<EstimatorSpec> specs;
  std::vector<Geometry> points;
  std::size_t at(std::size_t spec, std::size_t point) const { return spec * points.size() + point; }
  std::string where() const {
    return "d=" + std::to_string(d) + ", m in {" + join_list(ms) + "}, " + std::to_string(points.size()) +
           " geometries";
  }
  // Points of the specs of estimator e.
  std::size_t count(Family e) const {
    std::size_t n = 0;
    for (const auto& spec : specs) n += spec.estimator == e ? points.size() : 0;
    return n;
  }
};

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
    const std::int64_t importance_trials =
        importance_trials_ != kDefaultImportanceTrials ? importance_trials_ : ctx.quick ? 2000 : 200000;
    if (ctx.looks.sequential() && look_trials(importance_trials, ctx.looks.max_looks - 1) > kMaxTrials)
      throw std::invalid_argument("--max-looks " + std::to_string(ctx.looks.max_looks) + " with " +
                                  std::to_string(importance_trials) +
                                  " importance-sampled pilot trials would reach more than 1e15 trials per point at "
                                  "the last look");
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
    std::vector<ImportanceRuns> sampled_runs;  // per d: positive, then smreg
    double pilot_seconds = 0;
    for (std::size_t di = 0; di < dims_.size(); ++di) {
      Cells cells{dims_[di], features_for(dims_[di]), {}, grid()};
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
      for (Family e : estimators) theorem2_checks(result, cells, e, iid, ort, plain);
      // Structured couplings: Monte Carlo only (no exact theory); the claimed bound is tested against their MSE.
      for (std::size_t si = 0; si < structured.size(); ++si) {
        const std::vector<CellFigures> figures = sweep(structured[si], cells.specs, 1000 + 10 * di + si, 2 + si);
        for (Family e : estimators) structured_check(result, cells, e, structured[si], figures, iid);
      }
      if (simplex) {
        // Simplex rows (Reid et al. 2023) for positive features, on their own stream: the sweep for m ∈ ms.
        std::vector<EstimatorSpec> specs;
        for (int m : cells.ms) specs.push_back({Family::positive, m});
        simplex_checks(result, cells, sweep(Coupling::simplex, specs, 2000 + di, runs_per_d - 1), ort, plain);
      }
      const auto pilot_start = std::chrono::steady_clock::now();
      if (sampled)
        sampled_runs.push_back(importance_pilots(Family::positive, cells, di, simplex, importance_trials, ctx.seed,
                                                 ctx.threads,
                                                 part_progress(ctx.progress, parts_per_d * di + runs_per_d, parts),
                                                 plain));
      if (sampled_smreg)
        sampled_runs.push_back(importance_pilots(Family::smreg, cells, di, false, importance_trials, ctx.seed,
                                                 ctx.threads,
                                                 part_progress(ctx.progress, parts_per_d * (di + 1) - 1, parts),
                                                 plain));
      pilot_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - pilot_start).count();
    }
    // The importance-sampled checks of every d come last: their looks take all cells at once.
    settle_importance_runs(result, sampled_runs, ctx, pilot_seconds);
    result.measurements["estimator_evaluations"] = tally.evaluations;
    result.measurements["evaluations_per_second"] = tally.per_second();
    return result;
  }

 private:
  // Theorem 2 for estimator e at one d, two rows per cell (iid, orthogonal): the exact MSEs against Monte Carlo, the
  // claimed bound on the exact and on the Monte Carlo values, the corrected bound on the exact values.
  void theorem2_checks(Result& result, const Cells& cells, Family e, const std::vector<CellFigures>& iid,
                       const std::vector<CellFigures>& ort, PlainVerdicts& plain) const {
    const std::string en(estimator_name(e)), k = e == Family::smreg ? "SMREG" : "SM";
    const std::string claim = "): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) ", where = cells.where();
    const std::size_t n = cells.count(e);
    // The names the importance-sampled checks look the plain verdicts up by (validate() admits positive and smreg).
    const std::string& ort_claim = e == Family::smreg ? kOrthogonalSmreg : kOrthogonalPositive;
    const std::string& iid_claim = e == Family::smreg ? kIidSmreg : kLemma2Positive;
    ClaimCheck ort_check(ort_claim, "orthogonal projections, " + where, alpha_, n);
    ClaimCheck iid_check(iid_claim, "iid projections, " + where, alpha_, n);
    ClaimCheck claim_mc("Theorem 2 (" + en + claim + k + "^2, Monte Carlo",
                        "both couplings, independent streams, " + where, alpha_, n, ClaimCheck::Sides::upper);
    ExactInequality claim_exact("Theorem 2 (" + en + claim + k + "^2, exact values", where);
    ExactInequality corrected_exact("Theorem 2 corrected (" + en + claim + "(" + k + " - Lambda)^2, exact values", where);
    // The largest z of the Monte Carlo claim check away from ‖z‖ = 0, where both estimators are exact and a
    // violation has a zero standard error (an astronomically large z that says nothing about sampling).
    double largest_inexact_z = -std::numeric_limits<double>::infinity();
    std::string largest_inexact_label;
    for (std::size_t s = 0; s < cells.specs.size(); ++s) {
      if (cells.specs[s].estimator != e) continue;
      const int m = cells.specs[s].m;
      for (std::size_t p = 0; p < cells.points.size(); ++p) {
        const Geometry& g = cells.points[p];
        const CellFigures &fi = iid[cells.at(s, p)], &fo = ort[cells.at(s, p)];
        const double k2 = fo.truth * fo.truth, z_norm = std::sqrt(g.z_sq());
        const Theorem2Point th = theorem2_point(e, g, cells.d, m);
        const ErrorMoments em = error_moments(e, g, cells.d, m);
        const double skew = em.squared_error_skewness, allowance = kRoundingAllowance * kRoundingAllowance * k2;
        const std::string label = "m=" + std::to_string(m) + ", " + point_label(g);
        const PointVerdict vi =
            iid_check.judge({fi.mse, th.iid_mse, fi.mse_stderr, allowance, skew, fi.trials, fi.nonfinite, label});
        result.rows.push_back(theorem2_row(e, Coupling::iid, cells.d, m, g, fi, th, vi, em));
        const PointVerdict vo = ort_check.judge(
            {fo.mse, th.orthogonal_mse, fo.mse_stderr, allowance, skew, fo.trials, fo.nonfinite, label});
        plain[{iid_claim, label}] = vi;
        plain[{ort_claim, label}] = vo;
        Json row = theorem2_row(e, Coupling::orthogonal, cells.d, m, g, fo, th, vo, em);
        const PointVerdict mc =
            claim_mc.judge(mse_difference_evidence(fo, fi, th.claimed_gap(), allowance, skew, k2, label));
        row["claim_exact_status"] = claim_exact.judge(th.orthogonal_mse, th.claimed_bound, k2, label, z_norm);
        row["claim_exact_margin"] = (th.orthogonal_mse - th.claimed_bound) / k2;
        if (g.z_sq() > 0 && mc.status != Verdict::inconclusive && mc.z > largest_inexact_z) {
          largest_inexact_z = mc.z;
          largest_inexact_label = label;
        }
        row["claim_mc_status"] = mc.status;
        row["claim_mc_z"] = mc.z;
        row["corrected_exact_status"] = corrected_exact.judge(th.orthogonal_mse, th.corrected_bound, k2, label, z_norm);
        result.rows.push_back(row);
      }
    }
    result.checks.push_back(ort_check.result());
    result.checks.push_back(iid_check.result());
    result.checks.push_back(claim_exact.result());
    Check mc_check = claim_mc.result();
    if (!largest_inexact_label.empty()) {
      std::ostringstream extra;
      extra << "; away from |z| = 0 (where both MSEs are exactly 0) the largest z is " << largest_inexact_z << " at "
            << largest_inexact_label;
      mc_check.detail += extra.str();
    }
    result.checks.push_back(mc_check);
    result.checks.push_back(corrected_exact.result());
  }

  // Theorem 2's claimed bound with a structured coupling (Monte Carlo only, no exact theory): its MSE against the
  // iid figures of the same cells; a row per cell of estimator e.
  void structured_check(Result& result, const Cells& cells, Family e, Coupling coupling,
                        const std::vector<CellFigures>& figures, const std::vector<CellFigures>& iid) const {
    const std::string en(estimator_name(e)), k = e == Family::smreg ? "SMREG" : "SM";
    ClaimCheck check("Theorem 2 (" + en + ") with " + std::string(coupling_name(coupling)) +
                         " features: MSE <= MSE(iid) - (1-1/m) 2/(d+2) " + k + "^2, Monte Carlo",
                     cells.where(), alpha_, cells.count(e), ClaimCheck::Sides::upper);
    for (std::size_t s = 0; s < cells.specs.size(); ++s) {
      if (cells.specs[s].estimator != e) continue;
      const int m = cells.specs[s].m;
      for (std::size_t p = 0; p < cells.points.size(); ++p) {
        const Geometry& g = cells.points[p];
        const CellFigures &f = figures[cells.at(s, p)], &fi = iid[cells.at(s, p)];
        const double t = f.truth;
        const Theorem2Point th = theorem2_point(e, g, cells.d, m);
        const ErrorMoments em = error_moments(e, g, cells.d, m);
        const PointVerdict v = check.judge(mse_difference_evidence(
            f, fi, th.claimed_gap(), kRoundingAllowance * kRoundingAllowance * t * t, em.squared_error_skewness, t * t,
            "m=" + std::to_string(m) + ", " + point_label(g)));
        Json row = figure_row(e, coupling, cells.d, m, g, f);
        row["mse_iid_theory"] = th.iid_mse;
        row["mse_orthogonal_theory"] = th.orthogonal_mse;
        row["mse_ratio_to_orthogonal"] = th.orthogonal_mse > 0 ? Json(f.mse / th.orthogonal_mse) : Json(nullptr);
        row["bound_claimed"] = th.claimed_bound;
        row["claim_mc_status"] = v.status;
        row["claim_mc_z"] = v.z;
        row["status"] = v.status;
        row["trials_needed"] = trials_json(v.trials_needed);
        finish_row(row, f, em, false);
        result.rows.push_back(row);
      }
    }
    result.checks.push_back(check.result());
  }

  // Simplex against R-ORF for positive features: the exact simplex MSE (kernels/simplex_moments.hpp) = Monte Carlo;
  // simplex ≤ orthogonal on the exact values; and on the Monte Carlo values (one-sided, independent streams).
  // `simplex` holds the figures of the positive specs at cells.ms, `ort` the orthogonal figures of cells.specs.
  void simplex_checks(Result& result, const Cells& cells, const std::vector<CellFigures>& simplex,
                      const std::vector<CellFigures>& ort, PlainVerdicts& plain) const {
    const std::string where = cells.where();
    const std::size_t n = cells.ms.size() * cells.points.size(), np = cells.points.size();
    ClaimCheck exact_check(kSimplexPositive, "simplex projections, " + where, alpha_, n);
    ClaimCheck mc_check(kSimplexOrder + ", Monte Carlo", "both couplings, independent streams, " + where, alpha_, n,
                        ClaimCheck::Sides::upper);
    ExactInequality exact_order("Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), exact values", where);
    for (std::size_t i = 0; i < cells.ms.size(); ++i) {
      const int m = cells.ms[i];
      std::size_t o = 0;  // the orthogonal figure of positive features at this m
      while (o < cells.specs.size() && !(cells.specs[o].estimator == Family::positive && cells.specs[o].m == m)) ++o;
      for (std::size_t p = 0; p < np; ++p) {
        const Geometry& g = cells.points[p];
        const CellFigures &f = simplex[i * np + p], &of = ort[cells.at(o, p)];
        const double k2 = f.truth * f.truth;
        const double simplex_theory = simplex_mse(g, cells.d, 0.0, m);
        const Theorem2Point th = theorem2_point(Family::positive, g, cells.d, m);
        // The iid squared-error skewness stands in for coupled rows (same marginals).
        const ErrorMoments em = error_moments(Family::positive, g, cells.d, m);
        const double skew = em.squared_error_skewness, allowance = kRoundingAllowance * kRoundingAllowance * k2;
        const std::string label = "m=" + std::to_string(m) + ", " + point_label(g);
        const PointVerdict v =
            exact_check.judge({f.mse, simplex_theory, f.mse_stderr, allowance, skew, f.trials, f.nonfinite, label});
        const PointVerdict mc = mc_check.judge(mse_difference_evidence(f, of, 0.0, allowance, skew, k2, label));
        plain[{kSimplexPositive, label}] = v;
        plain[{kSimplexOrder, label}] = mc;
        Json row = figure_row(Family::positive, Coupling::simplex, cells.d, m, g, f);
        row["mse_iid_theory"] = th.iid_mse;
        row["mse_orthogonal_theory"] = th.orthogonal_mse;
        row["mse_simplex_theory"] = simplex_theory;
        row["bound_claimed"] = th.claimed_bound;
        row["status"] = v.status;
        row["trials_needed"] = trials_json(v.trials_needed);
        row["simplex_below_orthogonal_mc_status"] = mc.status;
        row["simplex_below_orthogonal_exact_status"] =
            exact_order.judge(simplex_theory, th.orthogonal_mse, k2, label, std::sqrt(g.z_sq()));
        finish_row(row, f, em, false);
        result.rows.push_back(row);
      }
    }
    result.checks.push_back(exact_check.result());
    result.checks.push_back(exact_order.result());
    result.checks.push_back(with_equal_law_note(mc_check.result(), cells.ms));
  }

  // The importance-sampled runs of one d and estimator, one cell per (kind, m, point). Positive: iid (Lemma 2) and
  // orthogonal rows, and with simplex rows the paired run (its simplex figures and simplex ≤ orthogonal); smreg: iid
  // and orthogonal rows of norm √d, their direction tilted toward x + y (mc/importance_sphere.hpp).
  struct ImportanceCell {
    std::size_t k = 0, i = 0, p = 0;  // kind, m index, point
    std::uint64_t stream = 0;
    std::vector<double> theory;       // per line of the cell (lines_of)
    CoupledImportanceSampledMse run;  // iid or orthogonal rows
    PairedSimplexGap pair;            // simplex rows with their orthogonal twins
  };
  struct ImportanceRuns {
    Family e = Family::positive;
    Cells cells;
    std::int64_t trials = 0;  // the pilot's, per cell
    PlainVerdicts plain;      // this d's plain verdicts, which the combined lines take point by point
    std::vector<Coupling> kinds;
    std::vector<RowProposal> proposals;  // per point: the one-row proposal depends on the geometry alone
    std::vector<ImportanceCell> runs;
  };
  // A check line of the runs: the claim (without its method), where (after the projections' name), its sides, and
  // where its combined line is.
  struct ImportanceLine {
    std::string claim, where, either_where;
    ClaimCheck::Sides sides = ClaimCheck::Sides::two;
  };

  std::vector<ImportanceLine> lines(const ImportanceRuns& r) const {
    const std::string trials = ", " + std::to_string(r.trials) + " trials per point, ";
    if (r.e == Family::smreg) {
      const std::string where = r.cells.where() + trials +
                                "proposal tilting one row's direction toward x+y (von Mises-Fisher, a mixture over "
                                "the rows)";
      return {{kIidSmreg, "iid projections, " + where, "iid projections, " + r.cells.where()},
              {kOrthogonalSmreg, "orthogonal projections, " + where, "orthogonal projections, " + r.cells.where()}};
    }
    const std::string where = r.cells.where() + trials + "proposal tilting one row along x+y (a mixture over the rows)";
    std::vector<ImportanceLine> out{
        {kLemma2Positive, "iid projections, " + where, "iid projections, " + r.cells.where()},
        {kOrthogonalPositive, "orthogonal projections, " + where, "orthogonal projections, " + r.cells.where()}};
    if (r.kinds.size() > 2) {
      out.push_back({kSimplexPositive, "simplex projections, " + where, "simplex projections, " + r.cells.where()});
      out.push_back({kSimplexOrder, kPairedRows + where,
                     "plain: independent streams; importance-sampled: " + kPairedRows + r.cells.where(),
                     ClaimCheck::Sides::upper});
    }
    return out;
  }

  // The lines a cell of kind k gives evidence to: kind k's own, and for the paired run simplex ≤ orthogonal too.
  static std::vector<std::size_t> lines_of(std::size_t k) {
    return k == 2 ? std::vector<std::size_t>{2, 3} : std::vector<std::size_t>{k};
  }

  std::vector<ClaimCheck> line_checks(const ImportanceRuns& r) const {
    std::vector<ClaimCheck> out;
    const std::size_t n = r.cells.ms.size() * r.cells.points.size();
    for (const ImportanceLine& l : lines(r))
      out.emplace_back(l.claim + ", importance-sampled", l.where, alpha_, n, l.sides);
    return out;
  }

  static std::string cell_label(const ImportanceRuns& r, const ImportanceCell& c) {
    return "m=" + std::to_string(r.cells.ms[c.i]) + ", " + point_label(r.cells.points[c.p]);
  }

  // The cell's evidence per line (lines_of order), judged at `look` (−1: a fixed-size run).
  static std::vector<PointEvidence> cell_evidence(const ImportanceRuns& r, const ImportanceCell& c, int look) {
    const Geometry& g = r.cells.points[c.p];
    const double k = r.e == Family::smreg ? smreg_exact(g, r.cells.d) : softmax_kernel(g), k2 = k * k;
    const double allowance = kRoundingAllowance * kRoundingAllowance * k2;
    const std::string label = cell_label(r, c);
    std::vector<PointEvidence> out;
    const auto add = [&](const CoupledImportanceSampledMse& m, double theory) {
      out.push_back({m.mse, theory, m.mse_stderr, allowance, m.gate_skewness(), m.trials, m.nonfinite, label});
    };
    if (c.k == 2) {
      add(c.pair.simplex, c.theory[0]);
      out.push_back({c.pair.gap, c.theory[1], c.pair.gap_stderr, allowance, c.pair.gate_skewness(), c.pair.trials,
                     c.pair.nonfinite, label});
      out.back().scale = k2;
    } else {
      add(c.run, c.theory[0]);
    }
    for (PointEvidence& ev : out) ev.look = look;
    return out;
  }

  // Brings cell c to `trials` trials (the pilot when it has none yet, else a look continuing it).
  static void draw_cell(const ImportanceRuns& r, ImportanceCell& c, std::int64_t trials, std::uint64_t seed,
                        int threads, const ProgressFn& progress) {
    const Geometry& g = r.cells.points[c.p];
    const int d = r.cells.d, m = r.cells.ms[c.i];
    const RowProposal& q = r.proposals[c.p];
    if (c.k == 2) {
      const bool first = c.pair.drawn == 0;
      c.pair = paired_simplex_gap(r.e, g, d, m, trials, seed, c.stream, threads, q, progress, first ? nullptr : &c.pair);
    } else {
      const bool first = c.run.drawn == 0;
      c.run = importance_sampled_coupled_mse(r.e, r.kinds[c.k], g, d, m, trials, seed, c.stream, threads, q, progress,
                                             first ? nullptr : &c.run);
    }
  }

  // The pilots of one d and estimator: every cell at the pilot's trials.
  ImportanceRuns importance_pilots(Family e, const Cells& cells, std::size_t di, bool simplex, std::int64_t trials,
                                   std::uint64_t seed, int threads, const ProgressFn& progress,
                                   const PlainVerdicts& plain) const {
    ImportanceRuns r{e, cells, trials, plain, {Coupling::iid, Coupling::orthogonal}, {}, {}};
    const bool sphere = e == Family::smreg;
    if (!sphere && simplex) r.kinds.push_back(Coupling::simplex);
    for (const Geometry& g : cells.points)
      r.proposals.push_back(sphere ? optimal_sphere_row_proposal(g, cells.d) : optimal_row_proposal(e, g));
    const std::size_t np = cells.points.size();
    for (std::size_t i = 0; i < cells.ms.size(); ++i) {
      const int m = cells.ms[i];
      for (std::size_t p = 0; p < np; ++p) {
        const Geometry& g = cells.points[p];
        for (std::size_t k = 0; k < r.kinds.size(); ++k) {
          ImportanceCell c{k, i, p, 0, {}, {}, {}};
          if (sphere) {
            c.stream = kSphereImportanceStream + ((2 * di + k) << 32) + i * np + p;
            c.theory = {k == 0 ? iid_mse(Family::smreg, g, cells.d, m) : orthogonal_mse(Family::smreg, g, cells.d, m)};
          } else {
            c.stream = kImportanceStream + ((3 * di + k) << 32) + i * np + p;
            c.theory = {*exact_mse(e, r.kinds[k], g, cells.d, m)};
            if (k == 2) c.theory.push_back(0.0);  // simplex ≤ orthogonal: the difference is at most 0
          }
          r.runs.push_back(std::move(c));
        }
      }
    }
    for (std::size_t c = 0; c < r.runs.size(); ++c)
      draw_cell(r, r.runs[c], trials, seed, threads, part_progress(progress, c, r.runs.size()));
    return r;
  }

  // A cell's verdict for the looks: settled when every line it feeds is settled at its point by importance sampling
  // or by the plain check; else the open line's verdict that more trials can still settle (or the first open one).
  PointVerdict look_verdict(const ImportanceRuns& r, const ImportanceCell& c, int look, std::vector<ClaimCheck>& scratch,
                            std::int64_t last_trials) const {
    const std::vector<ImportanceLine> ls = lines(r);
    const std::vector<std::size_t> which = lines_of(c.k);
    const std::vector<PointEvidence> ev = cell_evidence(r, c, look);
    std::optional<PointVerdict> open, helps;
    for (std::size_t j = 0; j < which.size(); ++j) {
      const PointVerdict v = scratch[which[j]].judge(ev[j]);
      if (v.status != Verdict::inconclusive ||
          plain_verdict(r.plain, ls[which[j]].claim, ev[j].label).status != Verdict::inconclusive)
        continue;
      if (!open) open = v;
      const bool more_helps = v.trials_needed > 0 && (v.reliable ? v.trials_needed < kOutOfReach
                                                                 : v.trials_needed <= last_trials);
      if (more_helps && !helps) helps = v;
    }
    if (helps) return *helps;
    if (open) return *open;
    return PointVerdict{Verdict::holds};
  }

  // The runs' checks, each point judged at its cell's last look (cell_look, or −1 for a fixed-size run), with their
  // combined lines; annotates the cells' rows.
  void importance_checks(Result& result, const ImportanceRuns& r, const std::vector<int>& cell_look) const {
    const std::vector<ImportanceLine> ls = lines(r);
    std::vector<ClaimCheck> checks = line_checks(r);
    std::vector<EitherCheck> either;
    for (const ImportanceLine& l : ls) either.push_back(plain_or_importance_sampled(l.claim, l.either_where, r.trials));
    for (std::size_t ci = 0; ci < r.runs.size(); ++ci) {
      const ImportanceCell& c = r.runs[ci];
      const std::vector<std::size_t> which = lines_of(c.k);
      const std::vector<PointEvidence> ev = cell_evidence(r, c, cell_look[ci]);
      std::vector<PointVerdict> v;
      for (std::size_t j = 0; j < which.size(); ++j) {
        v.push_back(checks[which[j]].judge(ev[j]));
        either[which[j]].add(plain_verdict(r.plain, ls[which[j]].claim, ev[j].label), v.back(), ev[j].label);
      }
      const int m = r.cells.ms[c.i];
      const Geometry& g = r.cells.points[c.p];
      Json& row = annotate(result, r.e, r.kinds[c.k], r.cells.d, m, g, c.k == 2 ? c.pair.simplex : c.run, v[0]);
      if (c.k == 2) row["is_simplex_below_orthogonal_status"] = v[1].status;
      if (cell_look[ci] >= 0) row["is_look"] = cell_look[ci];
    }
    // The order of the lines' checks: the importance-sampled ones, then the combined ones.
    for (std::size_t j = 0; j < ls.size(); ++j)
      result.checks.push_back(j == 3 ? with_paired_note(checks[j].result(), r.cells.ms) : checks[j].result());
    for (std::size_t j = 0; j < ls.size(); ++j)
      result.checks.push_back(j == 3 ? with_paired_note(either[j].result(), r.cells.ms) : either[j].result());
  }

  // Looks over the cells of every run at once (so that a budget stops them all at the same look), then the checks.
  // A fixed-size run (no --until-conclusive) judges the pilots as they are.
  void settle_importance_runs(Result& result, std::vector<ImportanceRuns>& all, const RunContext& ctx,
                              double pilot_seconds) const {
    std::vector<std::pair<std::size_t, std::size_t>> flat;  // (run set, cell)
    std::vector<std::vector<ClaimCheck>> scratch;           // judges of the looks, per run set
    for (std::size_t s = 0; s < all.size(); ++s) {
      scratch.push_back(line_checks(all[s]));
      for (std::size_t c = 0; c < all[s].runs.size(); ++c) flat.emplace_back(s, c);
    }
    if (flat.empty()) return;
    const std::int64_t pilot = all.front().trials;
    const std::int64_t last_trials = look_trials(pilot, ctx.looks.max_looks - 1);
    const LookRecord looks = run_looks(
        flat.size(), pilot, pilot_seconds, ctx.looks,
        [&](std::size_t cell, int look) {
          const auto [s, c] = flat[cell];
          return look_verdict(all[s], all[s].runs[c], ctx.looks.sequential() ? look : -1, scratch[s], last_trials);
        },
        [&](const std::vector<std::size_t>& cells, std::int64_t to) {
          for (std::size_t n = 0; n < cells.size(); ++n) {
            const auto [s, c] = flat[cells[n]];
            draw_cell(all[s], all[s].runs[c], to, ctx.seed, ctx.threads, part_progress(ctx.progress, n, cells.size()));
          }
        });
    std::size_t cell = 0;
    for (ImportanceRuns& r : all) {
      std::vector<int> cell_look;
      for (std::size_t c = 0; c < r.runs.size(); ++c, ++cell)
        cell_look.push_back(ctx.looks.sequential() ? looks.cell_look[cell] : -1);
      importance_checks(result, r, cell_look);
    }
    report_looks(ctx.looks, looks, result);
  }

  // The plain verdict recorded for (claim, point); inconclusive where the plain sweep did not judge it.
  static PointVerdict plain_verdict(const PlainVerdicts& plain, const std::string& claim, const std::string& label) {
    const auto it = plain.find({claim, label});
    return it == plain.end() ? PointVerdict{} : it->second;
  }

  // Simplex ≤ orthogonal by Monte Carlo: at m = 1 both couplings are one Gaussian row, so the claim is an equality
  // there, which no one-sided test can establish; the check says so when its grid has m = 1.
  static Check with_equal_law_note(Check check, const std::vector<int>& ms) {
    if (std::find(ms.begin(), ms.end(), 1) != ms.end())
      check.detail += "; at m=1 simplex and orthogonal rows have the same law (one Gaussian row): those points are an "
                      "equality, open at any trial count (the exact values settle them)";
    return check;
  }

  // Simplex ≤ orthogonal on paired trials: at m = 1 the two rows of a trial are one vector, so the difference is 0
  // on every trial and those points hold to rounding; the check says why.
  static Check with_paired_note(Check check, const std::vector<int>& ms) {
    if (std::find(ms.begin(), ms.end(), 1) != ms.end())
      check.detail += "; at m=1 a paired trial's simplex row is its orthogonal row (one row has the same law under "
                      "both couplings), so the difference is 0 on every trial and those points hold to rounding";
    return check;
  }

  // The row of cell (e, c, d, m, g) gets the importance-sampled figures of its run and verdict; returns it.
  static Json& annotate(Result& result, Family e, Coupling c, int d, int m, const Geometry& g,
                        const CoupledImportanceSampledMse& r, const PointVerdict& v) {
    const std::string en(estimator_name(e)), cn(coupling_name(c));
    for (Json& row : result.rows) {
      if (row["estimator"] != en || row["coupling"] != cn || row["d"] != d || row["m"] != m ||
          row["x_norm"] != g.x_norm || row["y_norm"] != g.y_norm || row["cos_angle"] != g.cos_angle)
        continue;
      add_importance_fields(row, r, v);
      return row;
    }
    throw std::logic_error("orthogonal: no row for an importance-sampled cell");
  }

  // A row's cell and its figures: the mean (from the same draws as the MSE, for compare) and the MSE.
  static Json figure_row(Family e, Coupling c, int d, int m, const Geometry& g, const CellFigures& f) {
    Json row = estimator_row(e, c, d, m, g);
    row["z_norm"] = std::sqrt(g.z_sq());
    row["truth"] = f.truth;
    row["mean"] = f.mean;
    row["stderr"] = f.stderr_;
    row["mse"] = f.mse;
    row["mse_stderr"] = f.mse_stderr;
    return row;
  }

  // An iid or orthogonal row of Theorem 2: the figures, the closed forms and the verdict of its exact-MSE check.
  static Json theorem2_row(Family e, Coupling c, int d, int m, const Geometry& g, const CellFigures& f,
                           const Theorem2Point& th, const PointVerdict& v, const ErrorMoments& em) {
    Json row = figure_row(e, c, d, m, g, f);
    row["mse_theory"] = c == Coupling::iid ? th.iid_mse : th.orthogonal_mse;
    row["mse_iid_theory"] = th.iid_mse;
    row["mse_orthogonal_theory"] = th.orthogonal_mse;
    row["bound_claimed"] = th.claimed_bound;
    row["bound_corrected"] = th.corrected_bound;
    row["z"] = v.z;
    row["status"] = v.status;
    row["trials_needed"] = trials_json(v.trials_needed);
    finish_row(row, f, em, c == Coupling::iid);
    return row;
  }

  // The counts, and for compare the a-priori skewness of one draw of the error and of its square (iid values;
  // coupled rows share the marginals), their closed-form variances where exact and what bounds them elsewhere.
  static void finish_row(Json& row, const CellFigures& f, const ErrorMoments& em, bool iid) {
    row["trials"] = f.trials;
    row["nonfinite"] = f.nonfinite;
    row["mean_skewness"] = number_or_null(em.error_skewness);
    row["mse_skewness"] = number_or_null(em.squared_error_skewness);
    row["mean_draw_variance"] = iid ? number_or_null(em.variance) : Json(nullptr);
    row["mse_draw_variance"] = iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
    add_compare_fields(row);  // the coupled rows' exact mean variance, bounds and ranges
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
      if (d < 2) throw std::invalid_argument("--d values must be at least 2 (two orthogonal rows), got " + std::to_string(d));
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
