// The sufficient-size brackets (stats/sufficient_size.hpp) from Clopper-Pearson intervals, and the two growth checks
// built on them, each with a power case fed a wrong law.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "stats/sufficient_size.hpp"

using namespace favorlab;

TEST_CASE("sufficient size: brackets from Clopper-Pearson intervals", "[stats][uniform]") {
  const std::vector<int> sizes{8, 16, 32, 64};
  // 100 trials: 50% (interval far below 0.9), 85% (interval contains 0.9), 91% (contains), 100% (above 0.9).
  const SufficientSize s = sufficient_size(sizes, {50, 85, 91, 100}, 100, 0.9, 0.05);
  CHECK(s.lower == 16);
  CHECK(s.point == 32);
  CHECK(s.upper == 64);
  const SufficientSize open = sufficient_size(sizes, {0, 1, 2, 3}, 100, 0.9, 0.05);
  CHECK(open.lower == 0);
  CHECK(open.upper == 0);
  CHECK_THROWS_AS(sufficient_size(sizes, {1, 2}, 100, 0.9, 0.05), std::invalid_argument);
}

TEST_CASE("size independence: established only by separated brackets, refuted by separated growth",
          "[stats][uniform][power]") {
  const SufficientSize small{16, 16, 32, 8, "L=256"}, same{16, 32, 32, 8, "L=1024"}, big{128, 128, 256, 64, "L=4096"};
  // Overlapping brackets neither confirm nor refute "does not grow".
  CHECK(size_independence_check("c", "w", {{small, same}}).status == Verdict::inconclusive);
  const SufficientSize pinned_a{16, 16, 16, 8, "L=256"}, pinned_b{16, 16, 16, 8, "L=1024"};
  const Check pinned = size_independence_check("c", "w", {{pinned_a, pinned_b}});
  CHECK(pinned.status == Verdict::holds);
  CHECK(pinned.points_total == 1);
  const Check grows = size_independence_check("c", "w", {{small, same, big}});
  CHECK(grows.status == Verdict::violated);
  CHECK(grows.statistic == Approx(4.0));
  const SufficientSize unbounded{16, 0, 0, 8, "L=4096"};
  CHECK(size_independence_check("c", "w", {{small, unbounded}}).status == Verdict::inconclusive);
  const SufficientSize never{0, 0, 0, 64, "L=4096"};  // P < target established on the whole grid
  CHECK(size_independence_check("c", "w", {{small, never}}).status == Verdict::violated);
  // One L per group: nothing compared, nothing judged.
  const Check lone = size_independence_check("c", "w", {{small}, {same}});
  CHECK(lone.status == Verdict::inconclusive);
  CHECK(lone.points_total == 0);
}

TEST_CASE("d log d growth: ideal data never refute it for any C, growth like d^2 does", "[stats][uniform][power]") {
  // Ideal data: P = 1 exactly when m >= C·d·ln d, else 0, on the grid m = 8..256 (doubling) at d = 8..64 with 80
  // draws. The needed m as a real threshold lies in (previous grid size, first size reached]; the check must find
  // a C for every true C (before the fix it read the bracket's lower end as a bound on C·d·ln d and reported
  // violated). A law m ∝ d² with the same data shape must be refuted.
  const std::vector<int> grid{8, 16, 32, 64, 128, 256}, ds{8, 16, 32, 64};
  const std::int64_t draws = 80;
  const double point_alpha = 0.05 / static_cast<double>(grid.size() * ds.size());
  const auto brackets = [&](const std::function<double(int)>& threshold) {
    std::vector<SufficientSize> out;
    for (int d : ds) {
      std::vector<std::int64_t> successes;
      for (int m : grid) successes.push_back(m >= threshold(d) ? draws : 0);
      out.push_back(sufficient_size(grid, successes, draws, 0.9, point_alpha));
    }
    return out;
  };
  std::vector<double> rate;
  for (int d : ds) rate.push_back(d * std::log(static_cast<double>(d)));
  for (double c : {0.2, 0.25, 0.3, 0.37, 0.45}) {  // thresholds within the grid at every d
    const Check fit = proportional_growth_check("c", "w", brackets([&](int d) { return c * d * std::log(double(d)); }), rate);
    INFO("C = " << c << ": " << fit.detail);
    CHECK(fit.status == Verdict::inconclusive);  // a fitting constant does not establish a law
  }
  const Check quadratic = proportional_growth_check("c", "w", brackets([](int d) { return 0.06 * d * d; }), rate);
  INFO(quadratic.detail);
  CHECK(quadratic.status == Verdict::violated);
  // A missing lower end (P < target established on the whole grid) bounds C from below by grid max / rate.
  const SufficientSize beyond = sufficient_size(grid, {0, 0, 0, 0, 0, 0}, draws, 0.9, point_alpha);
  CHECK(beyond.lower == 0);
  CHECK(beyond.excluded == 256);
  const SufficientSize cheap{8, 8, 8, 0, "d=64"};
  CHECK(proportional_growth_check("c", "w", {beyond, cheap}, {1.0, 1.0}).status == Verdict::violated);
  // Non-finite draws are neither successes nor failures: they can never close a bracket.
  const SufficientSize unknown = sufficient_size(grid, {0, 0, 0, 0, 0, 0}, draws, 0.9, point_alpha, {0, 0, 80, 0, 0, 0});
  CHECK(unknown.lower == 32);
  CHECK(unknown.excluded == 16);
  CHECK(unknown.upper == 0);
}
