#pragma once
// The runs an experiment that takes looks is tested with: `favorlab <args> --trials <pilot>` fixed, and with
// --until-conclusive --max-looks K at 1 and 2 threads. Looks on other trials than the plain ones (orthogonal's
// importance-sampled runs) name their pilot's option and the prefix of their row fields (`is_`: is_look, is_trials,
// is_status). Requires what every such experiment promises
// (docs/judging.md#looks-until-conclusive): the two thread counts agree bit for bit; a fixed run carries no look
// fields; a row judged at look k has pilot · 2^k trials, and one judged at the pilot has the fixed run's `statistic`;
// some row needed a look and the looks left fewer rows inconclusive; a rerun with --max-looks set to the looks reached
// is the same run. Rows of a part that takes no looks (structured's Hadamard and Givens sweeps) are named by
// `no_looks`: they carry no look field and the fixed run's `statistic`.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "cli_runner.hpp"

namespace favorlab::testing {

struct LookRuns {
  nlohmann::json fixed, looked;
};

inline int inconclusive_rows(const nlohmann::json& result, const std::string& prefix = "") {
  int n = 0;
  for (const auto& row : result["rows"]) n += row.value(prefix + "status", "") == "inconclusive" ? 1 : 0;
  return n;
}

inline LookRuns run_with_looks(const std::string& args, std::int64_t pilot, int max_looks,
                               const std::string& statistic, const std::filesystem::path& dir,
                               const std::string& prefix = "", const std::string& pilot_option = "--trials",
                               const std::function<bool(const nlohmann::json&)>& no_looks = {}) {
  const std::string fixed_args = args + " " + pilot_option + " " + std::to_string(pilot);
  const std::string looked_args = fixed_args + " --until-conclusive --max-looks " + std::to_string(max_looks);
  LookRuns r{run_cli_json(fixed_args + " --threads 2", dir, "fixed.json"),
             run_cli_json(looked_args + " --threads 1", dir, "one.json")};
  const nlohmann::json two = run_cli_json(looked_args + " --threads 2", dir, "two.json");
  CHECK(r.looked["rows"] == two["rows"]);
  CHECK(r.looked["checks"] == two["checks"]);
  CHECK(r.fixed["params"].count("max_looks") == 0);
  CHECK(r.fixed["rows"][0].count(prefix + "look") == 0);
  CHECK(r.looked["params"]["max_looks"] == max_looks);
  REQUIRE(r.looked["rows"].size() == r.fixed["rows"].size());

  CHECK(inconclusive_rows(r.looked, prefix) < inconclusive_rows(r.fixed, prefix));
  int later = 0;
  for (std::size_t i = 0; i < r.looked["rows"].size(); ++i) {
    const auto& row = r.looked["rows"][i];
    INFO(row.dump());
    if (no_looks && no_looks(row)) {
      CHECK(row.count(prefix + "look") == 0);
      CHECK(row[statistic] == r.fixed["rows"][i][statistic]);
      continue;
    }
    const std::int64_t look = row[prefix + "look"];
    CHECK(row[prefix + "trials"] == pilot << look);
    later += look > 0 ? 1 : 0;
    if (look == 0) CHECK(row[statistic] == r.fixed["rows"][i][statistic]);
  }
  CHECK(later > 0);

  const int reached = r.looked["provenance"]["looks_reached"];
  const nlohmann::json again = run_cli_json(fixed_args + " --max-looks " + std::to_string(reached), dir, "again.json");
  CHECK(again["rows"] == r.looked["rows"]);
  CHECK(again["checks"] == r.looked["checks"]);
  return r;
}

}  // namespace favorlab::testing
