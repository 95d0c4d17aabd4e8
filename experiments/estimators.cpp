// `favorlab estimators` — which random-feature estimator of SM(x, y) = exp(xᵀy) is best, and does its theory hold.
// At every point of a grid of ‖x‖, ‖y‖, cos and d (m = d), every family × coupling (positive, hyperbolic, trig, oprf,
// sderf; iid, orthogonal, simplex) gets its exact MSE where a closed form exists (features/family_theory.hpp) and its
// Monte Carlo MSE, both relative to the exact MSE of positive features with iid rows. Checks:
//   1. each closed form = Monte Carlo (equality within the stated margin; heavy-tailed points inconclusive);
//   2. OPRF ≤ positive, on the exact values, for each coupling with closed forms (oprf minimises the variance over
//      its family, which contains positive features at A = 0: it must hold at every point);
//   3. simplex ≤ orthogonal, on the exact values, for positive and oprf features (Reid et al. 2023);
//   4. SDERF ≤ OPRF with iid rows, on the exact values (Likhosherstov et al. 2023);
//   5. check 1 again by importance sampling for positive and hyperbolic features (mc/importance_coupled.hpp), whose
//      plain squared errors are too skewed at most points: "..., importance-sampled" (`--importance-trials 0`: none),
//      and the two combined point by point: "..., plain or importance-sampled" (stats/either_check.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "features/family_theory.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_coupled.hpp"
#include "stats/either_check.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled runs, disjoint from the sweeps' (7000 + …): base + (d index, coupling, family)·2³²
// + point.
constexpr std::uint64_t kImportanceStream = 0x1800'0000ULL;

class EstimatorsExperiment final : public EstimatorGridExperiment {
 public:
  EstimatorsExperiment()
      : EstimatorGridExperiment({"positive", "hyperbolic", "trig", "oprf", "sderf"}, {"iid", "orthogonal", "simplex"}) {
    grid_.dims = {4, 16};
    grid_.x_norms = {0.25, 0.5, 1.0};
    grid_.y_norms = {0.25, 0.5, 1.0};
    grid_.cosines = {-0.9, -0.5, 0, 0.5, 0.9};
  }
  std::string name() const override { return "estimators"; }
  std::string summary() const override {
    return "Exact and Monte Carlo MSE of every estimator family x coupling (OPRF, SDERF, simplex, ...)";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 160000 : 1600000; }

  void add_options(CLI::App& app) override {
    EstimatorGridExperiment::add_options(app);
    app.add_option("--importance-trials", importance_trials_,
                   "Trials per point of the importance-sampled checks of positive and hyperbolic features (0: skip "
                   "them; default 4000 with --quick, else 200000)");
  }

