// perf/structured_speed.hpp: three rows per d with positive times, dense's ratio to itself exactly 1, the others'
// ratios from the same run, and a memory figure that grows with the batch.
#include <catch2/catch.hpp>

#include <cmath>

#include "perf/structured_speed.hpp"

using namespace favorlab;

TEST_CASE("structured speed: dense, hadamard and givens rows per d", "[structured][perf]") {
  Result result;
  measure_structured_speed({8, 16}, 32, 2, 7, result);
  REQUIRE(result.rows.size() == 6);
  CHECK(result.rows[0]["method"] == "dense");
  CHECK(result.rows[1]["method"] == "hadamard");
  CHECK(result.rows[5]["method"] == "givens");
  CHECK(result.rows[5]["d"] == 16);
  for (std::size_t i = 0; i < 6; ++i) {
    const Json& row = result.rows[i];
    CHECK(row["seconds"].get<double>() > 0);
    CHECK(row["estimator"].is_null());
    const double dense = result.rows[i - i % 3]["seconds"];
    CHECK(row["time_ratio_to_dense"] == row["seconds"].get<double>() / dense);
  }
  CHECK(result.rows[0]["time_ratio_to_dense"] == 1.0);
  CHECK(std::isfinite(result.measurements["speed_checksum"].get<double>()));
  CHECK(structured_speed_bytes({64}, 4096) > structured_speed_bytes({64}, 1024));
  CHECK(structured_speed_bytes({}, 1024) == 0);
}
