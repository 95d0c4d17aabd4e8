// evaluation/theorem1_points.hpp: Theorem 1's deterministic checks — the series and the Bessel form agree and SMREG
// stays under SM on real points, while a planted discrepancy or a ratio above 1 fails them; the claimed bound holds
// for C below exp(1/sqrt 2) and is refuted above it (the paper's constant 2 is wrong there), the corrected one holds
// for both and is sharp at large d (a constant 1 % smaller would fail); and a ratio row carries its point's figures.
#include <catch2/catch.hpp>

#include <cmath>

#include "evaluation/theorem1_points.hpp"
#include "features/family_theory.hpp"
#include "kernels/smreg_ratio.hpp"
#include "kernels/theorem1_bound.hpp"

using namespace favorlab;

namespace {
constexpr double kTolerance = 1e-10;
}

TEST_CASE("Theorem 1 points: series and Bessel form agree, SMREG <= SM, planted faults fail", "[smreg]") {
  SmregRatioTally tally;
  for (int d : {2, 16, 256})
    for (double z : {0.1, 1.0, 10.0}) {
      const SmregRatio r = smreg_ratio(z, d);
      CHECK(r.gap > 0);
      CHECK(std::abs(r.log_exact - r.log_series) <= kTolerance);
      tally.compare(r.log_exact, r.log_series, r.gap, smreg_point_label(d, z), true);
    }
  CHECK(tally.compared == 9);
  CHECK(tally.strictly_below == 9);
  CHECK(smreg_series_check(tally, kTolerance).status == Verdict::holds);
  CHECK(smreg_upper_check(tally, kTolerance).status == Verdict::holds);

  SmregRatioTally off = tally;
  off.compare(-0.5, -0.5 + 1e-8, 0.4, "planted", true);  // the two forms differ by 1e-8
  const Check series = smreg_series_check(off, kTolerance);
  CHECK(series.status == Verdict::violated);
  CHECK(series.detail.find("at planted") != std::string::npos);
  SmregRatioTally above = tally;
  above.compare(1e-9, 1e-9, -1e-9, "planted", true);  // SMREG above SM
  CHECK(smreg_upper_check(above, kTolerance).status == Verdict::violated);

  SmregRatioTally underflow = tally;
  underflow.compare(-std::numeric_limits<double>::infinity(), -3, 0.9, "d=huge", true);
  underflow.compare(-std::numeric_limits<double>::infinity(), -3, 0.9, "d=asymptote", false);
  CHECK(underflow.unavailable == 1);
  CHECK(underflow.unavailable_asymptote == 1);
  const Check partial = smreg_series_check(underflow, kTolerance);
  CHECK(partial.points_inconclusive == 1);
  CHECK(partial.detail.find("e.g. d=huge") != std::string::npos);
}

TEST_CASE("Theorem 1 bound: the constant 2 holds below C = exp(1/sqrt 2) and fails above, the corrected one holds",
          "[smreg]") {
  SmregRatioTally tally;
  Json rows = Json::array();
  const std::vector<int> dims{16, 4, 64}, asymptote{4194304, 64};
  const Theorem1BoundChecks below = theorem1_bound_rows(2.0, dims, asymptote, kTolerance, tally, rows);
  CHECK(below.claimed.status == Verdict::holds);
  CHECK(below.corrected.status == Verdict::holds);
  REQUIRE(rows.size() == 4);  // 4, 16, 64, 4194304: sorted, 64 once
  CHECK(rows[0]["d"] == 4);
  CHECK(rows[3]["d"] == 4194304);
  CHECK(rows[3]["asymptote_only"] == true);
  CHECK(rows[2]["asymptote_only"] == false);
  CHECK(rows[1]["d_gap"].get<double>() <= theorem1_gap_limit(2.0) * (1 + kTolerance));

  const Theorem1BoundChecks above = theorem1_bound_rows(3.0, dims, asymptote, kTolerance, tally, rows);
  CHECK(above.claimed.status == Verdict::violated);  // (2 ln 3)^2 = 4.83 > 2
  CHECK(above.claimed.statistic == Approx(theorem1_gap_limit(3.0) - 2));
  CHECK(above.corrected.status == Verdict::holds);
  // Sharp: at d = 4194304 the gap reaches (2 ln C)^2 to within 1 %, so a corrected constant 1 % smaller would fail.
  CHECK(above.corrected.statistic <= 0);
  CHECK(above.corrected.statistic > -0.01);
  CHECK(tally.compared == 8);
}

TEST_CASE("Theorem 1 ratio row: the point's ratios, its Monte Carlo mean and verdict", "[smreg]") {
  const double z = 1.5;
  const int d = 8, m = 16;
  const Geometry g = smreg_ratio_geometry(z);
  const SmregRatio ratio = smreg_ratio(z, d);
  SweepCell cell;
  for (double e : {0.1, -0.2, 0.05, 0.0}) cell.error.add(e);
  const double truth = std::exp(ratio.log_exact) * std::exp(g.dot());
  const PointEvidence ev{truth + cell.error.mean(), truth, cell.error.standard_error(), 0, 0.5, 4, 0, "p"};
  PointVerdict v;
  v.status = Verdict::holds;
  v.z = 0.3;
  const ErrorMoments em = error_moments(Family::smreg, g, d, m);
  const Json row = smreg_ratio_row(d, m, z, g, ratio, ev, v, cell, em);
  CHECK(row["kind"] == "ratio");
  CHECK(row["estimator"] == "smreg");
  CHECK(row["d"] == d);
  CHECK(row["w"] == z * z / 2);
  CHECK(row["ratio_series"] == std::exp(ratio.log_series));
  CHECK(row["truth"] == truth);
  CHECK(row["mc_ratio"] == ev.empirical / std::exp(g.dot()));
  CHECK(row["trials"] == 4);
  CHECK(row["status"] == "holds");
  CHECK(row["error_skewness"] == em.error_skewness);
}
