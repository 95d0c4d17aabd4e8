// The vectorized sin/cos of the trig feature maps (features/scaled_sin_cos.hpp) against long double libm, the
// reference beside it. Error unit: ulp_T(v) = 2^(e − p) for the T-binade [2^(e−1), 2^e) holding |v|, p = 24 or 53.
// Bound: 2.5 ulp of f·sin(x) — the contract is sin and cos within 2 ulp, plus the half ulp of rounding the product
// with the row factor f. Measured on the development machine over 65 536 arguments per range (|x| up to 0.5 … 1e30):
// at most 1.93 ulp (double, |x| ≤ 1e4), 1.49 (float). Each power case below (an argument off by a relative 2^-50, as
// a reduction by a wrong π/2 would be; the row factor dropped; the tail left unwritten) errs by hundreds of ulp and
// must fail the bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "features/scaled_sin_cos.hpp"
#include "ulp.hpp"

using namespace favorlab;

using favorlab::testing::ulp_of;

namespace {

constexpr double kBound = 2.5;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// Largest |out − f·sin(x)| / ulp(f·sin(x)) (and the same for cos) over all entries.
template <class T>
double max_ulp_error(const Mat<T>& x, const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Mat<T>& s, const Mat<T>& c) {
  double worst = 0;
  for (Eigen::Index j = 0; j < x.cols(); ++j)
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const long double xs = x(i, j), fs = f(i);
      const long double ts = fs * std::sin(xs), tc = fs * std::cos(xs);
      worst = std::max(worst, double(std::fabs(s(i, j) - ts) / ulp_of<T>(ts)));
      worst = std::max(worst, double(std::fabs(c(i, j) - tc) / ulp_of<T>(tc)));
    }
  return worst;
}

template <class T>
Mat<T> uniform_arguments(Eigen::Index rows, Eigen::Index cols, double range, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-range, range);
  Mat<T> x(rows, cols);
  for (Eigen::Index k = 0; k < x.size(); ++k) x.data()[k] = T(u(gen));
  return x;
}

template <class T>
void check_accuracy() {
  // The factor 1 keeps the error in sin/cos themselves; powers of two would scale exactly.
  for (double range : {0.5, 3.0, 50.0, 1e4, 1e9, 1e30}) {
    const Mat<T> x = uniform_arguments<T>(4096, 16, range, 7);
    const Eigen::Matrix<T, Eigen::Dynamic, 1> f = Eigen::Matrix<T, Eigen::Dynamic, 1>::Ones(x.rows());
    Mat<T> s(x.rows(), x.cols()), c(x.rows(), x.cols());
    scaled_sin_cos<T>(x, f.data(), s, c);
    INFO("range " << range);
    CHECK(max_ulp_error<T>(x, f, s, c) <= kBound);
  }
}

}  // namespace

TEST_CASE("vectorized sin/cos within 2.5 ulp of libm across argument ranges", "[features][simd]") {
  check_accuracy<double>();
  check_accuracy<float>();
}

TEST_CASE("vectorized sin/cos: row factors, every tail length, special values", "[features][simd]") {
  using T = double;
  for (Eigen::Index rows = 0; rows <= 11; ++rows) {  // every remainder of the widest batch (8 floats, 4 doubles)
    const Mat<T> x = uniform_arguments<T>(rows, 3, 10.0, 11 + rows);
    Eigen::Matrix<T, Eigen::Dynamic, 1> f(rows);
    for (Eigen::Index i = 0; i < rows; ++i) f(i) = 0.25 + 0.5 * double(i);
    Mat<T> out(rows, 6);
    scaled_sin_cos<T>(x, f.data(), out.leftCols(3), out.rightCols(3));
    INFO("rows " << rows);
    CHECK(max_ulp_error<T>(x, f, Mat<T>(out.leftCols(3)), Mat<T>(out.rightCols(3))) <= kBound);
  }
  Mat<T> x(6, 1);
  x << 0.0, -0.0, std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
      std::numeric_limits<T>::quiet_NaN(), 1e300;
  const Eigen::VectorXd f = Eigen::VectorXd::Ones(6);
  Mat<T> s(6, 1), c(6, 1);
  scaled_sin_cos<T>(x, f.data(), s, c);
  CHECK(s(0) == 0.0);
  CHECK(c(0) == 1.0);
  CHECK(std::signbit(s(1)));
  for (int i = 2; i < 5; ++i) CHECK((std::isnan(s(i)) && std::isnan(c(i))));
  CHECK(std::fabs(s(5) - std::sin(1e300)) <= kBound * ulp_of<T>(std::sin(1e300)));
}

TEST_CASE("vectorized sin/cos: the bound sees a wrong reduction, a dropped factor, a skipped tail",
          "[features][simd][power]") {
  using T = double;
  const Mat<T> x = uniform_arguments<T>(67, 4, 50.0, 3);  // 67 = 16 batches of 4 and a tail of 3
  Eigen::VectorXd f(67);
  for (Eigen::Index i = 0; i < 67; ++i) f(i) = 1.0 + 1e-3 * double(i);
  Mat<T> s(67, 4), c(67, 4);
  scaled_sin_cos<T>(x, f.data(), s, c);
  REQUIRE(max_ulp_error<T>(x, f, s, c) <= kBound);
  // A reduction by a π/2 wrong in its last bit: the argument x·(1 + 2^-50) stands for that error at |x| ≤ 50.
  const Mat<T> nudged = x * (1.0 + std::ldexp(1.0, -50));
  Mat<T> s2(67, 4), c2(67, 4);
  scaled_sin_cos<T>(nudged, f.data(), s2, c2);
  CHECK(max_ulp_error<T>(x, f, s2, c2) > kBound);
  // The row factor dropped.
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(67);
  scaled_sin_cos<T>(x, ones.data(), s2, c2);
  CHECK(max_ulp_error<T>(x, f, s2, c2) > kBound);
  // The tail (last 3 rows) left unwritten.
  Mat<T> s3 = Mat<T>::Zero(67, 4), c3 = Mat<T>::Zero(67, 4);
  scaled_sin_cos<T>(Mat<T>(x.topRows(64)), f.data(), s3.topRows(64), c3.topRows(64));
  CHECK(max_ulp_error<T>(x, f, s3, c3) > kBound);
}
