// `favorlab unbiased --until-conclusive`: open points get looks, rows say which look decided them, the run is the
// same at 1 and 2 threads and when repeated with --max-looks set to the looks it reached, a fixed run is unchanged,
// and bad look options are refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

const std::string kGrid = "unbiased --x-norm 0.5,1.5 --y-norm 0.5,1.5 --cos -0.5,0.5 --d 4 --m 4 --quiet ";

}  // namespace

TEST_CASE("unbiased --until-conclusive: looks settle open points, bit-identical across threads and on a rerun",
          "[cli][looks]") {
  const auto dir = scratch_dir("unbiased-looks");
  const json fixed = run_cli_json(kGrid + "--trials 2000 --threads 2", dir, "fixed.json");
  const json one = run_cli_json(kGrid + "--trials 2000 --until-conclusive --max-looks 6 --threads 1", dir, "one.json");
  const json two = run_cli_json(kGrid + "--trials 2000 --until-conclusive --max-looks 6 --threads 2", dir, "two.json");
  CHECK(one["rows"] == two["rows"]);
  CHECK(one["checks"] == two["checks"]);
  CHECK(fixed["params"].count("max_looks") == 0);
  CHECK(fixed["rows"][0].count("look") == 0);
  CHECK(one["params"]["max_looks"] == 6);

  // The looks decided more points, and no point decided in the fixed run changed its verdict but by spending:
  // every row judged at look 0 has the fixed run's trials.
  const auto inconclusive = [](const json& r) {
    int n = 0;
    for (const auto& row : r["rows"]) n += row["status"] == "inconclusive" ? 1 : 0;
    return n;
  };
  CHECK(inconclusive(one) < inconclusive(fixed));
  int later = 0;
  for (std::size_t i = 0; i < one["rows"].size(); ++i) {
    const auto& row = one["rows"][i];
    const std::int64_t look = row["look"];
    CHECK(row["trials"] == std::int64_t{2000} << look);
    later += look > 0 ? 1 : 0;
    if (look == 0) CHECK(row["mean"] == fixed["rows"][i]["mean"]);
  }
  CHECK(later > 0);

  // A rerun stopped at the look the first run reached is the same run.
  const int reached = one["provenance"]["looks_reached"];
  const json again = run_cli_json(kGrid + "--trials 2000 --max-looks " + std::to_string(reached), dir, "again.json");
  CHECK(again["rows"] == one["rows"]);
  std::filesystem::remove_all(dir);
}

TEST_CASE("look options: bad values and experiments without looks are refused with one line", "[cli][looks]") {
  const auto dir = scratch_dir("look-options");
  check_bad_input(kGrid + "--budget 0 --out o.json", "--budget", dir, "o.json");
  check_bad_input(kGrid + "--budget 5x --out o.json", "units are s, m and h", dir, "o.json");
  check_bad_input(kGrid + "--budget nan --out o.json", "--budget", dir, "o.json");
  check_bad_input(kGrid + "--max-looks 0 --out o.json", "--max-looks", dir, "o.json");
  check_bad_input(kGrid + "--max-looks 41 --out o.json", "--max-looks", dir, "o.json");
  check_bad_input(kGrid + "--trials 1000000000000 --max-looks 20 --out o.json", "1e15", dir, "o.json");
  check_bad_input("kernels --until-conclusive --quiet --out o.json", "fixed number of trials", dir, "o.json");
  std::filesystem::remove_all(dir);
}
