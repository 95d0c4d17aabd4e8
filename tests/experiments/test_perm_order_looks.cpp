// `favorlab perm-order --until-conclusive`: a size open after the pilot draws more permutations in looks; its order
// row says which look decided both of its checks, with pilot · 2^look trials; the run is the same at 1 and 2 threads
// and when repeated with --max-looks set to the looks it reached; a fixed run carries no look fields, and a size
// settled at the pilot has the fixed run's figures.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

// Rows without their timings (the exact distribution's seconds differ between runs).
json untimed(json rows) {
  for (auto& row : rows) row.erase("exact_seconds");
  return rows;
}

bool exact_order_row(const json& row) { return row["kind"] == "order" && !row["exact_mean_order"].is_null(); }

}  // namespace

TEST_CASE("perm-order --until-conclusive: open sizes draw on, bit-identical across threads and on a rerun",
          "[cli][looks][perm]") {
  const auto dir = scratch_dir("perm-order-looks");
  const std::int64_t pilot = 2000;
  const std::string fixed_args = "perm-order --n 8,16,32,40 --exact-max-n 32 --heads 1 --head-size 8 --quiet --trials " +
                                 std::to_string(pilot);
  const std::string looked_args = fixed_args + " --until-conclusive --max-looks 8";
  const json fixed = run_cli_json(fixed_args + " --threads 2", dir, "fixed.json");
  const json one = run_cli_json(looked_args + " --threads 1", dir, "one.json");
  const json two = run_cli_json(looked_args + " --threads 2", dir, "two.json");
  CHECK(untimed(one["rows"]) == untimed(two["rows"]));
  CHECK(one["checks"] == two["checks"]);
  CHECK(fixed["params"].count("max_looks") == 0);
  REQUIRE(one["rows"].size() == fixed["rows"].size());

  int later = 0, open_fixed = 0, open_looked = 0;
  for (std::size_t i = 0; i < one["rows"].size(); ++i) {
    const json& row = one["rows"][i];
    const json& plain = fixed["rows"][i];
    INFO(row.dump());
    if (!exact_order_row(row)) {  // n = 40 (no exact law), histograms, heads: no looks
      CHECK(row.count("look") == 0);
      if (row["kind"] == "order") CHECK(row["trials"] == pilot);
      continue;
    }
    CHECK(plain.count("look") == 0);
    const int look = row["look"];
    CHECK(row["trials"] == pilot << look);
    later += look > 0 ? 1 : 0;
    if (look == 0) CHECK(row["mc_mean_order"] == plain["mc_mean_order"]);
    open_fixed += plain["status"] == "inconclusive" || plain["status_log"] == "inconclusive";
    open_looked += row["status"] == "inconclusive" || row["status_log"] == "inconclusive";
    // The row's interval is the one judged: the order row's verdict follows from it.
    const double d = row["mc_mean_order"].get<double>() - row["exact_mean_order"].get<double>();
    const double band = 0.02 * row["exact_mean_order"].get<double>();
    if (row["status"] == "holds") {
      CHECK(row["mc_interval_above"].get<double>() - d <= band * (1 + 1e-9));
      CHECK(row["mc_interval_below"].get<double>() + d <= band * (1 + 1e-9));
    }
  }
  CHECK(later > 0);
  CHECK(open_looked < open_fixed);
  CHECK(one["provenance"]["looks_stopped_by"] == "settled");

  const int reached = one["provenance"]["looks_reached"];
  const json again = run_cli_json(fixed_args + " --max-looks " + std::to_string(reached), dir, "again.json");
  CHECK(untimed(again["rows"]) == untimed(one["rows"]));
  CHECK(again["checks"] == one["checks"]);
  std::filesystem::remove_all(dir);
}
