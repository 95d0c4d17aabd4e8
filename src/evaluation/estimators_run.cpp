#include "evaluation/estimators_run.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "evaluation/estimator_rows.hpp"
#include "features/family_theory.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/sweep_set.hpp"
#include "stats/either_check.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled runs, disjoint from the sweeps' (7000 + …): base + (d index, coupling, family)·2³²
// + point.
constexpr std::uint64_t kEstimatorsImportanceStream = 0x1800'0000ULL;

// The sweeps of one d (m = d): its specs and points, shared by the couplings.
struct Grid {
  int d = 0;
  std::vector<Geometry> points;
  std::vector<EstimatorSpec> specs;
  std::string where() const {
    return "d=" + std::to_string(d) + ", m=" + std::to_string(d) + ", " + std::to_string(points.size()) + " points";
  }
};

// How one check splits its α: over the points whose z interval is reliable by the last look (`reachable`); the others
// carry the trials the probe asked for (`needed`, 0 for a reachable point). No reachable point: every point is judged
// (all inconclusive, with the trials they need).
struct Split {
  std::size_t reachable = 0;
  std::vector<std::int64_t> needed;
  bool judge_all() const { return reachable == 0; }
};

// The claim of check 1 for (family, coupling): where another experiment judges the same closed form, the name it has
// there, so that the ledger shows one claim (Lemma 2's iid forms as in `mse`, Reid et al.'s simplex form as in
// `orthogonal`); the coupling then stands in the check's `where`.
std::string closed_form_claim(Family e, Coupling c) {
  const std::string family(estimator_name(e));
  if (c == Coupling::iid && (e == Family::positive || e == Family::hyperbolic || e == Family::trig))
    return "Lemma 2: MSE(" + family + ") closed form";
  if (c == Coupling::simplex && e == Family::positive)
    return "Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo";
  return "Exact MSE (" + family + ", " + std::string(coupling_name(c)) + ") = Monte Carlo";
}

std::string coupling_where(Coupling c, const std::string& where) {
  return std::string(coupling_name(c)) + " rows, " + where;
}

// Per cell, before looking at any figure: its closed form (none: no check), a-priori skewness and label.
struct CellTheory {
  std::optional<double> mse;
  double skewness = 0;
  std::string label;
};

// The sweeps of every (d, coupling), all of one shape (specs × points); check k = (d index · couplings +
// coupling) · specs + spec judges the cells k · points + point.
class EstimatorsRun {
 public:
  EstimatorsRun(const EstimatorsGrid& grid, const RunContext& ctx)
      : options_(grid), estimators_(grid.estimators), couplings_(grid.couplings),
        importance_trials_(grid.importance_trials), ctx_(ctx), sweeps_(pilots(), part_progress(ctx.progress, 0, 2)),
        np_(grids_.front().points.size()), specs_per_sweep_(sweeps_.cells_per_sweep() / np_) {
    for (std::size_t cell = 0; cell < sweeps_.cells(); ++cell) {
      const Grid& g = grid_of(cell / np_);
      const Family e = family_of(cell / np_);
      const Geometry& x = g.points[cell % np_];
      // The iid squared-error skewness stands in for coupled rows (same marginals, coupled dependence).
      theory_.push_back({exact_mse(e, coupling_of(cell / np_), x, g.d, g.d, options_.parameters),
                         error_moments(e, x, g.d, g.d, options_.parameters).squared_error_skewness, point_label(x)});
    }
    split_alpha();
    sample_by_importance();
  }

  // Adds the run's rows and checks to `result`; returns where each cell's looks stopped.
  LookRecord add_to(Result& result) {
    std::vector<ClaimCheck> scratch;  // judges of the looks; the checks below judge each point at its last look
    for (std::size_t k = 0; k < checks(); ++k) scratch.push_back(check_of(k));
    const LookRecord looks = sweeps_.take_looks(
        ctx_.looks,
        [&](std::size_t cell, int look) {
          // A cell without a closed form has nothing to settle: it stops drawing after the pilot; so does a point
          // that importance sampling settled.
          if (!theory_[cell].mse) return PointVerdict{Verdict::holds};
          if (const auto it = sampled_.find(cell / np_);
              it != sampled_.end() && it->second.verdicts[cell % np_].status != Verdict::inconclusive)
            return it->second.verdicts[cell % np_];
          return scratch[cell / np_].judge(judged_evidence(cell, look));
        },
        ctx_.progress);
    const std::size_t per_d = couplings_.size() * specs_per_sweep_;  // checks per d, in the order of the rows
    for (std::size_t di = 0; di < grids_.size(); ++di) {
      for (std::size_t k = di * per_d; k < (di + 1) * per_d; ++k) add_check(k, looks, result);
      const Grid& g = grids_[di];
      add_exact_comparisons(result, g.points, g.where(), [&](Family e, Coupling c, const Geometry& x) {
        return exact_mse(e, c, x, g.d, g.d, options_.parameters);
      });
    }
    return looks;
  }

