// Attention engine: exact and FAVOR against explicit (quadratic) references, chunking, the causal stabilizer,
// extraction, precision, thread independence and bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/all_finite.hpp"
#include "attention/attend.hpp"
#include "attention/attention_features.hpp"
#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/attention_error.hpp"
#include "kernels/gerf_moments.hpp"

using namespace favorlab;

namespace {

Eigen::MatrixXd gaussian(int rows, int cols, double scale, std::uint64_t stream) {
  return gaussian_input(rows, cols, scale, 77, stream, 0);
}

double relative_max_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

// Explicit features φ(X d^{-1/4}) without any stabilizer: the quadratic references below multiply them out.
Eigen::MatrixXd explicit_features(const Eigen::MatrixXd& x, const Eigen::MatrixXd& w, AttentionConfig config) {
  config.stabilizer = false;
  return attention_features<double>(x / std::pow(double(x.cols()), 0.25), w, config).values;
}

// The A matrix of gerf, oprf or sderf straight from its definition, its statistics summed pair by pair over all
// L×L query–key pairs of the scaled inputs (the engine forms them from means and second moments instead).
Eigen::MatrixXd naive_dense_a(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const AttentionConfig& config) {
  const int d = int(q.cols());
  const double s = 1 / std::pow(double(d), 0.25);
  if (config.features == Family::gerf) return config.parameters.gerf_a * Eigen::MatrixXd::Identity(d, d);
  Eigen::MatrixXd outer = Eigen::MatrixXd::Zero(d, d);
  for (Eigen::Index i = 0; i < q.rows(); ++i)
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      const Eigen::VectorXd z = s * (q.row(i) + k.row(j)).transpose();
      outer += z * z.transpose();
    }
  outer /= double(q.rows() * k.rows());
  if (config.features == Family::oprf) return oprf_a_star(outer.trace(), d) * Eigen::MatrixXd::Identity(d, d);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(outer);
  Eigen::VectorXd a(d);
  for (int l = 0; l < d; ++l) a(l) = oprf_a_star(std::max(eig.eigenvalues()(l), 0.0), 1);
  return eig.eigenvectors() * a.asDiagonal() * eig.eigenvectors().transpose();
}

// f(ω, u) = det(I − 4A)^{1/4} exp(ωᵀAω + ωᵀ(I − 4A)^{1/2}u − ‖u‖²/2)/√m, entry by entry.
Eigen::MatrixXd naive_dense_exponential_features(const Eigen::MatrixXd& x, const Eigen::MatrixXd& w,
                                                 const Eigen::MatrixXd& a) {
  const Eigen::MatrixXd u = x / std::pow(double(x.cols()), 0.25);
  const Eigen::MatrixXd i_4a = Eigen::MatrixXd::Identity(a.rows(), a.cols()) - 4 * a;
  const Eigen::MatrixXd b = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(i_4a).operatorSqrt();
  const double log_d = std::log(i_4a.determinant()) / 4;
  Eigen::MatrixXd out(u.rows(), w.rows());
  for (Eigen::Index r = 0; r < u.rows(); ++r)
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
      const Eigen::VectorXd omega = w.row(i).transpose();
      out(r, i) = std::exp(log_d + omega.dot(a * omega) + omega.dot(b * u.row(r).transpose()) -
                           u.row(r).squaredNorm() / 2) / std::sqrt(double(w.rows()));
    }
  return out;
}

// D⁻¹ A V with A = Q'K'ᵀ (optionally lower-triangular): the quadratic reference of FAVOR.
Eigen::MatrixXd explicit_favor(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                               const Eigen::MatrixXd& w, const AttentionConfig& config) {
  const bool dense = family_info(config.features).map->prepared_projection;
  const Eigen::MatrixXd dense_a = dense ? naive_dense_a(q, k, config) : Eigen::MatrixXd();
  Eigen::MatrixXd a = dense ? Eigen::MatrixXd(naive_dense_exponential_features(q, w, dense_a) *
                                              naive_dense_exponential_features(k, w, dense_a).transpose())
                            : Eigen::MatrixXd(explicit_features(q, w, config) * explicit_features(k, w, config).transpose());
  if (config.causal) a = a.triangularView<Eigen::Lower>();
  Eigen::MatrixXd out = a * v;
  if (config.renormalize) out.array().colwise() /= a.rowwise().sum().array();
  return out;
}

