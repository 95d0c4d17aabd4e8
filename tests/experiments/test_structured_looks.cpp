// `favorlab structured --until-conclusive`: the Lemma 1 controls (iid and orthogonal rows) take looks, with what every
// experiment with looks promises (looks_runs.hpp), at every point still open; the Hadamard and Givens sweeps take none
// and are the fixed run's.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "looks_runs.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

// At 400 trials the trig and positive controls leave points open (|x|, |y| up to 1) that looks of up to 12 800 trials
// settle or bring closer.
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
  // Every positive control point the pilot left open took looks: no other line settled it for the plain one.
  int looked_positive = 0;
  for (const auto& row : runs.looked["rows"]) {
    if (structured_row(row) || row["estimator"] != "positive") continue;
    INFO(row.dump());
    CHECK_FALSE(row.contains("is_mean"));
    looked_positive += row["look"].get<int>() > 0;
  }
  CHECK(looked_positive > 0);
  for (const std::string estimator : {"trig", "positive"}) {
    const std::string claim = "Lemma 1 (control): E[" + estimator + " estimate] = SM";
    CHECK(held(runs.looked, claim) > held(runs.fixed, claim));
  }
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
