#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "features/estimator.hpp"
#include "features/feature_maps.hpp"
#include "features/shifted_exp.hpp"
#include "kernels/geometry.hpp"

using namespace favorlab;

namespace {
Eigen::MatrixXd sample_inputs(int rows, int d, std::uint64_t seed) {
  PhiloxStream rng(seed, 0, 0);
  Eigen::MatrixXd u(rows, d);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < d; ++j) u(i, j) = 0.4 * rng.normal();
  return u;
}
}  // namespace

TEST_CASE("feature maps match their definitions entry by entry", "[features]") {
  const int d = 6, m = 5;
  const Eigen::MatrixXd u = sample_inputs(4, d, 1);
  PhiloxStream rng(2, 0, 0);
  const Eigen::MatrixXd w = iid_projection(m, d, rng);
  const auto trig = trig_features<double>(u, w), pos = positive_features<double>(u, w),
             hyp = hyperbolic_features<double>(u, w);
  REQUIRE(trig.cols() == 2 * m);
  REQUIRE(pos.cols() == m);
  REQUIRE(hyp.cols() == 2 * m);
  for (int r = 0; r < u.rows(); ++r) {
    const double sq = u.row(r).squaredNorm();
    for (int i = 0; i < m; ++i) {
      const double a = w.row(i).dot(u.row(r));
      CHECK(trig(r, i) == Approx(std::exp(sq / 2) * std::sin(a) / std::sqrt(m)).epsilon(1e-13));
      CHECK(trig(r, m + i) == Approx(std::exp(sq / 2) * std::cos(a) / std::sqrt(m)).epsilon(1e-13));
      CHECK(pos(r, i) == Approx(std::exp(-sq / 2) * std::exp(a) / std::sqrt(m)).epsilon(1e-13));
      CHECK(hyp(r, i) == Approx(std::exp(-sq / 2) * std::exp(a) / std::sqrt(2 * m)).epsilon(1e-13));
      CHECK(hyp(r, m + i) == Approx(std::exp(-sq / 2) * std::exp(-a) / std::sqrt(2 * m)).epsilon(1e-13));
    }
  }
}

TEST_CASE("shifted_exp underflows and overflows as std::exp does, features of a huge input underflow to 0",
          "[features]") {
  // Eigen's SIMD exp alone returns about the smallest normal for every exponent below log(smallest normal): the power
  // case, so that this test sees the difference it guards.
  const Eigen::ArrayXd raw = Eigen::ArrayXd::Constant(16, -800.0);
  const Eigen::ArrayXd packet_exp = raw.exp();  // evaluated whole, in packets (one coefficient alone is std::exp)
  REQUIRE(packet_exp(0) > 0);
  REQUIRE(std::exp(-800.0) == 0);
  const auto check = [](auto zero) {
    using T = decltype(zero);
    Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic> x(6, 3);
    // column 0 below the normal range (subnormal and 0), column 1 overflows, column 2 ordinary
    x.col(0) << T(-750), T(-710), T(-100), T(-90), T(-1), T(0);
    x.col(1) << T(1000), T(0.5), T(2), T(-3), T(4), T(-5);
    x.col(2) << T(0.5), T(-1.5), T(2.5), T(-3.5), T(4.5), T(-5.5);
    const Eigen::Array<T, Eigen::Dynamic, 1> shift = Eigen::Array<T, Eigen::Dynamic, 1>::Constant(6, T(0.25));
    for (const T sign : {T(1), T(-1)}) {
      Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic> y = x;
      shifted_exp(y, shift, T(0.5), sign);
      for (Eigen::Index c = 0; c < 3; ++c)
        for (Eigen::Index i = 0; i < 6; ++i) {
          const T expected = std::exp(sign * x(i, c) - shift(i)) * T(0.5);
          INFO("sign " << sign << " column " << c << " row " << i << ": " << y(i, c) << " vs " << expected);
          if (std::isinf(expected) || expected < std::numeric_limits<T>::min())
            CHECK(y(i, c) == expected);  // the scalar path: exactly std::exp's inf, subnormal or 0
          else
            CHECK(std::abs(y(i, c) - expected) <= 4 * std::numeric_limits<T>::epsilon() * expected);
        }
    }
  };
  check(0.0);
  check(0.0f);
  // Plain positive features of an input whose exponents all lie near −30000 are 0, not tiny equal numbers.
  Eigen::MatrixXd u = sample_inputs(3, 8, 5) * 600.0;
  PhiloxStream rng(6, 0, 0);
  const Eigen::MatrixXd w = iid_projection(4, 8, rng);
  CHECK(positive_features<double>(u, w).cwiseAbs().maxCoeff() == 0);
}