Eigen::MatrixXd explicit_exact(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                               bool causal, bool renormalize) {
  Eigen::MatrixXd a = ((q * k.transpose()) / std::sqrt(double(q.cols()))).array().exp().matrix();
  if (causal) a = a.triangularView<Eigen::Lower>();
  Eigen::MatrixXd out = a * v;
  if (renormalize) out.array().colwise() /= a.rowwise().sum().array();
  return out;
}

Eigen::MatrixXd run(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                    const Eigen::MatrixXd& w, const AttentionConfig& config, int threads = 1) {
  return attend<double>({q}, {k}, {v}, w, config, threads).front();
}

AttentionConfig favor(Family kind, bool causal, int m = 24) {
  AttentionConfig c;
  c.features = kind;
  c.causal = causal;
  c.m = m;
  return c;
}

}  // namespace

TEST_CASE("exact attention equals the explicit D^-1 A V, bidirectional and causal", "[attention]") {
  const int L = 300, d = 8;  // L spans several query blocks
  const auto q = gaussian(L, d, 1.0, 1), k = gaussian(L, d, 1.0, 2), v = gaussian(L, 5, 1.0, 3);
  for (bool causal : {false, true})
    for (bool renormalize : {true, false}) {
      AttentionConfig c;
      c.mechanism = Mechanism::exact;
      c.causal = causal;
      c.renormalize = renormalize;
      INFO("causal " << causal << " renormalize " << renormalize);
      CHECK(relative_max_error(run(q, k, v, Eigen::MatrixXd(0, d), c), explicit_exact(q, k, v, causal, renormalize)) <
            1e-12);
    }
}

TEST_CASE("FAVOR equals the explicit product of its features for every feature map", "[attention]") {
  const int L = 200, d = 8;
  const auto q = gaussian(L, d, 0.7, 4), k = gaussian(L, d, 0.7, 5), v = gaussian(L, 3, 1.0, 6);
  for (const std::string& name : feature_kind_names())
    for (bool causal : {false, true})
      for (int option = 0; option < 4; ++option) {
        const bool renormalize = option % 2 == 0, stabilizer = option < 2;
        AttentionConfig c = favor(parse_feature_kind(name), causal);
        c.renormalize = renormalize;
        c.stabilizer = stabilizer;
        c.chunk = 32;
        INFO(name << " causal " << causal << " renormalize " << renormalize << " stabilizer " << stabilizer);
        if (causal && family_info(c.features).data_dependent) {  // statistics of all keys: rejected, not leaked
          c.causal = false;
          const auto w = draw_attention_projection(c, d, 9, 0);
          c.causal = true;
          CHECK_THROWS_WITH(run(q, k, v, w, c), Catch::Contains("later keys"));
          continue;
        }
        const auto w = draw_attention_projection(c, d, 9, 0);
        CHECK(relative_max_error(run(q, k, v, w, c), explicit_favor(q, k, v, w, c)) < 1e-10);
      }
}

TEST_CASE("generalized kernels without projection use f(u) + eps", "[attention]") {
  const int L = 64, d = 6;
  const auto q = gaussian(L, d, 1.0, 7), k = gaussian(L, d, 1.0, 8), v = gaussian(L, 2, 1.0, 9);
  AttentionConfig c = favor(Family::relu, true);
  c.project = false;
  const Eigen::MatrixXd w(0, d);
  const Eigen::MatrixXd phi = (q / std::pow(d, 0.25)).array().max(0.0) + 1e-3;
  REQUIRE(explicit_features(q, w, c).isApprox(phi, 1e-15));
  CHECK(relative_max_error(run(q, k, v, w, c), explicit_favor(q, k, v, w, c)) < 1e-12);
}

