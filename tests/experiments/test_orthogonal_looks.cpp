// `favorlab orthogonal --until-conclusive`: the looks continue the importance-sampled runs (their pilot is
// --importance-trials), with what every experiment with looks promises (looks_runs.hpp); and a point the plain check
// settled for a cell's every line draws no look.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "looks_runs.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

// ‖z‖ from 0 (cos −1: every estimator exact, the plain checks settle it) to 2; at 4096 trials the importance-sampled
// lines leave points open that looks settle.
const std::string kGrid =
    "orthogonal --d 4 --m 2,4 --estimators positive,smreg --x-norm 1 --y-norm 1 --cos=-1,0,0.5,1 --trials 2000 "
    "--quiet";

}  // namespace

TEST_CASE("orthogonal --until-conclusive: looks continue the importance-sampled runs where a point is open",
          "[cli][looks]") {
  const auto dir = scratch_dir("orthogonal-looks");
  const LookRuns runs = run_with_looks(kGrid, 4096, 4, "is_mse", dir, "is_", "--importance-trials");
  int settled_by_plain = 0;
  for (const auto& row : runs.looked["rows"]) {
    INFO(row.dump());
    // Every line of the cell settled by the plain check at this point: nothing for the looks to settle.
    const bool plain_settled = row["status"] != "inconclusive" &&
                               row.value("simplex_below_orthogonal_mc_status", "holds") != "inconclusive";
    if (plain_settled) {
      ++settled_by_plain;
      CHECK(row["is_look"] == 0);
    }
  }
  CHECK(settled_by_plain > 0);
  // The combined lines: the looks never lose a held point, and they gain some.
  int gained = 0;
  for (std::size_t i = 0; i < runs.looked["checks"].size(); ++i) {
    const auto &c = runs.looked["checks"][i], &f = runs.fixed["checks"][i];
    REQUIRE(c["claim"] == f["claim"]);
    if (c["claim"].get<std::string>().find("plain or importance-sampled") == std::string::npos) continue;
    INFO(c["claim"].get<std::string>());
    CHECK(c["points_held"] >= f["points_held"]);
    CHECK(c["points_violated"] == 0);
    gained += c["points_held"].get<int>() - f["points_held"].get<int>();
  }
  CHECK(gained > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("orthogonal: importance-sampled pilots whose looks would pass 1e15 trials are refused with one line",
          "[cli][looks]") {
  const auto dir = scratch_dir("orthogonal-look-options");
  check_bad_input("orthogonal --d 4 --importance-trials 1000000000000 --max-looks 20 --quiet --out o.json", "1e15", dir,
                  "o.json");
  check_bad_input("orthogonal --importance-trials 2000000000000000 --quiet --out o.json", "--importance-trials", dir,
                  "o.json");
  std::filesystem::remove_all(dir);
}
