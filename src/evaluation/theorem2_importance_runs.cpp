#include "evaluation/theorem2_importance_runs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "features/family_theory.hpp"
#include "kernels/smreg.hpp"
#include "kernels/softmax_kernel.hpp"
#include "stats/either_check.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

// Streams of the importance-sampled runs, disjoint from the sweeps' (below 3000): base + (3·d index + kind)·2³² + cell.
constexpr std::uint64_t kTheorem2ImportanceStream = 0x1700'0000ULL;
// smreg's: base + (2·d index + coupling)·2³² + cell (cells stay below 2²⁴, so the two bases never meet).
constexpr std::uint64_t kSphereImportanceStream = 0x1800'0000ULL;

// Where simplex ≤ orthogonal is judged on paired trials (mc/paired_simplex_gap.hpp).
const std::string kPairedRows = "paired trials (one frame and one set of row norms for both couplings), ";

// A check line of the runs: the claim (without its method), where (after the projections' name), its sides, and
// where its combined line is.
struct ImportanceLine {
  std::string claim, where, either_where;
  ClaimCheck::Sides sides = ClaimCheck::Sides::two;
};

std::vector<ImportanceLine> lines(const Theorem2ImportanceRuns& r) {
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
std::vector<std::size_t> lines_of(std::size_t k) {
  return k == 2 ? std::vector<std::size_t>{2, 3} : std::vector<std::size_t>{k};
}

std::vector<ClaimCheck> line_checks(const Theorem2ImportanceRuns& r, double alpha) {
  std::vector<ClaimCheck> out;
  const std::size_t n = r.cells.ms.size() * r.cells.points.size();
  for (const ImportanceLine& l : lines(r))
    out.emplace_back(l.claim + ", importance-sampled", l.where, alpha, n, l.sides);
  return out;
}

std::string cell_label(const Theorem2ImportanceRuns& r, const Theorem2ImportanceCell& c) {
  return "m=" + std::to_string(r.cells.ms[c.i]) + ", " + point_label(r.cells.points[c.p]);
}

// The cell's evidence per line (lines_of order), judged at `look` (−1: a fixed-size run).
std::vector<PointEvidence> cell_evidence(const Theorem2ImportanceRuns& r, const Theorem2ImportanceCell& c, int look) {
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
void draw_cell(const Theorem2ImportanceRuns& r, Theorem2ImportanceCell& c, std::int64_t trials, std::uint64_t seed,
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

// The plain verdict recorded for (claim, point); inconclusive where the plain sweep did not judge it.
PointVerdict plain_verdict(const PlainVerdicts& plain, const std::string& claim, const std::string& label) {
  const auto it = plain.find({claim, label});
  return it == plain.end() ? PointVerdict{} : it->second;
}

// A cell's verdict for the looks: settled when every line it feeds is settled at its point by importance sampling
// or by the plain check; else the open line's verdict that more trials can still settle (or the first open one).
PointVerdict look_verdict(const Theorem2ImportanceRuns& r, const Theorem2ImportanceCell& c, int look,
                          std::vector<ClaimCheck>& scratch, std::int64_t last_trials) {
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

// Simplex ≤ orthogonal on paired trials: at m = 1 the two rows of a trial are one vector, so the difference is 0
// on every trial and those points hold to rounding; the check says why.
Check with_paired_note(Check check, const std::vector<int>& ms) {
  if (std::find(ms.begin(), ms.end(), 1) != ms.end())
    check.detail += "; at m=1 a paired trial's simplex row is its orthogonal row (one row has the same law under "
                    "both couplings), so the difference is 0 on every trial and those points hold to rounding";
  return check;
}

// The row of cell (e, c, d, m, g) gets the importance-sampled figures of its run and verdict; returns it.
Json& annotate(Result& result, Family e, Coupling c, int d, int m, const Geometry& g,
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

// The runs' checks, each point judged at its cell's last look (cell_look, or −1 for a fixed-size run), with their
// combined lines; annotates the cells' rows.
void importance_checks(Result& result, const Theorem2ImportanceRuns& r, const std::vector<int>& cell_look,
                       double alpha) {
  const std::vector<ImportanceLine> ls = lines(r);
  std::vector<ClaimCheck> checks = line_checks(r, alpha);
  std::vector<EitherCheck> either;
  for (const ImportanceLine& l : ls) either.push_back(plain_or_importance_sampled(l.claim, l.either_where, r.trials));
  for (std::size_t ci = 0; ci < r.runs.size(); ++ci) {
    const Theorem2ImportanceCell& c = r.runs[ci];
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

}  // namespace

Theorem2ImportanceRuns theorem2_importance_pilots(Family e, const Theorem2Cells& cells, std::size_t di, bool simplex,
                                                  std::int64_t trials, std::uint64_t seed, int threads,
                                                  const ProgressFn& progress, const PlainVerdicts& plain) {
  Theorem2ImportanceRuns r{e, cells, trials, plain, {Coupling::iid, Coupling::orthogonal}, {}, {}};
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
        Theorem2ImportanceCell c{k, i, p, 0, {}, {}, {}};
        if (sphere) {
          c.stream = kSphereImportanceStream + ((2 * di + k) << 32) + i * np + p;
          c.theory = {k == 0 ? iid_mse(Family::smreg, g, cells.d, m) : orthogonal_mse(Family::smreg, g, cells.d, m)};
        } else {
          c.stream = kTheorem2ImportanceStream + ((3 * di + k) << 32) + i * np + p;
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

std::optional<LookRecord> settle_theorem2_importance_runs(Result& result, std::vector<Theorem2ImportanceRuns>& all,
                                                          const LookPlan& plan, std::uint64_t seed, int threads,
                                                          const ProgressFn& progress, double pilot_seconds,
                                                          double alpha) {
  std::vector<std::pair<std::size_t, std::size_t>> flat;  // (run set, cell)
  std::vector<std::vector<ClaimCheck>> scratch;           // judges of the looks, per run set
  for (std::size_t s = 0; s < all.size(); ++s) {
    scratch.push_back(line_checks(all[s], alpha));
    for (std::size_t c = 0; c < all[s].runs.size(); ++c) flat.emplace_back(s, c);
  }
  if (flat.empty()) return std::nullopt;
  const std::int64_t pilot = all.front().trials;
  const std::int64_t last_trials = look_trials(pilot, plan.max_looks - 1);
  const LookRecord looks = run_looks(
      flat.size(), pilot, pilot_seconds, plan,
      [&](std::size_t cell, int look) {
        const auto [s, c] = flat[cell];
        return look_verdict(all[s], all[s].runs[c], plan.sequential() ? look : -1, scratch[s], last_trials);
      },
      [&](const std::vector<std::size_t>& cells, std::int64_t to) {
        for (std::size_t n = 0; n < cells.size(); ++n) {
          const auto [s, c] = flat[cells[n]];
          draw_cell(all[s], all[s].runs[c], to, seed, threads, part_progress(progress, n, cells.size()));
        }
      });
  std::size_t cell = 0;
  for (Theorem2ImportanceRuns& r : all) {
    std::vector<int> cell_look;
    for (std::size_t c = 0; c < r.runs.size(); ++c, ++cell)
      cell_look.push_back(plan.sequential() ? looks.cell_look[cell] : -1);
    importance_checks(result, r, cell_look, alpha);
  }
  return looks;
}

}  // namespace favorlab