TEST_CASE("chunked causal FAVOR equals the sequential prefix sums for every chunk size", "[attention]") {
  const int L = 97, d = 8;
  const auto q = gaussian(L, d, 1.0, 10), k = gaussian(L, d, 1.0, 11), v = gaussian(L, 4, 1.0, 12);
  for (Family kind : {Family::positive, Family::trig, Family::hyperbolic}) {
    AttentionConfig c = favor(kind, true);
    c.chunk = 1;
    const auto w = draw_attention_projection(c, d, 3, 0);
    const auto sequential = run(q, k, v, w, c);
    for (int chunk : {2, 5, 16, 96, 97, 200}) {
      c.chunk = chunk;
      INFO(feature_kind_name(kind) << " chunk " << chunk);
      CHECK(relative_max_error(run(q, k, v, w, c), sequential) < 1e-12);
    }
  }
}

// Long enough for several windows and feature blocks at every chunk below (chunk 48: blocks of 240 rows, windows of
// 480; chunk 1: 256 and 512; chunk 300: one chunk per block and window; chunk 600: one block longer than the usual
// window), so the states chained across chunks, blocks and windows are all checked against the quadratic reference.
// Later keys have larger norms, so the running maximum moves in later blocks and windows too and every carried
// rescaling is exercised. Tolerance: double rounding u ≈ 1.1e-16; exponents up to ≈ 20 carry ≈ 20u into each exp and
// sums over at most 1100 keys add ≤ 1100u ≈ 1.2e-13 relative — 1e-10 is far above that and far below what a state
// lost or mis-scaled between chunks gives (a whole block's keys missing or weighted wrongly changes outputs by O(1e-2)
// or more; the check at the end shows how much the masked keys alone move them).
TEST_CASE("chunked causal FAVOR equals the quadratic reference over many windows and feature blocks", "[attention]") {
  const int L = 1100, d = 8;
  Eigen::MatrixXd k = gaussian(L, d, 0.6, 40);
  for (int i = 0; i < L; ++i) k.row(i) *= 1.0 + 2.0 * i / L;
  const auto q = gaussian(L, d, 0.6, 41), v = gaussian(L, 3, 1.0, 42);
  for (Family kind : {Family::positive, Family::hyperbolic, Family::trig})
    for (int chunk : {1, 7, 48, 100, 300, 600}) {
      AttentionConfig c = favor(kind, true, 16);
      c.chunk = chunk;
      const auto w = draw_attention_projection(c, d, 43, 0);
      const Eigen::MatrixXd reference = explicit_favor(q, k, v, w, c);
      INFO(feature_kind_name(kind) << " chunk " << chunk);
      CHECK(relative_max_error(run(q, k, v, w, c), reference) < 1e-10);
      CHECK(relative_max_error(run(q, k, v, w, c, 2), reference) < 1e-10);
      AttentionConfig all_keys = c;
      all_keys.causal = false;
      CHECK(relative_max_error(explicit_favor(q, k, v, w, all_keys), reference) > 1e-2);  // the reference has power
    }
}

TEST_CASE("the stabilizer's max-subtraction changes outputs by less than 1e-12", "[attention]") {
  const int L = 150, d = 16;
  const auto q = gaussian(L, d, 1.0, 13), k = gaussian(L, d, 1.0, 14), v = gaussian(L, 4, 1.0, 15);
  for (Family kind : {Family::positive, Family::hyperbolic, Family::trig, Family::regularized})
    for (bool causal : {false, true})
      for (bool renormalize : {true, false}) {
        AttentionConfig on = favor(kind, causal, 64);
        on.renormalize = renormalize;
        on.chunk = 20;
        AttentionConfig off = on;
        off.stabilizer = false;
        const auto w = draw_attention_projection(on, d, 4, 0);
        INFO(feature_kind_name(kind) << " causal " << causal << " renormalize " << renormalize);
        CHECK(relative_max_error(run(q, k, v, w, on), run(q, k, v, w, off)) < 1e-12);
      }
}

TEST_CASE("the stabilizer keeps FAVOR finite where plain features overflow", "[attention]") {
  const int L = 64, d = 16;
  // Keys of norm ~ 240 after the d^{-1/4} scaling: exp(ωᵀk) overflows double without the stabilizer.
  const auto q = gaussian(L, d, 1.0, 16), k = gaussian(L, d, 120.0, 17), v = gaussian(L, 4, 1.0, 18);
  for (bool causal : {false, true}) {
    AttentionConfig c = favor(Family::positive, causal, 32);
    const auto w = draw_attention_projection(c, d, 5, 0);
    CHECK(run(q, k, v, w, c).allFinite());
    c.stabilizer = false;
    CHECK_FALSE(run(q, k, v, w, c).allFinite());
  }
}

