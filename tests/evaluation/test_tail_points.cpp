// Which evidence decides a tail point (evaluation/tail_points.hpp): above the support the exact P = 0, a bound far
// above what a count can confirm is counted, a small bound goes to the tilted estimate where the rows are iid, and
// each case that cannot have one says why.
#include <catch2/catch.hpp>

#include <vector>

#include "evaluation/tail_points.hpp"
#include "stats/clopper_pearson.hpp"

using namespace favorlab;

TEST_CASE("tail points: each is decided by the evidence that can decide it, and a counted one says why",
          "[evaluation][tails]") {
  const std::vector<Geometry> points{{0.1, 0.5, 1.0}};
  const std::int64_t trials = 1000;
  const double alpha = 1e-3, u0 = clopper_pearson(0, trials, alpha).upper;
  TailBound bound;
  bound.max_feature = bound.max_orthogonal = 2.0;
  bound.theta = 0.5;
  const auto point = [&](int m, double a, double p) {
    TailBound b = bound;
    b.iid = b.orthogonal = p;
    return TailPoint{m, 0, 0, 0, 0.1, b, a};
  };
  const std::vector<TailPoint> tps{point(1, 2.5, 0.0), point(1, 1.5, 20 * u0), point(1, 1.5, u0 / 100),
                                   point(2, 1.5, u0 / 100)};
  const auto iid = choose_tail_methods(tps, points, 16, Coupling::iid, trials, alpha, 4096);
  REQUIRE(iid.size() == 4);
  CHECK(iid[0].method == TailMethod::support);  // a threshold above the largest estimate
  CHECK(iid[1].method == TailMethod::count);    // a bound a count of 1000 draws can confirm
  CHECK(iid[1].why_counted.empty());
  CHECK(iid[2].method == TailMethod::tilted);   // far below what any count resolves
  CHECK(iid[3].method == TailMethod::tilted);   // iid rows at any m
  const auto orthogonal = choose_tail_methods(tps, points, 16, Coupling::orthogonal, trials, alpha, 4096);
  CHECK(orthogonal[2].method == TailMethod::tilted);  // one orthogonal row has the iid law
  CHECK(orthogonal[3].method == TailMethod::count);
  CHECK_THAT(orthogonal[3].why_counted, Catch::Contains("orthogonal rows with m >= 2"));
  const auto none = choose_tail_methods(tps, points, 16, Coupling::iid, trials, alpha, 0);
  CHECK(none[2].method == TailMethod::count);
  CHECK_THAT(none[2].why_counted, Catch::Contains("--tilted-trials 0"));
  CHECK_THAT(choose_tail_methods(tps, points, 1, Coupling::iid, trials, alpha, 4096)[2].why_counted,
             Catch::Contains("d = 1"));
}
