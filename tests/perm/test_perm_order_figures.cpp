// Figures read off the exact order distribution (perm/order_histogram.hpp) on S_4, worked out by hand, and the
// distinct-order counts of perm/distinct_orders.hpp against the exact distribution's own list of orders.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "perm/distinct_orders.hpp"
#include "perm/order_distribution.hpp"
#include "perm/order_histogram.hpp"

using namespace favorlab;

TEST_CASE("Order histogram and tail probability on S_4", "[perm]") {
  // S_4: order 1 (the identity), 2 (6 transpositions + 3 double transpositions), 3 (8 three-cycles), 4 (6
  // four-cycles). ln: 0, 0.69, 1.10, 1.39 → bins of width 0.5: 0, 1, 2, 2.
  const OrderDistribution dist = order_distribution(4);
  REQUIRE(dist.orders == std::vector<std::uint64_t>{1, 2, 3, 4});
  const std::vector<double> four = log_order_histogram(dist, 0.5, 4);
  REQUIRE(four.size() == 4);
  CHECK(four[0] == Approx(1.0 / 24).epsilon(1e-15));
  CHECK(four[1] == Approx(9.0 / 24).epsilon(1e-15));
  CHECK(four[2] == Approx(14.0 / 24).epsilon(1e-15));
  CHECK(four[3] == 0);
  // Two bins: everything above the first goes to the last.
  const std::vector<double> two = log_order_histogram(dist, 0.5, 2);
  CHECK(two[0] == Approx(1.0 / 24).epsilon(1e-15));
  CHECK(two[1] == Approx(23.0 / 24).epsilon(1e-15));
  CHECK_THROWS_AS(log_order_histogram(dist, 0.5, 0), std::invalid_argument);
  CHECK_THROWS_AS(log_order_histogram(dist, 0.0, 2), std::invalid_argument);

  CHECK(probability_order_above(dist, 0.5) == 1.0);
  CHECK(probability_order_above(dist, 2) == Approx(14.0 / 24).epsilon(1e-15));  // strictly above: orders 3, 4
  CHECK(probability_order_above(dist, 3) == Approx(6.0 / 24).epsilon(1e-15));
  CHECK(probability_order_above(dist, 4) == 0.0);
}

TEST_CASE("Distinct orders of S_s by knapsack equal those of the exact distribution", "[perm]") {
  const std::vector<double> counts = distinct_order_counts(40);
  REQUIRE(counts.size() == 41);
  CHECK(counts[0] == 1);
  // OEIS A009490 begins 1, 1, 2, 3, 4, 6, 6, 9, 11, 14, 16 (n = 0 … 10).
  CHECK(counts[7] == 9);
  CHECK(counts[10] == 16);
  for (int s = 1; s <= 40; ++s) {
    INFO("s = " << s);
    CHECK(counts[static_cast<std::size_t>(s)] == static_cast<double>(order_distribution(s).orders.size()));
  }
  CHECK(distinct_order_counts(-1).empty());
  CHECK_THROWS_AS(distinct_order_counts(1025), std::invalid_argument);
}