TEST_CASE("a causal output never depends on later keys or values", "[attention]") {
  const int L = 120, d = 8, cut = 50;
  const auto q = gaussian(L, d, 1.0, 19), k = gaussian(L, d, 1.0, 20), v = gaussian(L, 4, 1.0, 21);
  Eigen::MatrixXd k2 = k, v2 = v;
  // Later keys with a huge norm: a sequence-wide max would shift every output.
  k2.bottomRows(L - cut) = gaussian(L - cut, d, 30.0, 22);
  v2.bottomRows(L - cut) = gaussian(L - cut, 4, 5.0, 23);
  for (Mechanism mech : {Mechanism::exact, Mechanism::favor})
    for (Family kind : {Family::positive, Family::hyperbolic, Family::trig})
      for (int chunk : {1, 16, 64, 128}) {
        AttentionConfig c = favor(kind, true, 32);
        c.mechanism = mech;
        c.chunk = chunk;
        const auto w = draw_attention_projection(c, d, 6, 0);
        const auto a = run(q, k, v, w, c), b = run(q, k2, v2, w, c);
        INFO(mechanism_name(mech) << " " << feature_kind_name(kind) << " chunk " << chunk);
        CHECK(a.topRows(cut) == b.topRows(cut));  // bit for bit
        CHECK(a.bottomRows(L - cut) != b.bottomRows(L - cut));
      }
}

TEST_CASE("attention-matrix extraction equals the explicit normalized matrix", "[attention]") {
  const int L = 40, d = 8;
  const auto q = gaussian(L, d, 1.0, 24), k = gaussian(L, d, 1.0, 25);
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(L, L);
  for (bool causal : {false, true}) {
    AttentionConfig c = favor(Family::positive, causal, 16);
    const auto w = draw_attention_projection(c, d, 7, 0);
    CHECK(relative_max_error(attention_matrix<double>(q, k, w, c), explicit_favor(q, k, identity, w, c)) < 1e-12);
    c.mechanism = Mechanism::exact;
    const auto exact = attention_matrix<double>(q, k, Eigen::MatrixXd(0, d), c);
    CHECK(relative_max_error(exact, explicit_exact(q, k, identity, causal, true)) < 1e-12);
    CHECK(exact.rowwise().sum().isApprox(Eigen::VectorXd::Ones(L), 1e-12));
  }
}

TEST_CASE("float32 attention stays within 1e-4 of double", "[attention]") {
  const int L = 512, d = 16;
  const auto q = gaussian(L, d, 1.0, 26), k = gaussian(L, d, 1.0, 27), v = gaussian(L, 8, 1.0, 28);
  for (Mechanism mech : {Mechanism::exact, Mechanism::favor})
    for (bool causal : {false, true}) {
      AttentionConfig c = favor(Family::positive, causal, 64);
      c.mechanism = mech;
      const auto w = draw_attention_projection(c, d, 8, 0);
      const Eigen::MatrixXd dbl = run(q, k, v, w, c);
      const Eigen::MatrixXf flt =
          attend<float>({q.cast<float>()}, {k.cast<float>()}, {v.cast<float>()}, w, c).front();
      INFO(mechanism_name(mech) << " causal " << causal);
      // float32 rounding u ≈ 6e-8: exponents of size ≲ 10 carry relative errors ~10u into exp, and sums over up to
      // L = 512 keys add at most 512u ≈ 3e-5 (worst case, relative to the largest output); 1e-4 is above that bound.
      CHECK(relative_max_error(flt.cast<double>(), dbl) < 1e-4);
    }
}

