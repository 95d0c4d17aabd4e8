// `favorlab estimators --until-conclusive`: what every experiment with looks promises (looks_runs.hpp), and a point that
// importance sampling settled, or one without a closed form, draws no plain looks.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "looks_runs.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

const std::string kGrid =
    "estimators --d 4 --x-norm 0.5,1 --y-norm 0.5,1 --cos -0.5,0.9 --importance-trials 50000 --quiet";

}  // namespace

TEST_CASE("estimators --until-conclusive: looks settle open points where importance sampling has not",
          "[cli][looks]") {
  const auto dir = scratch_dir("estimators-looks");
  const json looked = run_with_looks(kGrid, 4000, 5, "mse", dir).looked;
  int settled_by_sampling = 0;
  for (const auto& row : looked["rows"]) {
    INFO(row.dump());
    const std::int64_t look = row["look"];
    // A point the importance-sampled run settled is settled for its combined line: no plain look is spent on it.
    if (row.contains("is_status") && row["is_status"] != "inconclusive") {
      ++settled_by_sampling;
      CHECK(look == 0);
    }
    // Without a closed form there is nothing to settle: no look either.
    if (row["mse_exact"].is_null()) CHECK(look == 0);
  }
  CHECK(settled_by_sampling > 0);
  std::filesystem::remove_all(dir);
}
