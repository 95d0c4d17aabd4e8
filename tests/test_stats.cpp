#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "rng/philox_stream.hpp"
#include "stats/claim_check.hpp"
#include "stats/edgeworth.hpp"
#include "stats/ks_test.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/running_moments.hpp"

using namespace favorlab;

TEST_CASE("running moments equal two-pass formulas and merge exactly like one pass", "[stats]") {
  PhiloxStream rng(3, 0, 0);
  std::vector<double> x;
  for (int i = 0; i < 1001; ++i) x.push_back(std::exp(rng.normal()) + 5);  // skewed, offset from 0
  RunningMoments all, left, right;
  for (std::size_t i = 0; i < x.size(); ++i) {
    all.add(x[i]);
    (i < 400 ? left : right).add(x[i]);
  }
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double c2 = 0, c3 = 0, c4 = 0, sq = 0, sq2 = 0;
  for (double v : x) {
    c2 += std::pow(v - mean, 2);
    c3 += std::pow(v - mean, 3);
    c4 += std::pow(v - mean, 4);
    sq += v * v;
  }
  const double n = static_cast<double>(x.size());
  sq /= n;
  for (double v : x) sq2 += std::pow(v * v - sq, 2);
  CHECK(all.mean() == Approx(mean).epsilon(1e-14));
  CHECK(all.central_moment(2) == Approx(c2 / n).epsilon(1e-12));
  CHECK(all.central_moment(3) == Approx(c3 / n).epsilon(1e-10));
  CHECK(all.central_moment(4) == Approx(c4 / n).epsilon(1e-10));
  CHECK(all.mean_square() == Approx(sq).epsilon(1e-13));
  CHECK(all.mean_square_stderr() == Approx(std::sqrt(sq2 / (n - 1) / n)).epsilon(1e-8));
  left.merge(right);
  CHECK(left.count() == all.count());
  CHECK(left.mean() == Approx(all.mean()).epsilon(1e-14));
  for (int k = 2; k <= 4; ++k) CHECK(left.central_moment(k) == Approx(all.central_moment(k)).epsilon(1e-10));
}

TEST_CASE("normal quantiles and p-values", "[stats]") {
  CHECK(two_sided_critical_z(0.05) == Approx(1.959963985).epsilon(1e-9));
  CHECK(one_sided_critical_z(0.05) == Approx(1.644853627).epsilon(1e-9));
  CHECK(two_sided_p_value(1.959963985) == Approx(0.05).epsilon(1e-8));
  CHECK(bonferroni_alpha(0.01, 20) == Approx(5e-4));
  CHECK_THROWS_AS(two_sided_critical_z(0), std::invalid_argument);
}

TEST_CASE("KS p-value: Kolmogorov distribution values", "[stats]") {
  // Q_KS(λ) at λ = 1.3581 is 0.05 (the classical 5% point); large n makes Stephens' correction negligible.
  const std::size_t n = 1000000;
  CHECK(ks_p_value(1.3581 / (std::sqrt(double(n)) + 0.12 + 0.11 / std::sqrt(double(n))), n) ==
        Approx(0.05).epsilon(1e-3));
}

TEST_CASE("Edgeworth criterion: more skew needs more trials, quadratically", "[stats]") {
  const double z = 4;
  const auto n1 = trials_for_reliable_z_test(1.0, z, 1e-4), n2 = trials_for_reliable_z_test(2.0, z, 1e-4);
  CHECK(n2 == Approx(4.0 * static_cast<double>(n1)).epsilon(1e-2));  // up to the ceiling
  CHECK(edgeworth_tail_shift(1.0, z, n1) <= 1e-4 / 2);
  CHECK(edgeworth_tail_shift(1.0, z, n1 / 2) > 1e-4 / 2);
}

TEST_CASE("claim check: holds, violated, inconclusive", "[stats]") {
  ClaimCheck check("claim", "here", 1e-3, 4);
  CHECK(check.judge({1.0, 1.0, 0.1, 0, 0, 1000, 0, "a"}).status == "holds");
  CHECK(check.judge({1.0, 1.3, 0.01, 0, 0, 1000, 0, "b"}).status == "violated");            // z = −30
  CHECK(check.judge({1.0, 1.3, 0.01, 0, 1e3, 1000, 0, "c"}).status == "inconclusive");      // far too skewed
  CHECK(check.judge({1.0, 1.0, 0.1, 0, 0, 1000, 3, "d"}).status == "inconclusive");         // NaNs seen
  CHECK(check.judge({1.0, 1.0, 0.1, 0, 0, 1000, 0, "e", 5000}).status == "inconclusive");   // another criterion
  const Check c = check.result();
  CHECK(c.status == "violated");
  CHECK(c.statistic == Approx(-30));

  ClaimCheck upper("upper", "here", 1e-3, 2, ClaimCheck::Sides::upper);
  CHECK(upper.judge({-5.0, 0, 0.1, 0, 0, 1000, 0, "a"}).status == "holds");  // far below: fine for ≤
  CHECK(upper.judge({5.0, 0, 0.1, 0, 0, 1000, 0, "b"}).status == "violated");
  CHECK(ClaimCheck("x", "y", 1e-3, 1).result().status == "holds");
}

TEST_CASE("claim check: an exact point within the rounding allowance holds even with zero standard error", "[stats]") {
  ClaimCheck check("claim", "here", 1e-3, 2);
  CHECK(check.judge({1.0 + 1e-15, 1.0, 0.0, 1e-12, 0, 100, 0, "exact"}).status == "holds");
  CHECK(check.judge({1.1, 1.0, 0.0, 1e-12, 0, 100, 0, "wrong"}).status == "violated");
}