TEST_CASE("attention gives identical numbers on 1 and 2 threads, one head or several", "[attention]") {
  const int L = 1100, d = 8;  // several key/query blocks per head
  const auto q = gaussian(L, d, 1.0, 29), k = gaussian(L, d, 1.0, 30), v = gaussian(L, 4, 1.0, 31);
  for (Mechanism mech : {Mechanism::exact, Mechanism::favor})
    for (bool causal : {false, true}) {
      AttentionConfig c = favor(Family::positive, causal, 32);
      c.mechanism = mech;
      const auto w = draw_attention_projection(c, d, 9, 0);
      const Heads<double> qs{q, k}, ks{k, q}, vs{v, v};
      CHECK(attend(qs, ks, vs, w, c, 1) == attend(qs, ks, vs, w, c, 2));
      CHECK(run(q, k, v, w, c, 1) == run(q, k, v, w, c, 2));
    }
}

TEST_CASE("FAVOR approaches exact attention, its MSE falling like 1/m", "[attention][statistical]") {
  // Output MSE over R independent projections at m and 4m: if the error variance is c/m, the ratio of mean MSEs is 4.
  // Judged through the standard error of the ratio (delta method) at α = 1e-7 (z = 5.33); an error falling like
  // 1/√m (ratio 2) would fail by more than 7 standard errors. Inputs are small (‖q‖ d^{-1/4} ≈ 0.6) because the
  // MSE of positive features has a lognormal tail: at ‖q‖ d^{-1/4} ≈ 1.2 a sample of 100 draws misses most of the mean
  // (measured ratios 2.4–3.0 there), which says nothing about the mechanism.
  const int L = 128, d = 16, R = 100;
  const auto q = gaussian(L, d, 0.3, 32), k = gaussian(L, d, 0.3, 33), v = gaussian(L, 4, 1.0, 34);
  const Eigen::MatrixXd exact = explicit_exact(q, k, v, false, true);
  auto mse_stats = [&](int m) {
    double sum = 0, sum2 = 0;
    for (int r = 0; r < R; ++r) {
      AttentionConfig c = favor(Family::positive, false, m);
      c.coupling = Coupling::iid;
      const double e = output_mse(run(q, k, v, draw_attention_projection(c, d, 10, std::uint64_t(r)), c), exact);
      sum += e;
      sum2 += e * e;
    }
    const double mean = sum / R, var = (sum2 / R - mean * mean) * R / (R - 1);
    return std::pair{mean, var / R};
  };
  const int m = 256;
  const auto [small, small_var] = mse_stats(m);
  const auto [large, large_var] = mse_stats(4 * m);
  const double ratio = small / large;
  const double se = ratio * std::sqrt(small_var / (small * small) + large_var / (large * large));
  INFO("ratio " << ratio << " se " << se);
  CHECK(std::abs(ratio - 4.0) <= 5.33 * se);
  CHECK(large < small);
}

TEST_CASE("feature redraw: a draw index gives one projection, different indices differ", "[attention]") {
  AttentionConfig c = favor(Family::positive, false, 16);
  CHECK(draw_attention_projection(c, 8, 1, 3) == draw_attention_projection(c, 8, 1, 3));
  CHECK(draw_attention_projection(c, 8, 1, 3) != draw_attention_projection(c, 8, 1, 4));
  c.features = Family::regularized;
  const auto w = draw_attention_projection(c, 8, 1, 0);
  CHECK(w.rowwise().norm().isApprox(Eigen::VectorXd::Constant(16, std::sqrt(8.0)), 1e-12));
  c.features = Family::gelu;
  c.project = false;
  CHECK(draw_attention_projection(c, 8, 1, 0).rows() == 0);
}

TEST_CASE("error measures: MSE, max error, and +inf for a broken approximation", "[attention]") {
  Eigen::MatrixXd exact(2, 2), approx(2, 2);
  exact << 1, 2, 3, 4;
  approx << 1, 2.5, 2, 4;
  CHECK(output_mse(approx, exact) == Approx((0.25 + 1.0) / 4));
  CHECK(max_abs_error(approx, exact) == 1.0);
  approx(0, 0) = std::nan("");
  CHECK(std::isinf(output_mse(approx, exact)));
  CHECK(std::isinf(max_abs_error(approx, exact)));
  CHECK_THROWS(output_mse(Eigen::MatrixXd(2, 3), exact));
}