TEST_CASE("float feature maps agree with double", "[features]") {
  const Eigen::MatrixXd u = sample_inputs(8, 16, 3);
  PhiloxStream rng(4, 0, 0);
  const Eigen::MatrixXd w = iid_projection(32, 16, rng);
  const Eigen::MatrixXf uf = u.cast<float>(), wf = w.cast<float>();
  const auto check = [](const Eigen::MatrixXd& a, const Eigen::MatrixXf& b) {
    CHECK((a - b.cast<double>()).cwiseAbs().maxCoeff() <= 1e-5 * a.cwiseAbs().maxCoeff());
  };
  check(trig_features<double>(u, w), trig_features<float>(uf, wf));
  check(positive_features<double>(u, w), positive_features<float>(uf, wf));
  check(hyperbolic_features<double>(u, w), hyperbolic_features<float>(uf, wf));
}

TEST_CASE("phi(x)^T phi(y) equals the estimator formulas of docs/theory.md", "[features]") {
  const int d = 8, m = 7;
  const Geometry g{0.9, 1.2, -0.3};
  const Eigen::VectorXd x = geometry_x(g, d), y = geometry_y(g, d);
  REQUIRE(x.dot(y) == Approx(g.dot()));
  PhiloxStream rng(5, 0, 0);
  const Eigen::MatrixXd w = iid_projection(m, d, rng);
  const Eigen::MatrixXd xs = x.transpose(), ys = y.transpose();
  double trig = 0, pos = 0, hyp = 0;
  for (int i = 0; i < m; ++i) {
    trig += std::cos(w.row(i).dot(x - y));
    pos += std::exp(w.row(i).dot(x + y));
    hyp += std::cosh(w.row(i).dot(x + y));
  }
  const double lambda = std::exp(g.log_lambda());
  CHECK(estimate_kernel(Family::trig, xs, ys, w)(0) == Approx(trig / m / lambda).epsilon(1e-12));
  CHECK(estimate_kernel(Family::positive, xs, ys, w)(0) == Approx(lambda * pos / m).epsilon(1e-12));
  CHECK(estimate_kernel(Family::hyperbolic, xs, ys, w)(0) == Approx(lambda * hyp / m).epsilon(1e-12));
}

TEST_CASE("estimator names round-trip and unknown names are rejected", "[features]") {
  for (const auto& name : estimator_names()) CHECK(estimator_name(parse_estimator(name)) == name);
  CHECK_THROWS_AS(parse_estimator("softmax"), std::invalid_argument);
}

TEST_CASE("feature maps and estimates written into reused buffers equal freshly allocated ones bit for bit",
          "[features]") {
  // Buffers left dirty by a call with other shapes and another family: nothing of theirs may reach the result.
  KernelWorkspace workspace;
  Eigen::MatrixXd out = Eigen::MatrixXd::Constant(9, 3, std::numeric_limits<double>::quiet_NaN());
  int calls = 0;
  for (const int rows : {5, 3, 5})
    for (const int m : {7, 4})
      for (const std::string& name : estimator_names()) {
        const Family e = parse_estimator(name);
        const int d = 6;
        const Eigen::MatrixXd x = sample_inputs(rows, d, 10 + rows), y = sample_inputs(rows, d, 20 + m);
        PhiloxStream rng(30 + m, 0, 0);
        Eigen::MatrixXd w = iid_projection(m, d, rng);
        if (row_norms_for(e) == RowNorms::sqrt_d) rescale_rows_to_sqrt_d(w);
        const Eigen::VectorXd fresh = estimate_kernel(e, x, y, w);
        const FeatureParameters defaults;
        const Eigen::VectorXd& reused = estimate_kernel(e, x, y, w, defaults, workspace);
        REQUIRE(reused.size() == rows);
        CHECK((reused.array() == fresh.array()).all());
        ++calls;
      }
  CHECK(calls == 6 * static_cast<int>(estimator_names().size()));

  const Eigen::MatrixXd u = sample_inputs(4, 6, 40);
  PhiloxStream rng(41, 0, 0);
  const Eigen::MatrixXd w = iid_projection(5, 6, rng);
  trig_features<double>(u, w, out);
  CHECK(out == trig_features<double>(u, w));
  positive_features<double>(u, w, out);
  CHECK(out == positive_features<double>(u, w));
  hyperbolic_features<double>(u, w, out);
  CHECK(out == hyperbolic_features<double>(u, w));
}
