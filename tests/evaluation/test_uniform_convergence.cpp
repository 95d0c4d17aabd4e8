// The library pieces of `favorlab uniform` (Theorem 4): inputs on the sphere, the max-entry errors at nested lengths
// with one W and one grid entry of them across draws, the success and unjudged counts of a grid point, and the fewest
// draws at which a Clopper–Pearson interval can establish P ≥ target.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/attention_max_error.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/sufficient_size.hpp"

using namespace favorlab;

TEST_CASE("sphere inputs: Gaussian directions at the given norm, nested in the row count", "[uniform]") {
  const Eigen::MatrixXd x = sphere_input(50, 7, 2.5, 3, 11, 0);
  const Eigen::MatrixXd g = gaussian_input(50, 7, 1.0, 3, 11, 0);
  for (int i = 0; i < 50; ++i) {
    // One division and one product per entry, then a norm of 7 terms: a few ε of 2.5.
    CHECK(x.row(i).norm() == Approx(2.5).epsilon(1e-14));
    // Same direction as the Gaussian row: the cosine is 1 to rounding.
    CHECK(x.row(i).dot(g.row(i)) / (x.row(i).norm() * g.row(i).norm()) == Approx(1).epsilon(1e-14));
  }
  CHECK(sphere_input(20, 7, 2.5, 3, 11, 0) == x.topRows(20));
  CHECK(sphere_input(20, 7, 2.5, 3, 12, 0) != x.topRows(20));  // another stream: other rows
}

TEST_CASE("prefix max errors: one W, each length's errors those of the first L rows", "[uniform]") {
  AttentionConfig config;
  config.features = Family::trig;
  config.coupling = Coupling::orthogonal;
  config.m = 16;
  const Eigen::MatrixXd q = sphere_input(40, 4, 1.0, 5, 1, 0), k = sphere_input(40, 4, 1.0, 5, 2, 0);
  const Eigen::MatrixXd w = draw_attention_projection(config, 4, 5, 0);
  const std::vector<int> ls{10, 40}, ms{4, 16};
  const auto all = prefix_max_errors(q, k, w, config, ls, ms);
  REQUIRE(all.size() == 4);
  for (std::size_t li = 0; li < ls.size(); ++li) {
    const auto direct = attention_max_errors(q.topRows(ls[li]), k.topRows(ls[li]), w, config, ms);
    for (std::size_t mi = 0; mi < ms.size(); ++mi) {
      CHECK(all[li * ms.size() + mi].m == ms[mi]);
      CHECK(all[li * ms.size() + mi].unnormalized == direct[mi].unnormalized);
      CHECK(all[li * ms.size() + mi].normalized == direct[mi].normalized);
    }
  }
  // The longer prefix holds every entry of the shorter: its maximum is at least as large.
  CHECK(all[2].unnormalized >= all[0].unnormalized);
  CHECK_THROWS_WITH(prefix_max_errors(q, k, w, config, {41}, ms), Catch::Contains("length 41 outside [1, 40]"));
  CHECK_THROWS_WITH(prefix_max_errors(q, k, w, config, {0}, ms), Catch::Contains("length 0"));
}

TEST_CASE("max error samples: one grid entry across draws, each kind sorted", "[uniform]") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<AttentionMaxError>> draws{{{4, 0.3, 0.03}, {8, 0.2, 0.02}},
                                                          {{4, inf, 0.01}, {8, 0.4, 0.05}},
                                                          {{4, 0.1, 0.02}, {8, 0.1, 0.04}}};
  const MaxErrorSamples first = max_error_samples(draws, 0);
  CHECK(first.unnormalized == std::vector<double>{0.1, 0.3, inf});
  CHECK(first.normalized == std::vector<double>{0.01, 0.02, 0.03});
  const MaxErrorSamples second = max_error_samples(draws, 1);
  CHECK(second.unnormalized == std::vector<double>{0.1, 0.2, 0.4});
  CHECK(second.normalized == std::vector<double>{0.02, 0.04, 0.05});
  CHECK(max_error_samples({}, 3).unnormalized.empty());
  CHECK_THROWS_WITH(max_error_samples(draws, 2), Catch::Contains("entry 2 of a draw with 2"));
}

TEST_CASE("threshold counts: successes at or below the threshold, non-finite values unjudged", "[uniform][stats]") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const ThresholdCounts c = threshold_counts({0.1, 0.15, 0.2, inf, nan, 0.05, -inf}, 0.15);
  CHECK(c.successes == 3);  // 0.1, 0.15 (at the threshold), 0.05
  CHECK(c.unjudged == 3);
  const ThresholdCounts none = threshold_counts({}, 1.0);
  CHECK(none.successes == 0);
  CHECK(none.unjudged == 0);
}

TEST_CASE("Clopper-Pearson: the fewest trials that can establish P >= target", "[uniform][stats]") {
  // uniform's full grid: α_point = 0.05/72, target 0.9: 76 draws (its default_trials comment).
  CHECK(clopper_pearson_trials_to_reach(0.9, 0.05 / 72) == 76);
  for (const auto& [target, alpha] : {std::pair{0.9, 0.05}, std::pair{0.5, 0.01}, std::pair{0.99, 1e-3},
                                      std::pair{0.9, 0.05 / 72}}) {
    const std::int64_t n = clopper_pearson_trials_to_reach(target, alpha);
    INFO("target " << target << ", alpha " << alpha << ": n = " << n);
    REQUIRE(n >= 2);
    // n successes of n establish it; n − 1 of n − 1, the best outcome of one trial fewer, do not.
    CHECK(clopper_pearson(n, n, alpha).lower >= target);
    CHECK(clopper_pearson(n - 1, n - 1, alpha).lower < target);
  }
  CHECK_THROWS_AS(clopper_pearson_trials_to_reach(1.0, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(clopper_pearson_trials_to_reach(0.9, 0), std::invalid_argument);
}
