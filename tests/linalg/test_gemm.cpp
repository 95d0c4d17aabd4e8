#include "linalg/gemm.hpp"

#include <omp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

namespace favorlab {
namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// Entries of both signs and many magnitudes, a fixed function of (i, j, seed).
template <class T>
Mat<T> filled(Eigen::Index rows, Eigen::Index cols, int seed) {
  Mat<T> x(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i)
      x(i, j) = T(std::sin(0.37 * double(i) + 1.31 * double(j) + 0.7 * seed) *
                  std::exp(std::cos(double(i * j + seed))));
  return x;
}

template <class T>
Mat<long double> widened(const Mat<T>& x) {
  return x.template cast<long double>();
}

// Rounding-error bound of any summation order, fused or not: |ĉ − c| ≤ γ_n (|β||C| + |A||B|), γ_n = n·u/(1 − n·u),
// with n = k + 2 (k products, the β·C term and its addition). How many entries break it.
template <class T>
Eigen::Index entries_outside_bound(const Mat<T>& got, const Mat<long double>& a, const Mat<long double>& b,
                                   const Mat<long double>& c0, long double beta) {
  const long double u = std::numeric_limits<T>::epsilon() / 2, n = static_cast<long double>(a.cols() + 2);
  const long double gamma = n * u / (1 - n * u);
  const Mat<long double> exact = beta * c0 + a * b;
  const Mat<long double> scale = std::fabs(beta) * c0.cwiseAbs() + a.cwiseAbs() * b.cwiseAbs();
  Eigen::Index outside = 0;
  for (Eigen::Index i = 0; i < got.size(); ++i)
    if (!(std::fabs(static_cast<long double>(got(i)) - exact(i)) <= gamma * scale(i))) ++outside;
  return outside;
}

template <class T>
void check_every_op(Eigen::Index m, Eigen::Index n, Eigen::Index k, T beta) {
  for (const Op op_a : {Op::none, Op::transpose})
    for (const Op op_b : {Op::none, Op::transpose}) {
      const Mat<T> a = op_a == Op::none ? filled<T>(m, k, 1) : filled<T>(k, m, 1);
      const Mat<T> b = op_b == Op::none ? filled<T>(k, n, 2) : filled<T>(n, k, 2);
      Mat<T> c = filled<T>(m, n, 3);
      const Mat<T> c0 = c;
      if (beta == T(0)) c.setConstant(std::numeric_limits<T>::quiet_NaN());  // β = 0 never reads C
      gemm<T>(a, op_a, b, op_b, beta, c);
      const Mat<long double> wa = op_a == Op::none ? widened(a) : Mat<long double>(widened(a).transpose());
      const Mat<long double> wb = op_b == Op::none ? widened(b) : Mat<long double>(widened(b).transpose());
      INFO("m " << m << " n " << n << " k " << k << " beta " << beta << " op_a " << int(op_a) << " op_b "
                << int(op_b));
      CHECK(entries_outside_bound<T>(c, wa, wb, widened(c0), beta) == 0);
    }
}

TEST_CASE("gemm: every transpose pair and beta within the rounding bound of its sums", "[linalg]") {
  INFO("engine: " << gemm_engine());
  for (const float beta : {0.0f, 1.0f, -0.5f}) {
    check_every_op<float>(128, 256, 64, beta);  // an exact tile
    check_every_op<float>(37, 65, 300, beta);   // odd sizes, FAVOR's dv + 1
    check_every_op<float>(1, 1, 1, beta);
  }
  for (const double beta : {0.0, 1.0, -0.5}) check_every_op<double>(33, 65, 129, beta);
}

TEST_CASE("gemm: the bound check refuses a wrong product (power case)", "[linalg]") {
  const Mat<float> a = filled<float>(64, 64, 1), b = filled<float>(64, 64, 2);
  Mat<float> c(64, 64);
  gemm<float>(a, Op::none, b, Op::none, 0.0f, c);  // A·B where A·Bᵀ is claimed
  const Mat<long double> bt = widened(b).transpose();
  CHECK(entries_outside_bound<float>(c, widened(a), bt, Mat<long double>::Zero(64, 64), 0.0L) > 1000);
  gemm<float>(a, Op::none, b, Op::transpose, 0.0f, c);
  REQUIRE(entries_outside_bound<float>(c, widened(a), bt, Mat<long double>::Zero(64, 64), 0.0L) == 0);
  c(5, 7) += 1e-3f * std::fabs(c(5, 7)) + 1e-3f;  // one entry off by far more than rounding
  CHECK(entries_outside_bound<float>(c, widened(a), bt, Mat<long double>::Zero(64, 64), 0.0L) == 1);
}

TEST_CASE("gemm: blocks of larger matrices are read and written in place", "[linalg]") {
  const Mat<float> big_a = filled<float>(300, 80, 4), big_b = filled<float>(90, 70, 5);
  Mat<float> big_c = Mat<float>::Constant(200, 100, 7.0f);
  // op(A) = rows 10..109 of A, columns 0..63; op(B) = (rows 20..79 of B, its first 64 columns)ᵀ.
  gemm<float>(big_a.block(10, 0, 100, 64), Op::none, big_b.block(20, 0, 60, 64), Op::transpose, 0.0f,
              big_c.block(50, 30, 100, 60));
  CHECK(entries_outside_bound<float>(big_c.block(50, 30, 100, 60), widened<float>(big_a.block(10, 0, 100, 64)),
                                    widened<float>(big_b.block(20, 0, 60, 64)).transpose(),
                                    Mat<long double>::Zero(100, 60), 0.0L) == 0);
  Mat<float> untouched = big_c;
  untouched.block(50, 30, 100, 60).setConstant(7.0f);
  CHECK((untouched.array() == 7.0f).all());  // nothing outside the block was written
}

TEST_CASE("gemm: row-major operands and outputs, blocks of them included, within the rounding bound", "[linalg]") {
  using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Mat<float> a = filled<float>(96, 70, 1), b = filled<float>(70, 33, 2);
  const RowMat a_rows = a, b_rows_t = b.transpose();  // A row-major; Bᵀ row-major (so op(B) = (Bᵀ)ᵀ)
  const RowMat big_a = filled<float>(120, 80, 4);     // a row-major block: rows 10..105, columns 5..74 = A
  RowMat a_in_big = big_a;
  a_in_big.block(10, 5, 96, 70) = a;
  const Mat<long double> wa = widened(a), wb = widened(b), zero = Mat<long double>::Zero(96, 33);
  Mat<float> c(96, 33);
  gemm<float>(a_rows, Op::none, b, Op::none, 0.0f, c);
  CHECK(entries_outside_bound<float>(c, wa, wb, zero, 0.0L) == 0);
  gemm<float>(a, Op::none, b_rows_t, Op::transpose, 0.0f, c);
  CHECK(entries_outside_bound<float>(c, wa, wb, zero, 0.0L) == 0);
  gemm<float>(a_in_big.block(10, 5, 96, 70), Op::none, b_rows_t, Op::transpose, 0.0f, c);
  CHECK(entries_outside_bound<float>(c, wa, wb, zero, 0.0L) == 0);
  RowMat c_rows(96, 33);
  gemm<float>(a_rows, Op::none, b, Op::none, 0.0f, c_rows);
  CHECK(entries_outside_bound<float>(Mat<float>(c_rows), wa, wb, zero, 0.0L) == 0);
  RowMat big_c = RowMat::Constant(100, 40, 3.0f);  // into a block of a row-major C, the rest untouched
  gemm<float>(a, Op::none, b, Op::none, 0.0f, big_c.block(2, 4, 96, 33));
  CHECK(entries_outside_bound<float>(Mat<float>(big_c.block(2, 4, 96, 33)), wa, wb, zero, 0.0L) == 0);
  big_c.block(2, 4, 96, 33).setConstant(3.0f);
  CHECK((big_c.array() == 3.0f).all());
  // Power case: a row-major A taken as if column-major (its memory is Aᵀ) is far outside the bound.
  const Mat<float> a_square = filled<float>(70, 70, 5);
  const RowMat a_square_rows = a_square;
  Mat<float> wrong(70, 33);
  gemm<float>(Eigen::Map<const Mat<float>>(a_square_rows.data(), 70, 70), Op::none, b, Op::none, 0.0f, wrong);
  CHECK(entries_outside_bound<float>(wrong, widened(a_square), wb, Mat<long double>::Zero(70, 33), 0.0L) > 1000);
}

TEST_CASE("gemm: empty sums give beta·C, empty outputs do nothing", "[linalg]") {
  const Mat<float> a(4, 0), b(0, 3);
  Mat<float> c = Mat<float>::Constant(4, 3, 2.0f);
  gemm<float>(a, Op::none, b, Op::none, 0.5f, c);
  CHECK((c.array() == 1.0f).all());
  c.setConstant(std::numeric_limits<float>::quiet_NaN());
  gemm<float>(a, Op::none, b, Op::none, 0.0f, c);
  CHECK((c.array() == 0.0f).all());
  Mat<float> none(0, 3);
  gemm<float>(Mat<float>(0, 5), Op::none, Mat<float>::Ones(5, 3), Op::none, 0.0f, none);
  CHECK(none.size() == 0);
}

TEST_CASE("gemm: mismatched shapes are refused with the operand named", "[linalg]") {
  Mat<float> c(4, 3);
  CHECK_THROWS_WITH(gemm<float>(Mat<float>(5, 2), Op::none, Mat<float>(2, 3), Op::none, 0.0f, c),
                    Catch::Contains("op(a) is 5×2 but c has 4 rows"));
  CHECK_THROWS_WITH(gemm<float>(Mat<float>(4, 2), Op::none, Mat<float>(3, 2), Op::none, 0.0f, c),
                    Catch::Contains("op(b) is 3×2 but c has 3 columns"));
  CHECK_THROWS_WITH(gemm<float>(Mat<float>(4, 2), Op::none, Mat<float>(3, 3), Op::transpose, 0.0f, c),
                    Catch::Contains("inner dimensions differ"));
}

TEST_CASE("gemm: double keeps Eigen's bits", "[linalg]") {
  const Mat<double> a = filled<double>(70, 129, 1), b = filled<double>(129, 65, 2);
  Mat<double> c(70, 65), eigen(70, 65);
  gemm<double>(a, Op::none, b, Op::none, 0.0, c);
  eigen.noalias() = a * b;
  CHECK((c.array() == eigen.array()).all());
  gemm<double>(a, Op::none, b, Op::none, 1.0, c);
  eigen.noalias() += a * b;
  CHECK((c.array() == eigen.array()).all());
}

TEST_CASE("gemm: the same bits on any thread and team size, the caller's thread count restored", "[linalg]") {
  std::vector<Mat<float>> a, b;
  for (int s = 0; s < 6; ++s) {
    a.push_back(filled<float>(512, 64, s));
    b.push_back(filled<float>(256, 64, s + 10));
  }
  const auto products = [&](int threads) {
    std::vector<Mat<float>> out(a.size(), Mat<float>(512, 256));
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int s = 0; s < int(a.size()); ++s) gemm<float>(a[s], Op::none, b[s], Op::transpose, 0.0f, out[s]);
    return out;
  };
  const int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  const std::vector<Mat<float>> one = products(1), two = products(2);
  CHECK(omp_get_max_threads() == 2);
  omp_set_num_threads(saved);
  for (std::size_t s = 0; s < one.size(); ++s) CHECK((one[s].array() == two[s].array()).all());
  Mat<float> alone(512, 256);
  gemm<float>(a[0], Op::none, b[0], Op::transpose, 0.0f, alone);
  CHECK((alone.array() == one[0].array()).all());
}

TEST_CASE("gemm: the engine is named", "[linalg]") {
  const std::string engine = gemm_engine();
  CHECK(engine.find("Eigen 3.") != std::string::npos);
#ifdef FAVORLAB_TEST_EXPECTS_ONEDNN
  CHECK(engine.find("oneDNN") != std::string::npos);
#endif
}

}  // namespace
}  // namespace favorlab
