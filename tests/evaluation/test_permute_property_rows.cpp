// evaluation/permute_property_rows.hpp: the checks and rows `permute-properties` writes about one feature map — a
// check per property line carrying its tally's verdict, rows whose sims show the properties themselves (the period
// of the order-60 π, the 2-D grid's own query at its unit step), and the row counts the figures expect.
#include <catch2/catch.hpp>

#include <cmath>

#include "evaluation/permute_draw_fixture.hpp"
#include "evaluation/permute_property_rows.hpp"
#include "evaluation/permute_similarity.hpp"

using namespace favorlab;

namespace {

constexpr int kD = testing::kPermuteDrawD, kM = testing::kPermuteDrawM;

PermuteDraw draw() {
  return testing::permute_draw(testing::permute_draw_features(1), testing::permute_draw_features(2));
}

}  // namespace

TEST_CASE("PF property report: twelve checks with their tallies' verdicts and a shift row each", "[permute]") {
  PermutePropertyGrid grid{16, 100, 4, 3, 64, 0.9};
  PermutePropertyTallies tallies;
  add_permute_properties(draw(), grid, tallies);
  Result held;
  report_permute_properties(tallies, grid, {"positive", kM, kD, 1}, held);
  REQUIRE(held.checks.size() == 12);
  for (const Check& c : held.checks) {
    INFO(c.claim);
    CHECK(c.status == Verdict::holds);
    CHECK(c.where.find("positive features, m'=12, d=4, 1 draws") == 0);
  }
  REQUIRE(held.rows.size() == 4);
  CHECK(held.rows[3]["dims"] == 2);
  CHECK(held.rows[3]["causal"] == true);
  CHECK(held.rows[3]["points"] == tallies.shift[1][1].points);

  // A tally with a failed point makes its own line violated and no other.
  tallies.wrap_2d.add(3, "planted");
  Result broken;
  report_permute_properties(tallies, grid, {"positive", kM, kD, 1}, broken);
  int violated = 0;
  for (const Check& c : broken.checks)
    if (c.status == Verdict::violated) {
      ++violated;
      CHECK(c.claim.find("PF 2-D: the row wrap") == 0);
    }
  CHECK(violated == 1);
}

TEST_CASE("PF rows: the offsets repeat with the order-60 pi's period, the grid rows cover the grid", "[permute]") {
  const PermuteDraw one = draw();
  const std::vector<Json> offsets = permute_offset_rows(one, "positive");
  REQUIRE(offsets.size() == 2 * 180);
  const double tol = permute_similarity_tolerance(kM);
  bool told_apart = false;
  for (int delta = 0; delta < 120; ++delta) {
    const double a = offsets[delta]["sim"], b = offsets[delta + 60]["sim"];
    CHECK(std::abs(a - b) <= tol * std::max(a, b));
    told_apart = told_apart || std::abs(a - offsets[delta + 1]["sim"].get<double>()) > tol * a;
  }
  CHECK(told_apart);  // offsets within a period differ: the rows are not constant
  CHECK(offsets[0]["order"] == 60);
  CHECK(offsets[180]["permutation"] == "random");

  const RowWrap at{2, 1};
  const std::vector<Json> grid = permute_grid_rows(one, "positive", 4, 3, at);
  REQUIRE(grid.size() == 12);
  // The key at the query's own position: offset 0 in both encodings, so both sims are φ(q)ᵀφ(k).
  const Json& self = grid[1 * 4 + 2];
  CHECK(self["x"] == 2);
  CHECK(self["y"] == 1);
  const double plain = one.phi_q.dot(one.phi_k);
  CHECK(std::abs(self["sim_2d"].get<double>() - plain) <= tol * plain);
  CHECK(std::abs(self["sim_1d"].get<double>() - plain) <= tol * plain);

  const Json wrap = permute_wrap_row(RowWrap{2, 1, 1, 2, 3, 3, 0.5, 0}, "relu", 4, 4, 3, kM);
  CHECK(wrap["draw"] == 4);
  CHECK(wrap["relative_gap_2d"] == 0.5);
  CHECK(wrap["tolerance"] == tol);
}
