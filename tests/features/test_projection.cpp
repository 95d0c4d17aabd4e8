#include <boost/math/distributions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "features/projection.hpp"
#include "stats/ks_test.hpp"

using namespace favorlab;

namespace {
constexpr double kKsAlpha = 1e-4;  // per KS test; seeds fixed, so CI is deterministic
}

TEST_CASE("orthogonal projection: rows within a block are orthogonal", "[projection]") {
  for (int d : {2, 5, 16, 33}) {
    for (int m : {1, d / 2 + 1, d, 2 * d + 3}) {
      PhiloxStream rng(1, 2, static_cast<std::uint64_t>(d * 100 + m));
      const Eigen::MatrixXd w = orthogonal_projection(m, d, rng);
      REQUIRE(w.rows() == m);
      REQUIRE(w.cols() == d);
      for (int start = 0; start < m; start += d) {
        const int rows = std::min(d, m - start);
        Eigen::MatrixXd dirs = w.middleRows(start, rows);
        for (int i = 0; i < rows; ++i) dirs.row(i).normalize();
        const Eigen::MatrixXd gram = dirs * dirs.transpose();
        CHECK((gram - Eigen::MatrixXd::Identity(rows, rows)).cwiseAbs().maxCoeff() < 1e-12);
      }
    }
  }
}

TEST_CASE("row norms: chi_d for Gaussian-marginal rows, exactly sqrt(d) for regularized rows", "[projection][statistical]") {
  const int d = 8, trials = 4000;
  for (Coupling c : {Coupling::iid, Coupling::orthogonal}) {
    std::vector<double> norms;
    for (int t = 0; t < trials; ++t) {
      PhiloxStream rng(5, static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(t));
      const Eigen::MatrixXd w = draw_projection(c, RowNorms::chi, 1, d, rng);
      norms.push_back(w.row(0).norm());
      PhiloxStream rng2(6, static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(t));
      const Eigen::MatrixXd r = draw_projection(c, RowNorms::sqrt_d, 3, d, rng2);
      for (int i = 0; i < 3; ++i) REQUIRE(r.row(i).norm() == Approx(std::sqrt(d)).epsilon(1e-14));
    }
    const auto chi_cdf = [&](double x) { return boost::math::gamma_p(d / 2.0, x * x / 2); };
    INFO("coupling " << coupling_name(c));
    CHECK(ks_p_value(ks_statistic(norms, chi_cdf), norms.size()) > kKsAlpha);
  }
}

TEST_CASE("orthogonal directions are Haar: Q_11 follows the law of one coordinate of a uniform unit vector",
          "[projection][statistical]") {
  // u₁ of a uniform point on S^{d−1}: (u₁ + 1)/2 ~ Beta((d−1)/2, (d−1)/2). Without the sign fix, Householder QR
  // gives Q_11 of one sign only and this test fails.
  for (int d : {3, 6}) {
    std::vector<double> first;
    for (int t = 0; t < 4000; ++t) {
      PhiloxStream rng(9, static_cast<std::uint64_t>(d), static_cast<std::uint64_t>(t));
      const Eigen::MatrixXd w = orthogonal_projection(d, d, rng);
      first.push_back(w(0, 0) / w.row(0).norm());
    }
    const boost::math::beta_distribution<> law((d - 1) / 2.0, (d - 1) / 2.0);
    INFO("d = " << d);
    CHECK(ks_p_value(ks_statistic(first, [&](double x) { return boost::math::cdf(law, (x + 1) / 2); }),
                     first.size()) > kKsAlpha);
  }
}

TEST_CASE("projections reject non-positive shapes", "[projection]") {
  PhiloxStream rng(1, 1, 1);
  CHECK_THROWS_AS(iid_projection(0, 4, rng), std::invalid_argument);
  CHECK_THROWS_AS(orthogonal_projection(-1, 4, rng), std::invalid_argument);
  CHECK_THROWS_AS(orthogonal_projection(3, 0, rng), std::invalid_argument);
  CHECK_THROWS_AS(parse_coupling("haar"), std::invalid_argument);
}
