// `favorlab structured --until-conclusive`: the Lemma 1 controls (iid and orthogonal rows) take looks, with what every
// experiment with looks promises (looks_runs.hpp); the Hadamard and Givens sweeps take none and are the fixed run's;
// a control point the importance-sampled control settled draws no look.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "looks_runs.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

// At 400 trials the trig control leaves points open (|x|, |y| up to 1) that looks of up to 12 800 trials settle; the
// positive control's plain points are heavy-tailed, its importance-sampled line settles them all.
const std::string kGrid =
    "structured --d 4,16 --x-norm 1 --y-norm 0.5,1 --cos 0,0.5 --estimators positive,trig --no-speed --quiet";

bool structured_row(const json& row) { return row["coupling"] == "hadamard" || row["coupling"] == "givens"; }

int held(const json& result, const std::string& claim_start) {
  int n = 0;
  for (const auto& c : result["checks"])
    if (c["claim"].get<std::string>().rfind(claim_start, 0) == 0) n += c["points_held"].get<int>();
  return n;
}

}  // namespace

TEST_CASE("structured --until-conclusive: looks settle the trig control, the structured sweeps take none",
          "[cli][looks]") {
  const auto dir = scratch_dir("structured-looks");
  const LookRuns runs = run_with_looks(kGrid, 400, 6, "mean", dir, "", "--trials", structured_row);
  int positive_rows = 0;
  for (const auto& row : runs.looked["rows"]) {
    if (structured_row(row) || row["estimator"] != "positive") continue;
    INFO(row.dump());
    ++positive_rows;
    REQUIRE(row["is_mean_status"] == "holds");
    CHECK(row["look"] == 0);  // settled by the importance-sampled control: no look spent on the plain one
  }
  CHECK(positive_rows == 2 * 2 * 4);  // iid and orthogonal, two d, four geometries
  const std::string trig = "Lemma 1 (control): E[trig estimate] = SM";
  CHECK(held(runs.looked, trig) > held(runs.fixed, trig));
  for (const auto& c : runs.looked["checks"]) {
    INFO(c["claim"].get<std::string>() << ": " << c["detail"].get<std::string>());
    if (c["claim"].get<std::string>().rfind("Lemma 1 (control)", 0) == 0) CHECK(c["points_violated"] == 0);
  }
  // The structured couplings' checks are the fixed run's, word for word.
  for (std::size_t i = 0; i < runs.looked["checks"].size(); ++i)
    if (runs.looked["checks"][i]["claim"].get<std::string>().rfind("Structured features", 0) == 0)
      CHECK(runs.looked["checks"][i] == runs.fixed["checks"][i]);
  std::filesystem::remove_all(dir);
}
