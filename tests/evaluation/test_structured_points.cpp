// evaluation/structured_points.hpp: check 1 holds on an unbiased cell and is violated on a biased one (the finding
// the check exists for); check 2 holds where the bias shrinks with d and is violated where it grows (a wrong
// theory); a point row carries its cell's figures, with one-draw variances only where they are exact (iid rows).
#include <catch2/catch.hpp>

#include <cmath>

#include "evaluation/structured_points.hpp"
#include "features/family_theory.hpp"

using namespace favorlab;

namespace {

const Geometry kPoint{0.5, 1.0, 0.5};

// A cell whose mean lies `bias` (relative) from the truth, with a standard error of 1e-3 of the truth.
CellFigures cell(double bias) {
  CellFigures f;
  f.truth = std::exp(kPoint.dot());
  f.mean = f.truth * (1 + bias);
  f.stderr_ = 1e-3 * f.truth;
  f.mse = 1e-2;
  f.mse_stderr = 1e-4;
  f.trials = 100000;
  return f;
}

}  // namespace

TEST_CASE("structured check 1: an unbiased cell holds, a biased one is detected", "[structured]") {
  const ErrorMoments em = error_moments(Family::positive, kPoint, 16, 16);
  ClaimCheck unbiased = structured_bias_claim(Coupling::hadamard, Family::positive, {16}, 1, 1e-3);
  CHECK(unbiased.judge(structured_bias_evidence(cell(0), em, 16, kPoint, -1)).status == Verdict::holds);
  const Check held = unbiased.result();
  CHECK(held.claim == "Structured features (B.2): E[positive estimate] = SM; a violation = bias detected");
  CHECK(held.where.find("hadamard projections with chi row norms, m=d, d in {16}, 1 geometries") == 0);
  ClaimCheck biased = structured_bias_claim(Coupling::iid, Family::positive, {16}, 1, 1e-3);
  CHECK(biased.judge(structured_bias_evidence(cell(0.02), em, 16, kPoint, -1)).status == Verdict::violated);
  CHECK(biased.result().claim == "Lemma 1 (control): E[positive estimate] = SM");
}

TEST_CASE("structured check 2: a bias that shrinks with d holds, one that grows is refuted", "[structured]") {
  const std::vector<Geometry> points{kPoint};
  const std::vector<ErrorMoments> em{error_moments(Family::positive, kPoint, 4, 4)};
  const Check shrinks = structured_shrink_check(Coupling::givens, Family::positive, 256, 4, points, {cell(0.001)},
                                                {cell(0.05)}, em, em, 1e-3);
  CHECK(shrinks.status == Verdict::holds);
  CHECK(shrinks.claim == "Structured features (B.2): |relative bias of positive| at d=256 <= at d=4");
  const Check grows = structured_shrink_check(Coupling::givens, Family::positive, 256, 4, points, {cell(-0.05)},
                                              {cell(0.001)}, em, em, 1e-3);
  CHECK(grows.status == Verdict::violated);
}

TEST_CASE("structured point row: the cell's figures, exact one-draw variances on iid rows only", "[structured]") {
  const ErrorMoments em = error_moments(Family::positive, kPoint, 16, 16);
  PointVerdict v;
  v.status = Verdict::holds;
  const CellFigures f = cell(0.01);
  const Json iid = structured_point_row(Family::positive, Coupling::iid, 16, kPoint, f, v, {1.5, 0.1}, em);
  CHECK(iid["kind"] == "point");
  CHECK(iid["method"].is_null());
  CHECK(iid["coupling"] == "iid");
  CHECK(iid["relative_bias"] == f.relative_bias());
  CHECK(iid["mse_ratio_to_orthogonal"] == 1.5);
  CHECK(iid["mean_draw_variance"] == em.variance);
  const Json had = structured_point_row(Family::positive, Coupling::hadamard, 16, kPoint, f, v, {1.5, 0.1}, em);
  CHECK(had["mean_draw_variance"].is_null());
  CHECK(had["mean_skewness"].is_null());  // no iid stand-in on rows of another law
  const Json schema = structured_row_schema();
  CHECK(schema["key"].size() == 8);
  CHECK(schema["statistics"][1]["value"] == "mse");
}
