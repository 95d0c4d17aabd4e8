// evaluation/permute_properties.hpp: PF's properties on one small draw — the point counts the sampling grid implies,
// every property holding for positive random features, and the checks that must fail: constant features make every
// similarity equal (offsets below the order and the 2-D row wrap are then not told apart), negative features break
// positivity; bad draws are refused.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "evaluation/permute_draw_fixture.hpp"
#include "evaluation/permute_properties.hpp"

using namespace favorlab;

namespace {

constexpr int kM = testing::kPermuteDrawM;
const auto random_draw = testing::permute_draw;
const auto features_of = testing::permute_draw_features;

PermutePropertyGrid small_grid() {
  PermutePropertyGrid g;
  g.positions = 16;  // spread_positions(8) = {0, 1, 2, 3, 8}
  g.longest = 100;
  g.width = 4;
  g.height = 3;
  g.offsets = 64;
  g.r = 0.9;
  return g;
}

}  // namespace

TEST_CASE("spread_positions: 0 to 3, then 3v - 1, then the top", "[permute]") {
  CHECK(spread_positions(-1).empty());
  CHECK(spread_positions(0) == std::vector<std::int64_t>{0});
  CHECK(spread_positions(3) == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(spread_positions(8) == std::vector<std::int64_t>{0, 1, 2, 3, 8});
  CHECK(spread_positions(30) == std::vector<std::int64_t>{0, 1, 2, 3, 8, 23, 30});
}

TEST_CASE("PF properties hold on a positive draw, at the point counts the grid implies", "[permute]") {
  PermutePropertyTallies t;
  const PermuteDraw draw = random_draw(features_of(1), features_of(2));
  const RowWrap wrap = add_permute_properties(draw, small_grid(), t);
  // 1-D: 5 × 5 base pairs (15 with j ≤ i) × 4 non-zero shifts; bound and positivity at 3 far moves of each pair.
  CHECK(t.shift[0][0].points == 100);
  CHECK(t.shift[0][1].points == 60);
  CHECK(t.bound.points == 3 * (25 + 15));
  CHECK(t.period_equal[0].points == 60);  // the order-60 π: offsets 0 … 59
  CHECK(t.period_distinct[0].points == 1);
  CHECK(t.period_equal[1].points == std::min<std::int64_t>(64, static_cast<std::int64_t>(draw.pi.order_u64())));
  CHECK(t.wrap_2d.points == 1);
  CHECK(t.shift[1][0].points > 0);
  CHECK(t.shift[1][1].points > 0);
  CHECK(t.shift[1][1].points < t.shift[1][0].points);  // causal keeps j ≤ i only
  for (const CountedCheck* c : {&t.shift[0][0], &t.shift[0][1], &t.shift[1][0], &t.shift[1][1], &t.bound, &t.positive,
                                &t.period_equal[0], &t.period_equal[1], &t.period_distinct[0], &t.period_distinct[1],
                                &t.wrap_2d, &t.wrap_1d}) {
    INFO(c->where << ": worst " << c->worst);
    CHECK(c->failed == 0);
  }
  CHECK(t.min_sim > 0);
  CHECK(wrap.x == 2);
  CHECK(wrap.y == 1);
  CHECK(wrap.gap_2d > 0);
}

TEST_CASE("PF property checks fail where the claims are false: constant and negative features", "[permute]") {
  // Constant features: P^t permutes a constant vector to itself, so every bidirectional sim is m' — the offsets below
  // the order and the 2-D row wrap can no longer be told apart, while shift invariance, the bound and positivity
  // still hold.
  PermutePropertyTallies c;
  add_permute_properties(random_draw(Eigen::VectorXd::Ones(kM), Eigen::VectorXd::Ones(kM)), small_grid(), c);
  CHECK(c.period_distinct[0].failed == 1);
  CHECK(c.period_distinct[1].failed == 1);
  CHECK(c.wrap_2d.failed == 1);
  CHECK(c.wrap_1d.failed == 0);
  CHECK(c.shift[0][1].failed == 0);
  CHECK(c.bound.failed == 0);
  CHECK(c.positive.failed == 0);

  // Negative query features (not a positive feature map): every sim is < 0, so property 3 fails at every point.
  PermutePropertyTallies n;
  add_permute_properties(random_draw(-features_of(1), features_of(2)), small_grid(), n);
  CHECK(n.positive.points > 0);
  CHECK(n.positive.failed == n.positive.points);
  CHECK(n.min_sim < 0);
}

TEST_CASE("PF properties refuse draws and grids that do not fit", "[permute]") {
  PermutePropertyTallies t;
  const Eigen::VectorXd phi = features_of(1);
  PermuteDraw short_k = random_draw(phi, phi.head(kM - 2));
  CHECK_THROWS_AS(add_permute_properties(short_k, small_grid(), t), std::invalid_argument);
  PermuteDraw wrong_pi = random_draw(phi, phi);
  wrong_pi.pi = random_permutation(kM - 1, 3, 1, 0);
  CHECK_THROWS_AS(add_permute_properties(wrong_pi, small_grid(), t), std::invalid_argument);
  PermutePropertyGrid g = small_grid();
  g.longest = 8;  // below positions
  CHECK_THROWS_AS(add_permute_properties(random_draw(phi, phi), g, t), std::invalid_argument);
  g = small_grid();
  g.r = 1.5;
  CHECK_THROWS_AS(add_permute_properties(random_draw(phi, phi), g, t), std::invalid_argument);
}
