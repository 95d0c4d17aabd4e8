// evaluation/lemma2_comparisons.hpp: the ratio check's paths and the cells it pairs; on one real sweep both claims
// hold, and fed the wrong theory — trig and positive swapped (the ratio then falls as SM -> 0), hyperbolic's MSE above
// positive's at 2m — each is violated; the plain-or-sampled line exists only where both methods judged the same points.
#include <catch2/catch.hpp>

#include <cmath>

#include "evaluation/lemma2_comparisons.hpp"
#include "mc/sweep_figures.hpp"

using namespace favorlab;

namespace {

// x_norm = y_norm = r at cos -0.9 (one path of three points) and one point off every path.
const std::vector<Geometry> kPoints{{1.0, 1.0, -0.9}, {1.5, 1.5, -0.9}, {2.0, 2.0, -0.9}, {1.0, 0.5, -0.9}};

std::vector<MseFigure> figures_of(const SweepResult& sweep, std::size_t spec) {
  std::vector<MseFigure> out;
  for (std::size_t p = 0; p < kPoints.size(); ++p) {
    const SweepCell& c = sweep.cell(spec, p);
    out.push_back({c.error.mean_square(), c.error.mean_square_stderr(), 0, c.error.count(), c.nonfinite});
  }
  return out;
}

}  // namespace

TEST_CASE("Lemma 2 comparisons: the ratio's paths and the cells the sweep must pair", "[mse]") {
  const auto steps = lemma2_ratio_steps(kPoints);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0] == std::pair<std::size_t, std::size_t>{0, 1});
  CHECK(steps[1] == std::pair<std::size_t, std::size_t>{1, 2});
  const std::vector<EstimatorSpec> specs{{Family::trig, 8}, {Family::positive, 8}, {Family::hyperbolic, 8},
                                         {Family::positive, 16}};
  CHECK(find_estimator_spec(specs, Family::positive, 16) == 3u);
  CHECK(!find_estimator_spec(specs, Family::hyperbolic, 16));
  // Per step the 6 pairs of its 4 cells; per point one hyperbolic / positive-at-2m pair.
  CHECK(lemma2_combined_cells(specs, 8, kPoints).size() == 2 * 6 + 4);
}

TEST_CASE("Lemma 2 comparisons hold on a sweep and fail on the wrong theory", "[mse]") {
  const std::vector<EstimatorSpec> specs{{Family::trig, 8}, {Family::positive, 8}, {Family::hyperbolic, 8},
                                         {Family::positive, 16}};
  const SweepConfig config{4, Coupling::iid, specs, kPoints, 11, 1, 20000, 2, FeatureParameters{}};
  const SweepResult sweep = run_estimator_sweep(config, {}, lemma2_combined_cells(specs, 8, kPoints));
  const auto trig = figures_of(sweep, 0), pos = figures_of(sweep, 1), hyp = figures_of(sweep, 2),
             pos2 = figures_of(sweep, 3);
  JudgedPoints judged;
  const Check ratio = lemma2_ratio_check(kPoints, sweep, 0, 1, trig, pos, false, 8, 1e-3, judged);
  CHECK(ratio.status == Verdict::holds);
  CHECK(judged.size() == 2);
  JudgedPoints swapped;
  CHECK(lemma2_ratio_check(kPoints, sweep, 1, 0, pos, trig, false, 8, 1e-3, swapped).status == Verdict::violated);
  JudgedPoints hyperbolic;
  CHECK(lemma2_hyperbolic_check(kPoints, sweep, 2, 3, hyp, pos2, false, 8, 1e-3, hyperbolic).status !=
        Verdict::violated);
  CHECK(hyperbolic.size() == kPoints.size());
  // Independent figures (the importance-sampled form): hyperbolic's MSE 20 % above positive's at 2m is refuted.
  std::vector<MseFigure> worse = pos2;
  for (std::size_t p = 0; p < worse.size(); ++p) worse[p] = {1.2 * pos2[p].mse, 1e-3 * pos2[p].mse, 0, 20000, 0};
  std::vector<MseFigure> tight = pos2;
  for (MseFigure& f : tight) f.stderr_ = 1e-3 * f.mse;
  JudgedPoints ignored;
  CHECK(lemma2_hyperbolic_check(kPoints, SweepResult{}, 0, 0, worse, tight, true, 8, 1e-3, ignored).status ==
        Verdict::violated);

  // No path in the grid: nothing judged, and the detail says how to add one.
  const std::vector<Geometry> no_path{{1.0, 0.5, -0.9}};
  JudgedPoints none;
  const Check empty = lemma2_ratio_check(no_path, sweep, 0, 1, trig, pos, false, 8, 1e-3, none);
  CHECK(empty.points_total == 0);
  CHECK(empty.detail.find("--x-norm/--y-norm/--cos") != std::string::npos);
}

TEST_CASE("Lemma 2 comparisons: the plain-or-sampled line needs both methods at the same points", "[mse]") {
  PointVerdict held;
  held.status = Verdict::holds;
  const JudgedPoints two{{"a", held}, {"b", held}}, one{{"a", held}};
  CHECK(!plain_or_sampled_line(kLemma2RatioClaim, "w", {}, two, 100));
  CHECK(!plain_or_sampled_line(kLemma2RatioClaim, "w", two, one, 100));
  const auto line = plain_or_sampled_line(kLemma2RatioClaim, "w", two, two, 100);
  REQUIRE(line);
  CHECK(line->claim == kLemma2RatioClaim + ", plain or importance-sampled");
}
