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
// whose features have the same marginals).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/memory_estimate.hpp"
#include "io/join_list.hpp"
#include "features/family_theory.hpp"
#include "kernels/orthogonal_mse.hpp"
#include "kernels/simplex_moments.hpp"
#include "mc/estimator_sweep.hpp"

namespace favorlab {

namespace {

struct Figure {
  double mse = 0, stderr_ = 0;
  std::int64_t trials = 0, nonfinite = 0;
};

class OrthogonalExperiment final : public Experiment {
 public:
  std::string name() const override { return "orthogonal"; }
  std::string summary() const override {
    return "Theorem 2: orthogonal features lower the MSE of positive (SM) and regularized (SMREG) estimators";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 10000 : 200000; }
  Distribution distribution() const override { return Distribution::trial_blocks; }

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
  }

  Result run(const RunContext& ctx) override {
    validate();
    const auto points = grid();
    std::vector<Estimator> estimators;
    for (const auto& n : estimators_) estimators.push_back(parse_estimator(n));
    Result result;
    result.experiment = name();
    result.params = Json{{"d", dims_},         {"m", ms_},     {"x_norm", x_norms_}, {"y_norm", y_norms_},
                         {"cos", cosines_},    {"estimators", estimators_}, {"structured", structured_},
                         {"simplex", !no_simplex_}, {"alpha", alpha_}};
    result.params["row_schema"] = row_schema();
    std::vector<Coupling> structured;
    for (const auto& n : structured_) structured.push_back(parse_coupling(n));

    std::int64_t evaluations = 0;
    double seconds = 0;
    const bool simplex = !no_simplex_ && std::find(estimators.begin(), estimators.end(), Estimator::positive) !=
                                              estimators.end();
    const std::size_t runs_per_d = 2 + structured.size() + (simplex ? 1 : 0), parts = runs_per_d * dims_.size();
    for (std::size_t di = 0; di < dims_.size(); ++di) {
      const int d = dims_[di];
      const std::vector<int> ms = features_for(d);
      std::vector<EstimatorSpec> specs;
      for (Estimator e : estimators)
        for (int m : ms) specs.push_back({e, m});
      for (const auto& g : points) validate_geometry(g, d);

      // sweeps[c][spec][point], c = 0 iid, 1 orthogonal; independent streams per (d, coupling).
      std::vector<std::vector<std::vector<Figure>>> figures(2);
      std::vector<double> truth;
      for (int c = 0; c < 2; ++c) {
        const Coupling coupling = c == 0 ? Coupling::iid : Coupling::orthogonal;
        SweepConfig config{d, coupling, specs, points, ctx.seed, 2 * di + static_cast<std::uint64_t>(c), ctx.trials,
                           ctx.threads, FeatureParameters{}};
        const SweepResult sweep = run_estimator_sweep(config, part_progress(ctx.progress, runs_per_d * di + c, parts));
        evaluations += sweep.evaluations;
        seconds += sweep.seconds;
        truth = sweep.truth;
        figures[c].assign(specs.size(), std::vector<Figure>(points.size()));
        for (std::size_t s = 0; s < specs.size(); ++s)
          for (std::size_t p = 0; p < points.size(); ++p) {
            const SweepCell& cell = sweep.cell(s, p);
            figures[c][s][p] = {cell.error.mean_square(), cell.error.mean_square_stderr(), cell.error.count(),
                                cell.nonfinite};
            means_[c].push_back(sweep.truth[s * points.size() + p] + cell.error.mean());
            mean_se_[c].push_back(cell.error.standard_error());
          }
      }

      for (Estimator e : estimators) {
        const std::string en(estimator_name(e)), k = e == Estimator::smreg ? "SMREG" : "SM";
        std::vector<std::size_t> my_specs;
        for (std::size_t s = 0; s < specs.size(); ++s)
          if (specs[s].estimator == e) my_specs.push_back(s);
        const std::size_t n = my_specs.size() * points.size();
        const std::string where = "d=" + std::to_string(d) + ", m in {" + join_list(ms) + "}, " +
                                  std::to_string(points.size()) + " geometries";
        ClaimCheck ort_check("Exact orthogonal MSE (" + en + ", from the proof of Theorem 2) = Monte Carlo",
                             "orthogonal projections, " + where, alpha_, n);
        ClaimCheck iid_check(e == Estimator::smreg ? "Exact iid MSE (smreg, sphere MGF) = Monte Carlo"
                                                   : "Lemma 2: MSE(positive) closed form",
                             "iid projections, " + where, alpha_, n);
        ClaimCheck claim_mc("Theorem 2 (" + en + "): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) " + k +
                                "^2, Monte Carlo",
                            "both couplings, independent streams, " + where, alpha_, n, ClaimCheck::Sides::upper);
        ExactInequality claim_exact("Theorem 2 (" + en + "): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) " + k +
                                        "^2, exact values",
                                    where);
        ExactInequality corrected_exact("Theorem 2 corrected (" + en + "): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) (" +
                                            k + " - Lambda)^2, exact values",
                                        where);
        // The largest z of the Monte Carlo claim check away from ‖z‖ = 0, where both estimators are exact and a
        // violation has a zero standard error (an astronomically large z that says nothing about sampling).
        double largest_inexact_z = -std::numeric_limits<double>::infinity();
        std::string largest_inexact_label;
        for (std::size_t s : my_specs) {
          const int m = specs[s].m;
          for (std::size_t p = 0; p < points.size(); ++p) {
            const Geometry& g = points[p];
            const double t = truth[s * points.size() + p], k2 = t * t, z_norm = std::sqrt(g.z_sq());
            const double iid_theory = iid_mse(e, g, d, m), ort_theory = orthogonal_mse(e, g, d, m);
            const double claimed = theorem2_claimed_bound(e, g, d, m), corrected = theorem2_corrected_bound(e, g, d, m);
            const ErrorMoments em = error_moments(e, g, d, m);
            const double skew = em.squared_error_skewness;
            const std::string label = "m=" + std::to_string(m) + ", " + point_label(g);
            const double allowance = kRoundingAllowance * kRoundingAllowance * k2;
            for (int c = 0; c < 2; ++c) {
              const Figure& f = figures[c][s][p];
              const double theory = c == 0 ? iid_theory : ort_theory;
              const PointVerdict v = (c == 0 ? iid_check : ort_check)
                                         .judge({f.mse, theory, f.stderr_, allowance, skew, f.trials, f.nonfinite,
                                                 label});
              Json row = estimator_row(e, c == 0 ? Coupling::iid : Coupling::orthogonal, d, m, g);
              row["z_norm"] = z_norm;
              row["truth"] = t;
              row["mean"] = means_[c][s * points.size() + p];
              row["stderr"] = mean_se_[c][s * points.size() + p];
              row["mse"] = f.mse;
              row["mse_stderr"] = f.stderr_;
              row["mse_theory"] = theory;
              row["mse_iid_theory"] = iid_theory;
              row["mse_orthogonal_theory"] = ort_theory;
              row["bound_claimed"] = claimed;
              row["bound_corrected"] = corrected;
              row["z"] = v.z;
              row["status"] = v.status;
              row["trials_needed"] = trials_json(v.trials_needed);
              row["trials"] = f.trials;
              row["nonfinite"] = f.nonfinite;
              add_gate_fields(row, em, c == 0);
              if (c == 1) {
                const Figure& iid = figures[0][s][p];
                const double gap = iid_theory - claimed;  // (1 − 1/m)·2/(d+2)·K²
                PointEvidence ev{f.mse - iid.mse + gap, 0, std::hypot(f.stderr_, iid.stderr_), allowance, skew,
                                 std::min(f.trials, iid.trials), f.nonfinite + iid.nonfinite, label};
                ev.scale = k2;  // power in units of K², like the exact check's margin
                const PointVerdict mc = claim_mc.judge(ev);
                row["claim_exact_status"] = claim_exact.judge(ort_theory, claimed, k2, label, z_norm);
                row["claim_exact_margin"] = (ort_theory - claimed) / k2;
                if (g.z_sq() > 0 && mc.status != Verdict::inconclusive && mc.z > largest_inexact_z) {
                  largest_inexact_z = mc.z;
                  largest_inexact_label = label;
                }
                row["claim_mc_status"] = mc.status;
                row["claim_mc_z"] = mc.z;
                row["corrected_exact_status"] = corrected_exact.judge(ort_theory, corrected, k2, label, z_norm);
              }
              result.rows.push_back(row);
            }
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
      // Structured couplings: Monte Carlo only (no exact theory); the claimed bound is tested against their MSE.
      for (std::size_t si = 0; si < structured.size(); ++si) {
        const Coupling coupling = structured[si];
        SweepConfig config{d, coupling, specs, points, ctx.seed, 1000 + 10 * di + si, ctx.trials, ctx.threads, FeatureParameters{}};
        const SweepResult sweep =
            run_estimator_sweep(config, part_progress(ctx.progress, runs_per_d * di + 2 + si, parts));
        evaluations += sweep.evaluations;
        seconds += sweep.seconds;
        for (Estimator e : estimators) {
          const std::string en(estimator_name(e)), k = e == Estimator::smreg ? "SMREG" : "SM";
          std::size_t n = 0;
          for (const auto& spec : specs) n += spec.estimator == e ? points.size() : 0;
          ClaimCheck check("Theorem 2 (" + en + ") with " + std::string(coupling_name(coupling)) +
                               " features: MSE <= MSE(iid) - (1-1/m) 2/(d+2) " + k + "^2, Monte Carlo",
                           "d=" + std::to_string(d) + ", m in {" + join_list(ms) + "}, " + std::to_string(points.size()) +
                               " geometries",
                           alpha_, n, ClaimCheck::Sides::upper);
          for (std::size_t s = 0; s < specs.size(); ++s) {
            if (specs[s].estimator != e) continue;
            const int m = specs[s].m;
            for (std::size_t p = 0; p < points.size(); ++p) {
              const Geometry& g = points[p];
              const SweepCell& cell = sweep.cell(s, p);
              const Figure& iid = figures[0][s][p];
              const double t = truth[s * points.size() + p], mse = cell.error.mean_square();
              const double se = cell.error.mean_square_stderr();
              const double iid_theory = iid_mse(e, g, d, m), ort_theory = orthogonal_mse(e, g, d, m);
              const double claimed = theorem2_claimed_bound(e, g, d, m);
              PointEvidence ev{mse - iid.mse + (iid_theory - claimed), 0, std::hypot(se, iid.stderr_),
                               kRoundingAllowance * kRoundingAllowance * t * t,
                               error_moments(e, g, d, m).squared_error_skewness,
                               std::min(cell.error.count(), iid.trials), cell.nonfinite + iid.nonfinite,
                               "m=" + std::to_string(m) + ", " + point_label(g)};
              ev.scale = t * t;  // power in units of K², like the exact check's margin
              const PointVerdict v = check.judge(ev);
              Json row = estimator_row(e, coupling, d, m, g);
              row["z_norm"] = std::sqrt(g.z_sq());
              row["truth"] = t;
              row["mean"] = t + cell.error.mean();
              row["stderr"] = cell.error.standard_error();
              row["mse"] = mse;
              row["mse_stderr"] = se;
              row["mse_iid_theory"] = iid_theory;
              row["mse_orthogonal_theory"] = ort_theory;
              row["mse_ratio_to_orthogonal"] = ort_theory > 0 ? Json(mse / ort_theory) : Json(nullptr);
              row["bound_claimed"] = claimed;
              row["claim_mc_status"] = v.status;
              row["claim_mc_z"] = v.z;
              row["status"] = v.status;
              row["trials_needed"] = trials_json(v.trials_needed);
              row["trials"] = cell.error.count();
              row["nonfinite"] = cell.nonfinite;
              add_gate_fields(row, error_moments(e, g, d, m), false);
              result.rows.push_back(row);
            }
          }
          result.checks.push_back(check.result());
        }
      }
      if (simplex) {
        const SweepResult sweep = simplex_sweep(ctx, d, di, ms, points,
                                                part_progress(ctx.progress, runs_per_d * di + runs_per_d - 1, parts));
        evaluations += sweep.evaluations;
        seconds += sweep.seconds;
        simplex_checks(result, sweep, d, ms, points, specs, figures[1]);
      }
      means_[0].clear();
      means_[1].clear();
      mean_se_[0].clear();
      mean_se_[1].clear();
    }
    result.measurements["estimator_evaluations"] = evaluations;
    result.measurements["evaluations_per_second"] = seconds > 0 ? static_cast<double>(evaluations) / seconds : 0.0;
    return result;
  }

 private:
  // For compare: the a-priori skewness of one draw of the error and of its square (iid values; coupled rows share the
  // marginals), and their closed-form variances where exact (iid rows only; null elsewhere).
  static void add_gate_fields(Json& row, const ErrorMoments& em, bool iid) {
    row["mean_skewness"] = number_or_null(em.error_skewness);
    row["mse_skewness"] = number_or_null(em.squared_error_skewness);
    row["mean_draw_variance"] = iid ? number_or_null(em.variance) : Json(nullptr);
    row["mse_draw_variance"] = iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
  }

  // Rows pair by estimator × coupling × d × m × geometry; the mean and MSE of every coupling are statistics (the
  // structured and simplex rows too), the closed forms exact. The verdict is each row's own check.
  static Json row_schema() {
    Json schema = estimator_row_schema(true);
    schema["statistics"] = Json::array({schema["statistics"][0], schema["statistics"][1]});  // no importance sampling
    schema["exact"] = Json::array({"truth", "z_norm", "mse_theory", "mse_iid_theory", "mse_orthogonal_theory",
                                   "mse_simplex_theory", "bound_claimed", "bound_corrected", "claim_exact_margin"});
    return schema;
  }

  // Simplex rows (Reid et al. 2023) for positive features, on their own stream: the sweep for m ∈ ms.
  SweepResult simplex_sweep(const RunContext& ctx, int d, std::size_t di, const std::vector<int>& ms,
                            const std::vector<Geometry>& points, const ProgressFn& progress) const {
    std::vector<EstimatorSpec> specs;
    for (int m : ms) specs.push_back({Estimator::positive, m});
    SweepConfig config{d, Coupling::simplex, specs, points, ctx.seed, 2000 + di, ctx.trials, ctx.threads,
                       FeatureParameters{}};
    return run_estimator_sweep(config, progress);
  }

  // Simplex against R-ORF: the exact simplex MSE (kernels/simplex_moments.hpp) = Monte Carlo; simplex ≤ orthogonal
  // on the exact values; and on the Monte Carlo values (one-sided, independent streams). `ort` holds the orthogonal
  // figures of `specs` (the main sweep's specs; positive ones are matched by m).
  void simplex_checks(Result& result, const SweepResult& sweep, int d, const std::vector<int>& ms,
                      const std::vector<Geometry>& points, const std::vector<EstimatorSpec>& specs,
                      const std::vector<std::vector<Figure>>& ort) const {
    const std::string where = "d=" + std::to_string(d) + ", m in {" + join_list(ms) + "}, " +
                              std::to_string(points.size()) + " geometries";
    const std::size_t n = ms.size() * points.size();
    ClaimCheck exact_check("Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo", "simplex projections, " + where,
                           alpha_, n);
    ClaimCheck mc_check("Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), Monte Carlo",
                        "both couplings, independent streams, " + where, alpha_, n, ClaimCheck::Sides::upper);
    ExactInequality exact_order("Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), exact values", where);
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const int m = ms[i];
      std::size_t o = 0;  // the orthogonal figure of positive features at this m
      while (o < specs.size() && !(specs[o].estimator == Estimator::positive && specs[o].m == m)) ++o;
      for (std::size_t p = 0; p < points.size(); ++p) {
        const Geometry& g = points[p];
        const SweepCell& cell = sweep.cell(i, p);
        const double t = sweep.truth[i * points.size() + p], k2 = t * t;
        const double mse = cell.error.mean_square(), se = cell.error.mean_square_stderr();
        const double simplex_theory = simplex_mse(g, d, 0.0, m), ort_theory = orthogonal_mse(Estimator::positive, g, d, m);
        // The iid squared-error skewness stands in for coupled rows (same marginals).
        const double skew = error_moments(Estimator::positive, g, d, m).squared_error_skewness;
        const std::string label = "m=" + std::to_string(m) + ", " + point_label(g);
        const double allowance = kRoundingAllowance * kRoundingAllowance * k2;
        const PointVerdict v =
            exact_check.judge({mse, simplex_theory, se, allowance, skew, cell.error.count(), cell.nonfinite, label});
        const Figure& of = ort[o][p];
        PointEvidence gap{mse - of.mse, 0, std::hypot(se, of.stderr_), allowance, skew,
                          std::min(cell.error.count(), of.trials), cell.nonfinite + of.nonfinite, label};
        gap.scale = k2;
        const PointVerdict mc = mc_check.judge(gap);
        Json row = estimator_row(Estimator::positive, Coupling::simplex, d, m, g);
        row["z_norm"] = std::sqrt(g.z_sq());
        row["truth"] = t;
        row["mean"] = t + cell.error.mean();  // from the same draws as the MSE, for compare
        row["stderr"] = cell.error.standard_error();
        row["mse"] = mse;
        row["mse_stderr"] = se;
        row["mse_iid_theory"] = iid_mse(Estimator::positive, g, d, m);
        row["mse_orthogonal_theory"] = ort_theory;
        row["mse_simplex_theory"] = simplex_theory;
        row["bound_claimed"] = theorem2_claimed_bound(Estimator::positive, g, d, m);
        row["status"] = v.status;
        row["trials_needed"] = trials_json(v.trials_needed);
        row["simplex_below_orthogonal_mc_status"] = mc.status;
        row["simplex_below_orthogonal_exact_status"] =
            exact_order.judge(simplex_theory, ort_theory, k2, label, std::sqrt(g.z_sq()));
        row["trials"] = cell.error.count();
        row["nonfinite"] = cell.nonfinite;
        add_gate_fields(row, error_moments(Estimator::positive, g, d, m), false);
        result.rows.push_back(row);
      }
    }
    result.checks.push_back(exact_check.result());
    result.checks.push_back(exact_order.result());
    result.checks.push_back(mc_check.result());
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
    if (estimators_.empty()) throw std::invalid_argument("--estimators needs at least one estimator");
    for (const auto& n : estimators_) {
      const Estimator e = parse_estimator(n);
      if (e != Estimator::positive && e != Estimator::smreg)
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
  std::vector<double> means_[2], mean_se_[2];
};

}  // namespace

std::unique_ptr<Experiment> make_orthogonal_experiment() { return std::make_unique<OrthogonalExperiment>(); }

}  // namespace favorlab
