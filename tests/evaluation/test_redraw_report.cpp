// evaluation/redraw_report.hpp on a real redraw sweep: an average row per k and a draws row, the three checks and the
// unlucky-draw measurement; the 1/k claim is refuted when the groups' draws share their error (a planted cross product
// as large as one draw's MSE: the wrong theory of independent redraws), and a negative normalizer puts checks 1-3 out
// of reach with the reason.
#include <catch2/catch.hpp>

#include "attention/exact_attention.hpp"
#include "evaluation/redraw_report.hpp"

using namespace favorlab;

namespace {

const Check* find_check(const Result& r, const std::string& start) {
  for (const Check& c : r.checks)
    if (c.claim.rfind(start, 0) == 0) return &c;
  return nullptr;
}

struct Fixture {
  RedrawSetting setting{"orthogonal", false, 64, 48, 4, {200, {1, 2, 4}, 100, 20}, 2.0, 1e-3};
  AttentionInput in = gaussian_attention_input(48, 4, 4, 0.5, 1.0, 3, 0);
  RedrawSweep sweep;
  Fixture() {
    AttentionConfig config;
    config.m = 64;
    const Eigen::MatrixXd exact = exact_attention<double>(in.q, in.k, in.v, false, true, 1);
    sweep = run_redraw_sweep(in, exact, config, setting.plan, 9, Backend::cpu, 2);
  }
};

}  // namespace

TEST_CASE("redraw report: rows and checks of one feature map", "[redraw]") {
  const Fixture f;
  Result result;
  report_redraw(f.setting, "positive", f.sweep, result);
  add_redraw_compare_figures(result, Family::positive, f.in.v);
  REQUIRE(result.rows.size() == 4);  // average k = 1, 2, 4, then the draws row
  CHECK(result.rows[1]["k"] == 2);
  CHECK(result.rows[3]["kind"] == "draws");
  CHECK(result.rows[3]["mse_per_draw"].size() == 200);
  CHECK(result.rows[0]["mse_has_mean"] == true);
  CHECK(result.rows[2]["mse_range"].get<double>() > 0);
  REQUIRE(result.checks.size() == 4);
  const Check* law = find_check(result, "Redrawing: MSE of the k-average");
  REQUIRE(law != nullptr);
  // The law is true of these draws; 200 single draws and 100 groups per k are too few to confirm an equality within
  // its ±2 % margin, so the honest verdict is inconclusive, with the trials that would settle it and its power.
  CHECK(law->status == Verdict::inconclusive);
  CHECK(law->detail.find("trials per point would likely settle them") != std::string::npos);
  CHECK(law->detail.find("power: a theory off by") != std::string::npos);
  CHECK(law->points_total == 2);
  CHECK(find_check(result, "Redrawing: fraction of unlucky draws")->status == Verdict::measured);
  CHECK(redraw_row_schema()["key"] == Json::array({"kind", "features", "k"}));
}

TEST_CASE("redraw report: shared errors refute 1/k, a negative normalizer puts the claims out of reach", "[redraw]") {
  const Fixture f;
  RedrawSweep shared = f.sweep;
  double mean_mse = 0;
  for (double v : f.sweep.draw_mse) mean_mse += v / static_cast<double>(f.sweep.draw_mse.size());
  for (std::size_t i = 1; i < shared.group_cross.size(); ++i)
    for (double& u : shared.group_cross[i]) u += mean_mse;  // pairs of draws as correlated as a draw with itself
  Result refuted;
  report_redraw(f.setting, "positive", shared, refuted);
  const Check* one_over_k = find_check(refuted, "Redrawing: averaging k redrawn outputs");
  REQUIRE(one_over_k != nullptr);
  CHECK(one_over_k->status == Verdict::violated);
  // The law's power case: a k-average whose draws share their errors is far above bias² + variance/k.
  const Check* law = find_check(refuted, "Redrawing: MSE of the k-average");
  REQUIRE(law != nullptr);
  CHECK(law->status == Verdict::violated);

  RedrawSweep signed_features = f.sweep;
  signed_features.negative = {3, 7, -0.25};
  Result no_mean;
  report_redraw(f.setting, "trig", signed_features, no_mean);
  for (const char* claim : {"Redrawing: averaging k", "Redrawing: MSE of the k-average", "Redrawing: no bias"}) {
    const Check* c = find_check(no_mean, claim);
    REQUIRE(c != nullptr);
    CHECK(c->status == Verdict::inconclusive);
    CHECK(c->trials_needed == kOutOfReach);
  }
  CHECK(no_mean.rows[1]["one_over_k_status"] == "inconclusive");
}