  Result run(const RunContext& ctx) override {
    const auto estimators = grid_.parsed_estimators();
    const auto couplings = grid_.parsed_couplings();
    if (grid_.dims.empty()) throw std::invalid_argument("--d needs at least one dimension");
    if (importance_trials_ != kDefaultImportanceTrials && (importance_trials_ < 0 || importance_trials_ == 1))
      throw std::invalid_argument("--importance-trials must be 0 (skip) or at least 2, got " +
                                  std::to_string(importance_trials_));
    const std::int64_t importance_trials =
        importance_trials_ != kDefaultImportanceTrials ? importance_trials_ : ctx.quick ? 4000 : 200000;
    Result result;
    result.experiment = name();
    result.params = grid_.params();
    result.params["importance_trials"] = importance_trials;
    result.params["row_schema"] = row_schema();
    std::int64_t evaluations = 0;
    const std::size_t parts = grid_.dims.size() * couplings.size();
    for (std::size_t di = 0; di < grid_.dims.size(); ++di) {
      EstimatorGridOptions at_d = grid_;
      at_d.d = at_d.m = grid_.dims[di];
      const int d = at_d.d, m = at_d.m;
      const auto points = at_d.points();
      const std::string where = "d=" + std::to_string(d) + ", m=" + std::to_string(m) + ", " +
                                std::to_string(points.size()) + " points";
      std::vector<EstimatorSpec> specs;
      for (Family e : estimators) specs.push_back({e, m});
      const auto exact = [&](Family e, Coupling c, const Geometry& g) {
        return exact_mse(e, c, g, d, m, grid_.parameters);
      };
      // The one-row proposals of the importance-sampled checks, per family and point: shared by the couplings.
      std::map<Family, std::vector<RowProposal>> row_proposals;
      if (importance_trials > 0)
        for (Family e : estimators)
          if (is_importance_estimator(e))
            for (const Geometry& g : points) row_proposals[e].push_back(optimal_row_proposal(e, g));
      for (std::size_t ci = 0; ci < couplings.size(); ++ci) {
        const Coupling coupling = couplings[ci];
        const SweepConfig config{d, coupling, specs, points, ctx.seed, 7000 + 16 * static_cast<std::uint64_t>(d) +
                                 static_cast<std::uint64_t>(coupling), ctx.trials, ctx.threads, grid_.parameters};
        const SweepResult sweep = run_estimator_sweep(config, part_progress(ctx.progress, di * couplings.size() + ci, parts));
        evaluations += sweep.evaluations;
        for (std::size_t s = 0; s < specs.size(); ++s) {
          const Family e = specs[s].estimator;
          const std::string label = std::string(estimator_name(e)) + ", " + std::string(coupling_name(coupling));
          std::vector<PointEvidence> evidence;
          for (std::size_t p = 0; p < points.size(); ++p) {
            const SweepCell& cell = sweep.cell(s, p);
            const std::optional<double> theory = exact(e, coupling, points[p]);
            // The iid squared-error skewness stands in for coupled rows (same marginals, coupled dependence).
            evidence.push_back({cell.error.mean_square(), theory ? *theory : 0.0, cell.error.mean_square_stderr(),
                                std::pow(kRoundingAllowance * sweep.truth[s * points.size() + p], 2),
                                error_moments(e, points[p], d, m, grid_.parameters).squared_error_skewness,
                                cell.error.count(), cell.nonfinite, point_label(points[p])});
          }
          // The family α is split over the points whose z interval is reliable at this trial count (decided by the
          // a-priori skewness, before looking at the figures); the others are inconclusive points of the check, with
          // the trials they would need, so a check never holds over part of its grid.
          std::vector<PointVerdict> probe;
          std::size_t reachable = 0;
          const bool has_theory = exact(e, coupling, points.front()).has_value();
          if (has_theory) {
            ClaimCheck scratch("probe", "", grid_.alpha, points.size());
            for (const PointEvidence& ev : evidence) probe.push_back(scratch.judge(ev));
            for (const PointVerdict& v : probe) reachable += v.reliable ? 1 : 0;
          }
          // No reliable point at all: every point is judged (all inconclusive, with the trials they need).
          const bool judge_all = reachable == 0;
          std::optional<ClaimCheck> check;
          std::vector<PointVerdict> plain(points.size());  // what the importance-sampled check combines with
          if (has_theory)
            check.emplace("Exact MSE (" + label + ") = Monte Carlo",
                          where + (judge_all ? " (none is reliable at this trial count)"
                                             : " (alpha split over the " + std::to_string(reachable) +
                                                   " whose Monte Carlo is reliable at this trial count)"),
                          grid_.alpha, judge_all ? points.size() : reachable);
          for (std::size_t p = 0; p < points.size(); ++p) {
            const Geometry& g = points[p];
            const SweepCell& cell = sweep.cell(s, p);
            const std::optional<double> theory = exact(e, coupling, g);
            Json row = estimator_row(e, coupling, d, m, g);
            row["z_norm"] = std::sqrt(g.z_sq());
            row["mse"] = cell.error.mean_square();
            row["mse_stderr"] = cell.error.mean_square_stderr();
            row["mse_exact"] = theory ? Json(*theory) : Json(nullptr);
            row["reference_mse"] = *exact(Family::positive, Coupling::iid, g);  // positive features, iid rows
            // For compare: the truth (the MSE's rounding scale), the a-priori skewness of one squared error (iid value,
            // standing in for coupled rows as above) and its closed-form variance (exact for iid rows only).
            const ErrorMoments em = error_moments(e, g, d, m, grid_.parameters);
            row["truth"] = sweep.truth[s * points.size() + p];
            row["mse_skewness"] = number_or_null(em.squared_error_skewness);
            row["mse_draw_variance"] = coupling == Coupling::iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
            row["trials"] = cell.error.count();
            row["nonfinite"] = cell.nonfinite;
            if (has_theory) {
              PointEvidence ev = evidence[p];
              // A point left out of the split still counts, as unreliable: its trial requirement from the probe.
              if (!judge_all && !probe[p].reliable) ev.min_trials = std::max(ev.min_trials, probe[p].trials_needed);
              const PointVerdict v = check->judge(ev);
              plain[p] = v;
              row["status"] = v.status;
              row["trials_needed"] = trials_json(v.trials_needed);
            }
            result.rows.push_back(row);
          }
          if (check) result.checks.push_back(check->result());
          if (has_theory && importance_trials > 0 && is_importance_estimator(e) && is_importance_coupling(coupling)) {
            const std::uint64_t stream =
                kImportanceStream + (((di * 8 + static_cast<std::uint64_t>(coupling)) * 64 + s) << 32);
            importance_check(result, e, coupling, d, m, points, row_proposals[e], importance_trials, stream, where,
                             ctx, result.rows.size() - points.size(), plain);
          }
        }
      }
      add_exact_comparisons(result, estimators, couplings, points, where, exact);
    }
    result.measurements["estimator_evaluations"] = evaluations;
    return result;
  }