  std::int64_t evaluations() const { return sweeps_.evaluations(); }

 private:
  // Check 5 of one (family, coupling, d): the importance-sampled runs and verdicts per point, and its check.
  struct ImportanceRun {
    std::vector<CoupledImportanceSampledMse> runs;
    std::vector<PointVerdict> verdicts;
    Check check;
  };

  // The pilots of one sweep per (d, coupling), in check order; sets grids_.
  std::vector<SweepConfig> pilots() {
    std::vector<SweepConfig> configs;
    for (std::size_t di = 0; di < options_.dims.size(); ++di) {
      const int d = options_.dims[di];
      Grid g{d, options_.points[di], {}};
      for (Family e : estimators_) g.specs.push_back({e, d});
      for (Coupling c : couplings_)
        configs.push_back({d, c, g.specs, g.points, ctx_.seed,
                           7000 + 16 * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(c), ctx_.trials,
                           ctx_.threads, options_.parameters});
      grids_.push_back(std::move(g));
    }
    return configs;
  }

  std::size_t checks() const { return sweeps_.cells() / np_; }
  const Grid& grid_of(std::size_t k) const { return grids_[k / specs_per_sweep_ / couplings_.size()]; }
  Coupling coupling_of(std::size_t k) const { return couplings_[k / specs_per_sweep_ % couplings_.size()]; }
  Family family_of(std::size_t k) const { return grids_.front().specs[k % specs_per_sweep_].estimator; }

  PointEvidence evidence(std::size_t cell, int look) const {
    const SweepCell& c = sweeps_.cell(cell);
    PointEvidence ev{c.error.mean_square(), theory_[cell].mse.value_or(0.0), c.error.mean_square_stderr(),
                     std::pow(kRoundingAllowance * sweeps_.truth(cell), 2), theory_[cell].skewness, c.error.count(),
                     c.nonfinite, theory_[cell].label};
    ev.look = ctx_.looks.sequential() ? look : -1;  // a fixed-size run is judged at the whole α
    return ev;
  }

  // Each check (a sweep's spec with a closed form) splits its family α over the points whose z interval is reliable
  // by the last look (decided by the a-priori skewness on the pilot, before looking at the figures); the others are
  // inconclusive points of the check, with the trials they would need, so a check never holds over part of its grid.
  void split_alpha() {
    const std::int64_t last_trials = look_trials(ctx_.trials, ctx_.looks.max_looks - 1);
    splits_.resize(checks());
    for (std::size_t k = 0; k < splits_.size(); ++k) {
      if (!theory_[k * np_].mse) continue;
      ClaimCheck probe("probe", "", options_.alpha, np_);
      for (std::size_t p = 0; p < np_; ++p) {
        const PointVerdict v = probe.judge(evidence(k * np_ + p, -1));
        const bool reachable = v.reliable || (v.trials_needed > 0 && v.trials_needed <= last_trials);
        splits_[k].reachable += reachable ? 1 : 0;
        splits_[k].needed.push_back(reachable ? 0 : v.trials_needed);
      }
    }
  }

  PointEvidence judged_evidence(std::size_t cell, int look) const {
    PointEvidence ev = evidence(cell, look);
    // A point left out of the split still counts, as unreliable: its trial requirement from the probe.
    const Split& split = splits_[cell / np_];
    if (!split.judge_all()) ev.min_trials = std::max(ev.min_trials, split.needed[cell % np_]);
    return ev;
  }

  ClaimCheck check_of(std::size_t k) const {
    const Split& split = splits_[k];
    return ClaimCheck(closed_form_claim(family_of(k), coupling_of(k)),
                      coupling_where(coupling_of(k), grid_of(k).where()) +
                          (split.judge_all() ? " (none is reliable at this trial count)"
                                             : " (alpha split over the " + std::to_string(split.reachable) +
                                                   " whose Monte Carlo is reliable at " +
                                                   (ctx_.looks.sequential() ? "the last look's" : "this") +
                                                   " trial count)"),
                      options_.alpha, split.judge_all() ? np_ : split.reachable);
  }

