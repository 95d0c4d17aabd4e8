// Differential tests: the Eigen code paths against an independent Armadillo (LAPACK) computation on the same inputs.
#include <armadillo>
#include <catch2/catch.hpp>

#include "features/feature_maps.hpp"
#include "features/projection.hpp"

using namespace favorlab;

namespace {
arma::mat to_arma(const Eigen::MatrixXd& a) {
  arma::mat b(static_cast<arma::uword>(a.rows()), static_cast<arma::uword>(a.cols()));
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) b(static_cast<arma::uword>(i), static_cast<arma::uword>(j)) = a(i, j);
  return b;
}
double max_abs_diff(const Eigen::MatrixXd& a, const arma::mat& b) {
  REQUIRE(a.rows() == static_cast<Eigen::Index>(b.n_rows));
  REQUIRE(a.cols() == static_cast<Eigen::Index>(b.n_cols));
  double worst = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      worst = std::max(worst, std::abs(a(i, j) - b(static_cast<arma::uword>(i), static_cast<arma::uword>(j))));
  return worst;
}
}  // namespace

TEST_CASE("Haar orthogonal directions equal LAPACK's QR of the same Gaussian matrix after the sign fix",
          "[differential]") {
  for (int d : {3, 8, 17}) {
    // Re-create the Gaussian matrix orthogonal_projection draws (column-major from the same stream).
    PhiloxStream g_rng(11, 1, static_cast<std::uint64_t>(d));
    arma::mat g(static_cast<arma::uword>(d), static_cast<arma::uword>(d));
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < d; ++i) g(static_cast<arma::uword>(i), static_cast<arma::uword>(j)) = g_rng.normal();
    arma::mat q, r;
    REQUIRE(arma::qr(q, r, g));
    for (int j = 0; j < d; ++j)
      if (r(static_cast<arma::uword>(j), static_cast<arma::uword>(j)) < 0) q.col(static_cast<arma::uword>(j)) *= -1;

    PhiloxStream rng(11, 1, static_cast<std::uint64_t>(d));
    Eigen::MatrixXd w = orthogonal_projection(d, d, rng);
    for (int i = 0; i < d; ++i) w.row(i).normalize();
    INFO("d = " << d);
    CHECK(max_abs_diff(w, q) < 1e-12);
  }
}

TEST_CASE("feature maps equal the same formulas written in Armadillo", "[differential]") {
  const int d = 12, m = 20, rows = 9;
  PhiloxStream rng(12, 0, 0);
  const Eigen::MatrixXd w = iid_projection(m, d, rng);
  Eigen::MatrixXd u(rows, d);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < d; ++j) u(i, j) = 0.3 * rng.normal();
  const arma::mat au = to_arma(u), aw = to_arma(w);
  const arma::mat proj = au * aw.t();
  const arma::vec h = arma::sum(arma::square(au), 1) / 2;
  const arma::mat scale_neg = arma::repmat(arma::exp(-h), 1, m), scale_pos = arma::repmat(arma::exp(h), 1, m);

  const arma::mat pos = arma::exp(proj) % scale_neg / std::sqrt(m);
  const arma::mat hyp = arma::join_rows(arma::exp(proj) % scale_neg, arma::exp(-proj) % scale_neg) / std::sqrt(2 * m);
  const arma::mat trig = arma::join_rows(arma::sin(proj) % scale_pos, arma::cos(proj) % scale_pos) / std::sqrt(m);
  CHECK(max_abs_diff(positive_features<double>(u, w), pos) < 1e-13);
  CHECK(max_abs_diff(hyperbolic_features<double>(u, w), hyp) < 1e-13);
  CHECK(max_abs_diff(trig_features<double>(u, w), trig) < 1e-13);
}