 private:
  // Check 5 for (e, c): the exact MSE against an importance-sampled run at every point, and that check combined with
  // the plain one (`plain`, its verdict per point) point by point; annotates the rows of the points,
  // rows[first_row + p].
  void importance_check(Result& result, Family e, Coupling c, int d, int m, const std::vector<Geometry>& points,
                        const std::vector<RowProposal>& proposals, std::int64_t trials, std::uint64_t stream,
                        const std::string& where, const RunContext& ctx, std::size_t first_row,
                        const std::vector<PointVerdict>& plain) const {
    const std::string label = std::string(estimator_name(e)) + ", " + std::string(coupling_name(c));
    ClaimCheck check("Exact MSE (" + label + ") = Monte Carlo, importance-sampled",
                     where + ", " + std::to_string(trials) +
                         " trials per point, proposal tilting one row along x+y (a mixture over the rows)",
                     grid_.alpha, points.size());
    EitherCheck either = plain_or_importance_sampled("Exact MSE (" + label + ") = Monte Carlo", where, trials);
    for (std::size_t p = 0; p < points.size(); ++p) {
      const Geometry& g = points[p];
      const CoupledImportanceSampledMse r =
          importance_sampled_coupled_mse(e, c, g, d, m, trials, ctx.seed, stream + p, ctx.threads, proposals[p]);
      const double truth = result.rows[first_row + p]["truth"].get<double>();
      const PointVerdict v =
          check.judge({r.mse, *exact_mse(e, c, g, d, m, grid_.parameters), r.mse_stderr,
                       std::pow(kRoundingAllowance * truth, 2), r.gate_skewness(), r.trials, r.nonfinite,
                       point_label(g)});
      add_importance_fields(result.rows[first_row + p], r, v);
      either.add(plain[p], v, point_label(g));
    }
    result.checks.push_back(check.result());
    result.checks.push_back(either.result());
  }

  // Rows pair by estimator × coupling × d × m × geometry; the Monte Carlo MSE is the statistic, closed forms exact.
  static Json row_schema() {
    Json schema = estimator_row_schema(true);
    // The MSE and, on positive and hyperbolic rows, the importance-sampled MSE: these rows report no mean.
    schema["statistics"] = Json::array({schema["statistics"][1], schema["statistics"][3]});
    schema["exact"] = Json::array({"truth", "z_norm", "mse_exact", "reference_mse"});
    return schema;
  }

  // Checks 2–4: a ≤ b on the exact values wherever both closed forms exist and both sides were asked for.
  template <class Exact>
  static void add_exact_comparisons(Result& result, const std::vector<Family>& estimators,
                                    const std::vector<Coupling>& couplings, const std::vector<Geometry>& points,
                                    const std::string& where, const Exact& exact) {
    const auto has = [](const auto& list, auto x) { return std::find(list.begin(), list.end(), x) != list.end(); };
    struct Claim {
      std::string name;
      Family a;
      Coupling ca;
      Family b;
      Coupling cb;
    };
    std::vector<Claim> claims;
    for (Coupling c : couplings)
      claims.push_back({"FAVOR++: MSE(oprf) <= MSE(positive), " + std::string(coupling_name(c)) + " rows",
                        Family::oprf, c, Family::positive, c});
    for (Family e : {Family::positive, Family::oprf})
      claims.push_back({"Simplex RFs: MSE(" + std::string(estimator_name(e)) + ", simplex) <= MSE(" +
                            std::string(estimator_name(e)) + ", orthogonal)",
                        e, Coupling::simplex, e, Coupling::orthogonal});
    claims.push_back({"FAVOR#: MSE(sderf) <= MSE(oprf), iid rows", Family::sderf, Coupling::iid, Family::oprf,
                      Coupling::iid});
    for (const Claim& c : claims) {
      if (!has(estimators, c.a) || !has(estimators, c.b) || !has(couplings, c.ca) || !has(couplings, c.cb)) continue;
      if (!exact(c.a, c.ca, points.front()) || !exact(c.b, c.cb, points.front())) continue;
      ExactInequality check(c.name, "exact closed forms, " + where);
      for (const Geometry& g : points)
        check.judge(*exact(c.a, c.ca, g), *exact(c.b, c.cb, g), std::exp(2 * g.dot()), point_label(g),
                    std::sqrt(g.z_sq()));
      result.checks.push_back(check.result());
    }
  }

  static constexpr std::int64_t kDefaultImportanceTrials = std::numeric_limits<std::int64_t>::min();  // by run size
  std::int64_t importance_trials_ = kDefaultImportanceTrials;
};

}  // namespace

std::unique_ptr<Experiment> make_estimators_experiment() { return std::make_unique<EstimatorsExperiment>(); }

}  // namespace favorlab