TEST_CASE("all_finite: NaN and infinities in any position, and no overflow from large finite entries", "[attention]") {
  for (const Eigen::Index n : {Eigen::Index(1), Eigen::Index(7), Eigen::Index(64), Eigen::Index(1001)}) {
    Eigen::MatrixXf x = Eigen::MatrixXf::Constant(n, 3, std::numeric_limits<float>::max());  // Σ x would overflow
    CHECK(all_finite(x));
    CHECK(all_finite(Eigen::MatrixXf(x.leftCols(0))));  // empty: nothing non-finite
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()})
      for (const Eigen::Index at : {Eigen::Index(0), n / 2, 3 * n - 1}) {  // first, middle, last (the SIMD tail)
        Eigen::MatrixXf y = x;
        y(at % n, at / n) = bad;
        CHECK_FALSE(all_finite(y));
      }
  }
  CHECK(all_finite(Eigen::VectorXd::Constant(5, -std::numeric_limits<double>::denorm_min())));
}

TEST_CASE("checked inputs: the same numbers as attend() and the matrix, refused as attend() refuses", "[attention]") {
  const Heads<double> q{gaussian(12, 4, 1.0, 40), gaussian(12, 4, 1.0, 41)}, k{gaussian(12, 4, 1.0, 42),
                                                                             gaussian(12, 4, 1.0, 43)},
      v{gaussian(12, 3, 1.0, 44), gaussian(12, 3, 1.0, 45)};
  for (bool causal : {false, true}) {
    const AttentionConfig c = favor(Family::positive, causal, 8);
    const auto w = draw_attention_projection(c, 4, 3, 0);
    const AttentionInputs<double> in(q, k, v, w, c);
    const Heads<double> want = attend(q, k, v, w, c, 2), got = attend(in, 2);
    for (std::size_t h = 0; h < q.size(); ++h) {
      CHECK(got[h] == want[h]);  // the same arithmetic: bit for bit
      CHECK(attention_matrix(in, h, 2) == attention_matrix<double>(q[h], k[h], w, c, 2));
    }
  }
  Heads<double> bad = v;
  bad[1](2, 0) = std::nan("");
  const AttentionConfig c = favor(Family::positive, false, 8);
  CHECK_THROWS_WITH(AttentionInputs<double>(q, k, bad, draw_attention_projection(c, 4, 3, 0), c),
                    Catch::Contains("V contains NaN or Inf in head 1 (first at row 2, column 0)"));
}

TEST_CASE("attention rejects bad input with a message naming the problem", "[attention]") {
  const auto q = gaussian(10, 4, 1.0, 35), k = gaussian(10, 4, 1.0, 36), v = gaussian(10, 2, 1.0, 37);
  AttentionConfig c = favor(Family::positive, false, 8);
  const auto w = draw_attention_projection(c, 4, 1, 0);
  CHECK_THROWS_WITH(run(q, gaussian(10, 5, 1.0, 1), v, w, c), Catch::Contains("same dimension d"));
  CHECK_THROWS_WITH(run(q, k, gaussian(9, 2, 1.0, 1), w, c), Catch::Contains("same length L"));
  Eigen::MatrixXd bad = k;
  bad(3, 1) = std::nan("");
  CHECK_THROWS_WITH(run(q, bad, v, w, c), Catch::Contains("K contains NaN or Inf (first at row 3, column 1)"));
  bad(3, 1) = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(run(q, k, bad, w, c), Catch::Contains("V contains NaN or Inf"));
  bad(3, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(run(bad, k, v, w, c), Catch::Contains("Q contains NaN or Inf"));
  CHECK_THROWS_WITH(run(q, k, v, gaussian(7, 4, 1.0, 1), c), Catch::Contains("projection W must be 8"));
  c.causal = true;
  CHECK_THROWS_WITH(run(gaussian(9, 4, 1.0, 1), k, v, w, c), Catch::Contains("as many queries as keys"));
  c.m = 0;
  CHECK_THROWS_WITH(draw_attention_projection(c, 4, 1, 0), Catch::Contains("--m must be positive"));
  CHECK_THROWS_WITH(parse_feature_kind("softmax"), Catch::Contains("unknown feature map 'softmax'"));
}