  bool is_sampled(std::size_t k) const {
    return importance_trials_ > 0 && theory_[k * np_].mse && is_importance_estimator(family_of(k)) &&
           is_importance_coupling(coupling_of(k));
  }

  // Check 5's importance-sampled runs, by check index k, before the looks: a point they settle needs no more plain
  // trials (its combined line is settled there), so the looks draw only where neither method has settled it.
  void sample_by_importance() {
    std::size_t runs = 0, done = 0;
    for (std::size_t k = 0; k < checks(); ++k) runs += is_sampled(k) ? 1 : 0;
    for (std::size_t di = 0; di < grids_.size() && runs > 0; ++di) {
      const Grid& g = grids_[di];
      for (std::size_t s = 0; s < g.specs.size(); ++s) {
        const Family e = g.specs[s].estimator;
        std::vector<RowProposal> proposals;  // the one-row proposals, per point: shared by the couplings
        for (std::size_t ci = 0; ci < couplings_.size(); ++ci) {
          const std::size_t k = (di * couplings_.size() + ci) * specs_per_sweep_ + s;
          if (!is_sampled(k)) continue;
          if (proposals.empty())
            for (const Geometry& x : g.points) proposals.push_back(optimal_row_proposal(e, x));
          const std::uint64_t stream =
              kEstimatorsImportanceStream + (((di * 8 + static_cast<std::uint64_t>(couplings_[ci])) * 64 + s) << 32);
          sampled_.emplace(k, importance_run(k, proposals, stream,
                                             part_progress(part_progress(ctx_.progress, 1, 2), done++, runs)));
        }
      }
    }
  }

  // Check 5's run for check k: the exact MSE against an importance-sampled MSE at every point.
  ImportanceRun importance_run(std::size_t k, const std::vector<RowProposal>& proposals, std::uint64_t stream,
                               const ProgressFn& progress) const {
    const Grid& g = grid_of(k);
    const Family e = family_of(k);
    const Coupling c = coupling_of(k);
    ClaimCheck check(closed_form_claim(e, c) + ", importance-sampled",
                     coupling_where(c, g.where()) + ", " + std::to_string(importance_trials_) +
                         " trials per point, proposal tilting one row along x+y (a mixture over the rows)",
                     options_.alpha, g.points.size());
    ImportanceRun run;
    for (std::size_t p = 0; p < g.points.size(); ++p) {
      const Geometry& x = g.points[p];
      run.runs.push_back(importance_sampled_coupled_mse(e, c, x, g.d, g.d, importance_trials_, ctx_.seed, stream + p,
                                                        ctx_.threads, proposals[p],
                                                        part_progress(progress, p, g.points.size())));
      const CoupledImportanceSampledMse& r = run.runs.back();
      run.verdicts.push_back(check.judge({r.mse, *exact_mse(e, c, x, g.d, g.d, options_.parameters), r.mse_stderr,
                                          std::pow(kRoundingAllowance * sweeps_.truth(k * np_ + p), 2),
                                          r.gate_skewness(), r.trials, r.nonfinite, point_label(x)}));
    }
    run.check = check.result();
    return run;
  }

  // One cell's row; its verdict where the cell has a closed form (what check 5 combines with).
  Json row(std::size_t cell, const LookRecord& looks, std::optional<ClaimCheck>& check,
           PointVerdict& verdict) const {
    const std::size_t k = cell / np_;
    const Grid& g = grid_of(k);
    const Family e = family_of(k);
    const Coupling coupling = coupling_of(k);
    const Geometry& x = g.points[cell % np_];
    const SweepCell& c = sweeps_.cell(cell);
    Json row = estimator_row(e, coupling, g.d, g.d, x);
    row["z_norm"] = std::sqrt(x.z_sq());
    row["mse"] = c.error.mean_square();
    row["mse_stderr"] = c.error.mean_square_stderr();
    row["mse_exact"] = check ? Json(*theory_[cell].mse) : Json(nullptr);
    row["reference_mse"] = *exact_mse(Family::positive, Coupling::iid, x, g.d, g.d, options_.parameters);
    // For compare: the truth (the MSE's rounding scale), the a-priori skewness of one squared error (iid value,
    // standing in for coupled rows as above) and its closed-form variance (exact for iid rows only).
    const ErrorMoments em = error_moments(e, x, g.d, g.d, options_.parameters);
    row["truth"] = sweeps_.truth(cell);
    row["mse_skewness"] = number_or_null(em.squared_error_skewness);
    row["mse_draw_variance"] = coupling == Coupling::iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
    add_compare_fields(row, options_.parameters);  // coupled rows: bounds; bounded estimators: ranges
    row["trials"] = c.error.count();
    row["nonfinite"] = c.nonfinite;
    if (ctx_.looks.sequential()) row["look"] = looks.cell_look[cell];
    if (check) {
      verdict = check->judge(judged_evidence(cell, looks.cell_look[cell]));
      row["status"] = verdict.status;
      row["trials_needed"] = trials_json(verdict.trials_needed);
    }
    return row;
  }

