// evaluation/favor_arm_comparisons.hpp without the driver: Fig. 4's comparisons pair the right arms, and on a pilot of
// Gaussian inputs "positive below trig" holds while the swapped claim (trig below positive: the wrong theory) is
// violated; the verdicts land in the low arm's rows under the comparison's prefix.
#include <catch2/catch.hpp>

#include "evaluation/favor_arm_comparisons.hpp"

using namespace favorlab;

TEST_CASE("Fig. 4 comparisons pair each low arm with its high arm", "[attention-error]") {
  const std::vector<int> ms{8, 16};
  const std::vector<Family> features{Family::trig, Family::positive};
  const std::vector<Coupling> couplings{Coupling::iid, Coupling::orthogonal};
  const auto arms = favor_arm_grid({false, true}, couplings, features, ms);
  const ArmInputs inputs{64, 4, 12, false, false};
  std::vector<std::string> prefixes;
  const auto comparisons =
      fig4_comparisons(arms, features, couplings, {"bidirectional", "causal"}, inputs, ms, prefixes);
  REQUIRE(comparisons.size() == 2 * 2 + 2 * 2);
  CHECK(prefixes == std::vector<std::string>{"vs_iid", "vs_iid", "vs_iid", "vs_iid", "vs_trig", "vs_trig", "vs_trig",
                                             "vs_trig"});
  const ArmComparison& first = comparisons.front();
  CHECK(first.where == "trig features, bidirectional, L=64, d=4, 12 inputs, m in {8,16}");
  REQUIRE(first.low.size() == 2);
  CHECK(arms[first.low[1]] == FavorArm{false, Coupling::orthogonal, Family::trig, 16});
  CHECK(arms[first.high[1]] == FavorArm{false, Coupling::iid, Family::trig, 16});
  CHECK(comparisons.back().labels == std::vector<std::string>{"m=8", "m=16"});
  std::vector<std::string> none;
  CHECK(fig4_comparisons(arms, {Family::positive}, {Coupling::iid}, {"causal"}, inputs, ms, none).empty());
}

TEST_CASE("Fig. 4 pilot: positive below trig holds, the swapped claim is violated", "[attention-error]") {
  const std::vector<int> ms{16};
  const std::vector<Family> features{Family::trig, Family::positive};
  const std::vector<Coupling> couplings{Coupling::orthogonal};
  const auto arms = favor_arm_grid({false}, couplings, features, ms);
  std::vector<AttentionInput> inputs;
  for (std::uint64_t i = 0; i < 14; ++i) inputs.push_back(gaussian_attention_input(128, 16, 16, 1.0, 1.0, 7, i));
  RunContext ctx;
  ctx.seed = 7;
  ctx.threads = 2;
  PilotErrors pilot = measure_favor_arms(arms, inputs, {false}, Backend::cpu, ctx);
  REQUIRE(pilot.mse.size() == arms.size());
  CHECK(pilot.baselines[0].size() == inputs.size());
  CHECK(pilot.baselines[1].empty());
  const ArmInputs shape{128, 16, 14, false, false};
  std::vector<std::string> prefixes;
  std::vector<ArmComparison> comparisons =
      fig4_comparisons(arms, features, couplings, {"bidirectional"}, shape, ms, prefixes);
  REQUIRE(comparisons.size() == 1);
  ArmComparison swapped = comparisons[0];
  std::swap(swapped.low, swapped.high);
  comparisons.push_back(swapped);
  prefixes.push_back("swapped");
  const ArmLookSetup setup{&pilot.configs, {128, 16, 16, 1.0, 1.0}, 7, 2, Backend::cpu, 1e-3, {}, pilot.seconds, {}};
  const PairedLookOutcome outcome = compare_arms(comparisons, pilot.mse, setup);
  std::vector<Json> rows(arms.size(), Json::object());
  Result result;
  add_arm_verdicts(result, rows, comparisons, prefixes, outcome, false);
  REQUIRE(result.checks.size() == 2);
  CHECK(result.checks[0].status == Verdict::holds);
  CHECK(result.checks[1].status == Verdict::violated);
  const Json& positive_row = rows[comparisons[0].low[0]];
  CHECK(positive_row["vs_trig_status"] == "holds");
  CHECK(positive_row["vs_trig_pairs"] == 14);
  CHECK(!positive_row.contains("vs_trig_look"));
  CHECK(rows[swapped.low[0]]["swapped_status"] == "violated");
}

TEST_CASE("favor arm row: the summary's figures and the inputs' shape", "[attention-error]") {
  OutputErrorSummary s;
  s.inputs = 3;
  s.mse_mean = 0.5;
  s.rel_error_mean = std::numeric_limits<double>::quiet_NaN();
  const FavorArm arm{true, Coupling::iid, Family::positive, 32};
  const Json gaussian = favor_arm_row(arm, s, {0.4, 0.5, 0.6}, {64, 4, 3, false, true}, 0.75);
  CHECK(gaussian["mode"] == "causal");
  CHECK(gaussian["qk_scale"] == 0.75);
  CHECK(gaussian["mse_per_input"].size() == 3);
  CHECK(gaussian["rel_error_mean"].is_null());
  const Json files = favor_arm_row(arm, s, {0.4}, {64, 4, 1, true, false}, 0.75);
  CHECK(files["qk_scale"].is_null());
  CHECK(ArmInputs{64, 4, 3, false, true}.where({8}) == "L=64, d=4, 3 inputs (doubling by looks), m in {8}");
}
