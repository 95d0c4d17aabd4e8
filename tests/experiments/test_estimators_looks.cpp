// `favorlab estimators --until-conclusive`: open points get looks of doubling size, a point that importance sampling
// settled draws no more plain trials, the run is the same at 1 and 2 threads and when repeated with --max-looks set to
// the looks it reached, and a fixed run is unchanged by the looks' machinery.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

const std::string kGrid =
    "estimators --d 4 --x-norm 0.5,1 --y-norm 0.5,1 --cos -0.5,0.9 --trials 4000 --importance-trials 50000 --quiet ";

int inconclusive(const json& r) {
  int n = 0;
  for (const auto& row : r["rows"]) n += row.value("status", "") == "inconclusive" ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("estimators --until-conclusive: looks settle open points where importance sampling has not",
          "[cli][looks]") {
  const auto dir = scratch_dir("estimators-looks");
  const json fixed = run_cli_json(kGrid + "--threads 2", dir, "fixed.json");
  const json one = run_cli_json(kGrid + "--max-looks 5 --threads 1", dir, "one.json");
  const json two = run_cli_json(kGrid + "--max-looks 5 --threads 2", dir, "two.json");
  CHECK(one["rows"] == two["rows"]);
  CHECK(one["checks"] == two["checks"]);
  CHECK(fixed["params"].count("max_looks") == 0);
  CHECK(fixed["rows"][0].count("look") == 0);
  CHECK(one["params"]["max_looks"] == 5);
  REQUIRE(one["rows"].size() == fixed["rows"].size());

  CHECK(inconclusive(one) < inconclusive(fixed));
  int later = 0, settled_by_sampling = 0;
  for (std::size_t i = 0; i < one["rows"].size(); ++i) {
    const auto& row = one["rows"][i];
    INFO(row.dump());
    const std::int64_t look = row["look"];
    CHECK(row["trials"] == std::int64_t{4000} << look);
    later += look > 0 ? 1 : 0;
    if (look == 0) CHECK(row["mse"] == fixed["rows"][i]["mse"]);
    // A point the importance-sampled run settled is settled for its combined line: no plain look is spent on it.
    if (row.contains("is_status") && row["is_status"] != "inconclusive") {
      ++settled_by_sampling;
      CHECK(look == 0);
    }
    // Without a closed form there is nothing to settle: no look either.
    if (row["mse_exact"].is_null()) CHECK(look == 0);
  }
  CHECK(later > 0);
  CHECK(settled_by_sampling > 0);

  // A rerun stopped at the look the first run reached is the same run.
  const int reached = one["provenance"]["looks_reached"];
  const json again = run_cli_json(kGrid + "--max-looks " + std::to_string(reached), dir, "again.json");
  CHECK(again["rows"] == one["rows"]);
  CHECK(again["checks"] == one["checks"]);
  std::filesystem::remove_all(dir);
}
