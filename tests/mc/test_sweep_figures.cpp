// The figures of estimator sweeps (mc/sweep_figures.hpp) and the closed forms of Theorem 2 at a point
// (features/theorem2_point.hpp), as the estimator experiments (orthogonal, structured) use them: hand-computed
// figures of known errors, the delta-method ratio and the difference evidence, and a statistical test of the
// difference's standard error on two real sweeps against the exact MSEs (two-sided, alpha = 1e-3).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "features/family_theory.hpp"
#include "features/theorem2_point.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/sweep_figures.hpp"

using namespace favorlab;

namespace {

SweepCell cell_of(std::initializer_list<double> errors, std::int64_t nonfinite) {
  SweepCell cell;
  for (double e : errors) cell.error.add(e);
  cell.nonfinite = nonfinite;
  return cell;
}

}  // namespace

TEST_CASE("sweep figures: mean, MSE, their standard errors and the relative bias of known errors", "[sweep-figures]") {
  // Two specs × two points, spec-major; cell (1, 0) holds the errors 1, 2, 3 around truth −10.
  SweepResult sweep;
  sweep.truth = {1.0, 2.0, -10.0, 4.0};
  sweep.truth_stride = 2;
  sweep.cells = {cell_of({0.5, -0.5}, 0), cell_of({1, 1}, 0), cell_of({1, 2, 3}, 2), cell_of({0, 0}, 1)};
  const std::vector<CellFigures> f = sweep_figures(sweep);
  REQUIRE(f.size() == 4);
  const CellFigures& c = f[2];
  CHECK(c.truth == -10.0);
  CHECK(c.mean == Approx(-8.0).epsilon(1e-15));
  CHECK(c.stderr_ == Approx(1 / std::sqrt(3.0)).epsilon(1e-14));  // sample SD 1 over √3
  CHECK(c.mse == Approx(14.0 / 3).epsilon(1e-14));                  // (1 + 4 + 9)/3
  // Squared errors 1, 4, 9: sample variance (121 + 4 + 169)/9/2 = 49/3, SE √(49/9) = 7/3.
  CHECK(c.mse_stderr == Approx(7.0 / 3).epsilon(1e-13));
  CHECK(c.trials == 3);
  CHECK(c.nonfinite == 2);
  CHECK(c.relative_bias() == Approx(-0.2).epsilon(1e-14));  // (−8 − (−10))/(−10)
  CHECK(c.relative_bias_stderr() == Approx(1 / std::sqrt(3.0) / 10).epsilon(1e-14));
  CHECK(f[1].mean == 3.0);
  CHECK(f[1].stderr_ == 0.0);
  CHECK(f[3].nonfinite == 1);
  CHECK(f[0].mse == Approx(0.25).epsilon(1e-15));
}

TEST_CASE("sweep figures: the MSE ratio and the evidence on a difference of independent MSEs", "[sweep-figures]") {
  CellFigures a, b;
  a.mse = 2, a.mse_stderr = 0.2, a.trials = 100, a.nonfinite = 1;
  b.mse = 4, b.mse_stderr = 0.3, b.trials = 80, b.nonfinite = 2;
  const MseRatio r = independent_mse_ratio(a, b);
  CHECK(r.value == 0.5);
  CHECK(r.stderr_ == Approx(0.5 * 0.125).epsilon(1e-14));  // √(0.1² + 0.075²) = 0.125
  const PointEvidence ev = mse_difference_evidence(a, b, 1.5, 1e-9, 2.5, 7.0, "here");
  CHECK(ev.empirical == Approx(-0.5).epsilon(1e-15));
  CHECK(ev.theory == 0);
  CHECK(ev.standard_error == Approx(std::sqrt(0.13)).epsilon(1e-14));
  CHECK(ev.allowance == 1e-9);
  CHECK(ev.skewness == 2.5);
  CHECK(ev.scale == 7.0);
  CHECK(ev.trials == 80);
  CHECK(ev.nonfinite == 3);
  CHECK(ev.label == "here");

  SweepTally tally;
  CHECK(tally.per_second() == 0.0);
  SweepResult s;
  s.evaluations = 300, s.seconds = 1.5;
  tally.add(s);
  tally.add(s);
  CHECK(tally.evaluations == 600);
  CHECK(tally.per_second() == Approx(200.0));
}

TEST_CASE("sweep figures: MSE(orthogonal) - MSE(iid) of two sweeps covers the exact difference (alpha = 1e-3)",
          "[sweep-figures][statistical]") {
  // Light tails (‖z‖² = 0.18): the z interval is reliable at these trial counts. Two-sided α = 1e-3: z = 3.29.
  const int d = 4, m = 4;
  const Geometry g{0.3, 0.3, 0.0};
  SweepConfig config{d, Coupling::iid, {{Family::positive, m}}, {g}, 2024, 1, 120000, 2, FeatureParameters{}};
  const CellFigures iid = sweep_figures(run_estimator_sweep(config)).front();
  config.coupling = Coupling::orthogonal;
  config.stream = 2;
  const CellFigures ort = sweep_figures(run_estimator_sweep(config)).front();
  const double exact = orthogonal_mse(Family::positive, g, d, m) - iid_mse(Family::positive, g, d, m);
  const PointEvidence ev = mse_difference_evidence(ort, iid, -exact, 0, 0, 1, "g");
  INFO("difference " << ort.mse - iid.mse << ", exact " << exact << ", SE " << ev.standard_error);
  CHECK(std::abs(ev.empirical) < 3.29 * ev.standard_error);
  // Power: the orthogonal gain itself is detected at the same level. The exact gap, −0.0019, is 6.5 SEs of the
  // difference at these trial counts (SE ≈ 0.0003), so this fails with probability about Φ(3.29 − 6.5) ≈ 7e-4.
  CHECK(std::abs(ort.mse - iid.mse) > 3.29 * ev.standard_error);
}

TEST_CASE("Theorem 2 at a point: the claimed gap and the corrected bound from K and Lambda", "[kernels][orthogonal]") {
  const Geometry g{0.8, 0.6, 0.3};
  const int d = 8, m = 4;
  const Theorem2Point p = theorem2_point(Family::positive, g, d, m);
  CHECK(p.iid_mse == iid_mse(Family::positive, g, d, m));
  CHECK(p.orthogonal_mse == orthogonal_mse(Family::positive, g, d, m));
  const double k = std::exp(g.dot()), lambda = std::exp(g.log_lambda());
  CHECK(p.claimed_gap() == Approx(0.75 * 2.0 / 10 * k * k).epsilon(1e-12));
  CHECK(p.iid_mse - p.corrected_bound == Approx(0.75 * 2.0 / 10 * (k - lambda) * (k - lambda)).epsilon(1e-10));
  // One feature has no pair to couple: orthogonal = iid and no gap is claimed.
  const Theorem2Point one = theorem2_point(Family::smreg, g, d, 1);
  CHECK(one.orthogonal_mse == Approx(one.iid_mse).epsilon(1e-12));
  CHECK(one.claimed_gap() == 0.0);
  CHECK_THROWS_AS(theorem2_point(Family::trig, g, d, m), std::invalid_argument);
  CHECK_THROWS_AS(theorem2_point(Family::positive, g, d, d + 1), std::invalid_argument);
}
