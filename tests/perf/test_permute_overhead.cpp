// perf/permute_overhead.hpp: the overhead measurement's shape — a row per mode, m and L with positive times whose
// ratio is the row's, a measured (never judged) target line per mode only where m = 256 was timed, and a memory
// figure that grows with L.
#include <catch2/catch.hpp>

#include <cmath>

#include "perf/permute_overhead.hpp"

using namespace favorlab;

TEST_CASE("PermuteFormer overhead: rows per mode, m and L, target lines are measured, at m = 256 only",
          "[permute][perf]") {
  PermuteOverheadGrid grid;
  grid.lengths = {64, 128};
  grid.m = {16, 256};
  grid.d = 8;
  grid.chunk = 16;
  grid.r = 0.9;
  grid.repeats = 1;
  grid.seed = 3;
  grid.input_stream = 10;
  grid.perm_stream = 20;
  Result result;
  measure_permute_overhead(grid, result);
  REQUIRE(result.rows.size() == 2 * 2 * 2);
  for (const Json& row : result.rows) {
    CHECK(row["kind"] == "overhead");
    CHECK(row["favor_seconds"].get<double>() > 0);
    CHECK(row["permute_seconds"].get<double>() > 0);
    CHECK(row["time_ratio"].get<double>() ==
          row["permute_seconds"].get<double>() / row["favor_seconds"].get<double>());
  }
  CHECK(result.rows[0]["mode"] == "bidirectional");
  CHECK(result.rows[7]["mode"] == "causal");
  REQUIRE(result.checks.size() == 2);
  for (const Check& c : result.checks) {
    CHECK(c.status == Verdict::measured);
    CHECK(c.target == 1.1);
  }
  CHECK(std::isfinite(result.measurements["overhead_checksum"].get<double>()));

  grid.m = {16};
  Result none;
  measure_permute_overhead(grid, none);
  CHECK(none.checks.empty());

  PermuteOverheadGrid longer = grid;
  longer.lengths = {4096};
  CHECK(permute_overhead_bytes(longer) > permute_overhead_bytes(grid));
}
