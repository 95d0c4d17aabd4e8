// evaluation/estimators_run.hpp on a small grid: a row per family × coupling × point, check 1 per pair with a closed
// form (held where the plain Monte Carlo is reliable), the exact comparisons OPRF <= positive for each coupling,
// and at a handful of trials no point is reliable, so check 1 is inconclusive over the whole grid rather than holding
// over part of it.
#include <catch2/catch.hpp>

#include "evaluation/estimators_run.hpp"

using namespace favorlab;

namespace {

EstimatorsGrid small_grid() {
  EstimatorsGrid g;
  g.dims = {4};
  g.points = {{{0.25, 0.25, -0.9}, {0.5, 0.25, -0.5}}};
  g.estimators = {Family::positive, Family::oprf};
  g.couplings = {Coupling::iid, Coupling::orthogonal};
  g.importance_trials = 0;
  return g;
}

const Check* find_check(const Result& r, const std::string& claim) {
  for (const Check& c : r.checks)
    if (c.claim == claim) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("estimators run: rows, closed-form checks and exact comparisons on a small grid", "[estimators]") {
  RunContext ctx;
  ctx.seed = 5;
  ctx.trials = 160000;
  ctx.threads = 2;
  Result result;
  const EstimatorsOutcome out = run_estimators(small_grid(), ctx, result);
  CHECK(result.rows.size() == 2 * 2 * 2);
  CHECK(out.evaluations > 0);
  CHECK(out.looks.cell_look.size() == 8);
  const Check* lemma = find_check(result, "Lemma 2: MSE(positive) closed form");
  REQUIRE(lemma != nullptr);
  CHECK(lemma->status != Verdict::violated);
  CHECK(lemma->points_held >= 1);  // the light-tailed point; the other needs more trials for +-2 %
  CHECK(lemma->where.find("iid rows, d=4, m=4, 2 points") == 0);
  const Check* oprf = find_check(result, "FAVOR++: MSE(oprf) <= MSE(positive), orthogonal rows");
  REQUIRE(oprf != nullptr);
  CHECK(oprf->status == Verdict::holds);
  CHECK(result.rows[0]["status"] == "holds");

  RunContext few = ctx;
  few.trials = 4;
  Result thin;
  run_estimators(small_grid(), few, thin);
  const Check* open = find_check(thin, "Lemma 2: MSE(positive) closed form");
  REQUIRE(open != nullptr);
  CHECK(open->status == Verdict::inconclusive);
  CHECK(open->where.find("none is reliable at this trial count") != std::string::npos);
}
