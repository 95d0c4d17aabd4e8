// The uniform, kernels and layers drivers at tiny size, and their bad input: one line naming the option, status 2.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"

using namespace favorlab;
using namespace favorlab::testing;
namespace fs = std::filesystem;

TEST_CASE("uniform, kernels and layers drivers at tiny size", "[uniform][cli]") {
  const auto dir = scratch_dir("uniform-kernels-layers");
  SECTION("uniform") {
    const auto run = run_cli(
        "uniform --L 16,48 --d 4 --m 4,16,64 --trials 24 --epsilon 1 --radius 1.2 --quiet --out u.json", dir);
    REQUIRE(run.status == 0);
    const auto doc = nlohmann::json::parse(read_text(dir / "u.json"));
    REQUIRE(doc["checks"].size() == 1);  // one d: no growth-in-d check
    CHECK(doc["checks"][0]["claim"].get<std::string>().find("does not grow with L") != std::string::npos);
    std::map<std::pair<int, int>, nlohmann::json> point;
    int needed = 0;
    for (const auto& r : doc["rows"]) {
      if (r["kind"] == "point") point[{r["L"].get<int>(), r["m"].get<int>()}] = r;
      else ++needed;
    }
    REQUIRE(point.size() == 6);
    CHECK(needed == 2);
    for (int m : {4, 16, 64}) {
      // Nested inputs, one W per draw: the larger L maximizes over a superset of entries.
      CHECK(point[{48, m}]["error_max"].get<double>() >= point[{16, m}]["error_max"].get<double>());
      CHECK(point[{48, m}]["successes"].get<int>() <= point[{16, m}]["successes"].get<int>());
    }
    CHECK(point[{16, 64}]["error_median"].get<double>() < point[{16, 4}]["error_median"].get<double>());
  }
  SECTION("kernels") {
    const auto run = run_cli(
        "kernels --kernels relu,identity,trig,positive,hyperbolic --scales 0.5,2.5 --L 64 --d 4 --m 16 --trials 3 "
        "--quiet --out k.json", dir);
    REQUIRE(run.status == 0);
    const auto doc = nlohmann::json::parse(read_text(dir / "k.json"));
    CHECK(doc["rows"].size() == 2 * 7);
    REQUIRE(doc["checks"].size() == 3);
    // Positive features: D_hat > 0 by construction, so measured (a counterexample would make it violated).
    CHECK(doc["checks"][0]["status"] == "measured");
    CHECK(doc["checks"][0]["value"].get<double>() > 0);
    for (const auto& r : doc["rows"]) {
      if (r["estimator"] == "positive" || r["estimator"] == "hyperbolic" || r["estimator"] == "relu") {
        CHECK(r["nonpositive_denominators"] == 0);
        CHECK(r["min_denominator"].get<double>() > 0);
      }
      if (r["project"] == false) CHECK(r["trials"] == 1);
    }
  }
  SECTION("layers") {
    const auto run =
        run_cli("layers --layers 3 --width 8 --heads 2 --L 24 --m 8 --trials 3 --quiet --out l.json", dir);
    REQUIRE(run.status == 0);
    const auto doc = nlohmann::json::parse(read_text(dir / "l.json"));
    REQUIRE(doc["rows"].size() == 3);
    for (const auto& r : doc["rows"]) {
      CHECK(r["rel_error_mean"].get<double>() > 0);
      CHECK(r["rel_error_mean"].get<double>() < 1);
      CHECK(r["trials"] == 3);
    }
    CHECK(doc["rows"][0]["rel_error_mean"] == doc["rows"][0]["local_error_mean"]);  // layer 1: same input
    REQUIRE(doc["checks"].size() == 1);
  }
  fs::remove_all(dir);
}

TEST_CASE("uniform, kernels, layers: bad input exits 2 with one line naming the option", "[uniform][cli]") {
  const auto dir = scratch_dir("uniform-kernels-layers-bad");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"uniform --epsilon 0", "--epsilon"},
      {"uniform --epsilon -1", "--epsilon"},
      {"uniform --radius nan", "--radius"},
      {"uniform --m 0", "--m"},
      {"uniform --probability 1", "--probability"},
      {"kernels --kernels relu,softmax", "softmax"},
      {"kernels --scales 0", "--scales"},
      {"layers --layers 0", "--layers"},
      {"layers --layers -2", "--layers"},
      {"layers --heads 3", "--heads"},
      {"layers --features nope", "nope"},
      {"layers --m 0", "--m"},
  };
  for (const auto& [args, needle] : cases)
    check_bad_input(args + " --trials 3 --quiet --out r.json", needle, dir, "r.json");
  fs::remove_all(dir);
}