  // Check k's rows and checks: check 1 where a closed form exists, then check 5 and its combination.
  void add_check(std::size_t k, const LookRecord& looks, Result& result) const {
    std::optional<ClaimCheck> check;
    if (theory_[k * np_].mse) check.emplace(check_of(k));
    std::vector<PointVerdict> plain(np_);  // what the importance-sampled check combines with
    for (std::size_t p = 0; p < np_; ++p) result.rows.push_back(row(k * np_ + p, looks, check, plain[p]));
    if (check) result.checks.push_back(check->result());
    const auto it = sampled_.find(k);
    if (it == sampled_.end()) return;
    const ImportanceRun& run = it->second;
    const Grid& g = grid_of(k);
    EitherCheck either = plain_or_importance_sampled(closed_form_claim(family_of(k), coupling_of(k)),
                                                     coupling_where(coupling_of(k), g.where()), importance_trials_);
    for (std::size_t p = 0; p < np_; ++p) {
      add_importance_fields(result.rows[result.rows.size() - np_ + p], run.runs[p], run.verdicts[p]);
      either.add(plain[p], run.verdicts[p], point_label(g.points[p]));
    }
    result.checks.push_back(run.check);
    result.checks.push_back(either.result());
  }

  // Checks 2–4: a ≤ b on the exact values wherever both closed forms exist and both sides were asked for.
  template <class Exact>
  void add_exact_comparisons(Result& result, const std::vector<Geometry>& points, const std::string& where,
                             const Exact& exact) const {
    const auto has = [](const auto& list, auto x) { return std::find(list.begin(), list.end(), x) != list.end(); };
    struct Claim {
      std::string name;
      Family a;
      Coupling ca;
      Family b;
      Coupling cb;
    };
    std::vector<Claim> claims;
    for (Coupling c : couplings_)
      claims.push_back({"FAVOR++: MSE(oprf) <= MSE(positive), " + std::string(coupling_name(c)) + " rows",
                        Family::oprf, c, Family::positive, c});
    // The positive one is `orthogonal`'s claim on its exact values, named as there.
    for (Family e : {Family::positive, Family::oprf})
      claims.push_back({"Simplex RFs (" + std::string(estimator_name(e)) + "): MSE(simplex) <= MSE(orthogonal), exact "
                        "values",
                        e, Coupling::simplex, e, Coupling::orthogonal});
    claims.push_back({"FAVOR#: MSE(sderf) <= MSE(oprf), iid rows", Family::sderf, Coupling::iid, Family::oprf,
                      Coupling::iid});
    for (const Claim& c : claims) {
      if (!has(estimators_, c.a) || !has(estimators_, c.b) || !has(couplings_, c.ca) || !has(couplings_, c.cb))
        continue;
      if (!exact(c.a, c.ca, points.front()) || !exact(c.b, c.cb, points.front())) continue;
      ExactInequality check(c.name, "exact closed forms, " + where);
      for (const Geometry& g : points)
        check.judge(*exact(c.a, c.ca, g), *exact(c.b, c.cb, g), std::exp(2 * g.dot()), point_label(g),
                    std::sqrt(g.z_sq()));
      result.checks.push_back(check.result());
    }
  }

  const EstimatorsGrid& options_;
  const std::vector<Family> estimators_;
  const std::vector<Coupling> couplings_;
  const std::int64_t importance_trials_;
  const RunContext& ctx_;
  std::vector<Grid> grids_;  // set by pilots(), before sweeps_
  SweepSet sweeps_;
  const std::size_t np_, specs_per_sweep_;
  std::vector<CellTheory> theory_;
  std::vector<Split> splits_;
  std::map<std::size_t, ImportanceRun> sampled_;
};

}  // namespace

EstimatorsOutcome run_estimators(const EstimatorsGrid& grid, const RunContext& ctx, Result& result) {
  EstimatorsRun run(grid, ctx);
  EstimatorsOutcome out;
  out.looks = run.add_to(result);
  out.evaluations = run.evaluations();
  return out;
}

}  // namespace favorlab
