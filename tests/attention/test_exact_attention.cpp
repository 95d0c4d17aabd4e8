// The tiled exact-attention kernel (online softmax over key tiles) against its naive reference (a 128 × L logits
// block at once): same mathematics, so they differ by rounding only. Bound used throughout, relative to max |V|:
//   |tiled − reference| ≤ (L + d + 16) · u · (1 + 2 max|s_ij|),
// the standard γ_n forward-error bound of an n-term sum (n = L keys, d-term logits) carried through exp, whose
// relative error grows with the size of its argument. Each test also feeds a wrong answer (a key dropped, the mask
// ignored) and requires the comparison to fail, so the bound is tight enough to see a defect.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/exact_attention.hpp"
#include "attention/exact_attention_reference.hpp"
#include "attention/random_inputs.hpp"

using namespace favorlab;

namespace {

Eigen::MatrixXd gaussian(int rows, int cols, double scale, std::uint64_t stream) {
  return gaussian_input(rows, cols, scale, 1234, stream, 0);
}

double max_logit(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k) {
  return ((q * k.transpose()) / std::sqrt(double(q.cols()))).cwiseAbs().maxCoeff();
}

// The rounding bound above, for unit roundoff u.
double rounding_bound(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, double u) {
  return double(k.rows() + q.cols() + 16) * u * (1 + 2 * max_logit(q, k));
}

double relative_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Eigen::MatrixXd& v) {
  return (a - b).cwiseAbs().maxCoeff() / v.cwiseAbs().maxCoeff();
}

constexpr double kDoubleU = std::numeric_limits<double>::epsilon() / 2;
constexpr double kFloatU = std::numeric_limits<float>::epsilon() / 2;

}  // namespace

TEST_CASE("tiled exact attention equals the naive reference at every tile edge", "[attention][exact]") {
  const int d = 8;
  // Lengths around the 128-query block and the 256-key tile: one key, a tile minus one, a tile, a tile plus one,
  // several tiles with a ragged end.
  for (int L : {1, 127, 255, 256, 257, 700}) {
    const auto q = gaussian(L, d, 1.0, 1), k = gaussian(L, d, 1.0, 2), v = gaussian(L, 5, 1.0, 3);
    const double bound = rounding_bound(q, k, kDoubleU);
    for (bool causal : {false, true})
      for (bool renormalize : {true, false}) {
        INFO("L " << L << " causal " << causal << " renormalize " << renormalize << " bound " << bound);
        const Eigen::MatrixXd tiled = exact_attention(q, k, v, causal, renormalize);
        const Eigen::MatrixXd reference = exact_attention_reference(q, k, v, causal, renormalize);
        const double scale = renormalize ? 1.0 : reference.cwiseAbs().maxCoeff() / v.cwiseAbs().maxCoeff();
        CHECK(relative_difference(tiled, reference, v) <= bound * std::max(1.0, scale));
      }
  }
}

TEST_CASE("tiled exact attention: cross attention, float, threads", "[attention][exact]") {
  const int d = 16;
  SECTION("fewer queries than keys (bidirectional cross attention)") {
    const auto q = gaussian(130, d, 1.0, 4), k = gaussian(600, d, 1.0, 5), v = gaussian(600, 7, 1.0, 6);
    CHECK(relative_difference(exact_attention(q, k, v, false, true), exact_attention_reference(q, k, v, false, true),
                              v) <= rounding_bound(q, k, kDoubleU));
  }
  SECTION("float32 against the double reference, within float rounding") {
    const int L = 1000;
    const auto q = gaussian(L, d, 1.0, 7), k = gaussian(L, d, 1.0, 8), v = gaussian(L, d, 1.0, 9);
    for (bool causal : {false, true}) {
      const Eigen::MatrixXd tiled =
          exact_attention<float>(q.cast<float>(), k.cast<float>(), v.cast<float>(), causal, true).cast<double>();
      CHECK(relative_difference(tiled, exact_attention_reference(q, k, v, causal, true), v) <=
            rounding_bound(q, k, kFloatU));
    }
  }
  SECTION("the thread count does not change a bit") {
    const int L = 900;
    const auto q = gaussian(L, d, 1.0, 10), k = gaussian(L, d, 1.0, 11), v = gaussian(L, d, 1.0, 12);
    for (bool causal : {false, true})
      CHECK(exact_attention(q, k, v, causal, true, 1) == exact_attention(q, k, v, causal, true, 2));
  }
}

TEST_CASE("tiled exact attention: a late maximum and large logits are rescaled, not overflowed", "[attention][exact]") {
  const int L = 600, d = 8;
  auto q = gaussian(L, d, 1.0, 13), k = gaussian(L, d, 1.0, 14);
  const auto v = gaussian(L, 3, 1.0, 15);
  // The largest logits sit in the last key tile: every row's running maximum grows there, so the tiles summed
  // before are rescaled. Logits reach ≈ 300: exp would overflow even a double without the shift.
  k.row(L - 1) = 40 * q.row(0);
  k.row(L - 2) = -40 * q.row(1);
  q *= 3;
  REQUIRE(max_logit(q, k) > 250);
  for (bool causal : {false, true}) {
    INFO("causal " << causal);
    const Eigen::MatrixXd tiled = exact_attention(q, k, v, causal, true);
    REQUIRE(tiled.allFinite());
    CHECK(relative_difference(tiled, exact_attention_reference(q, k, v, causal, true), v) <=
          rounding_bound(q, k, kDoubleU));
    const Eigen::MatrixXd narrow =
        exact_attention<float>(q.cast<float>(), k.cast<float>(), v.cast<float>(), causal, true).cast<double>();
    REQUIRE(narrow.allFinite());
    CHECK(relative_difference(narrow, exact_attention_reference(q, k, v, causal, true), v) <=
          rounding_bound(q, k, kFloatU));
  }
}

TEST_CASE("power: the exact-attention comparison sees a dropped key or an ignored mask", "[attention][exact]") {
  const int L = 700, d = 8;
  const auto q = gaussian(L, d, 1.0, 16), k = gaussian(L, d, 1.0, 17), v = gaussian(L, 5, 1.0, 18);
  const double bound = rounding_bound(q, k, kDoubleU);
  // A kernel that skipped the first key of the second tile (key 256): the reference without that key.
  Eigen::MatrixXd k_dropped(L - 1, d), v_dropped(L - 1, 5);
  k_dropped << k.topRows(256), k.bottomRows(L - 257);
  v_dropped << v.topRows(256), v.bottomRows(L - 257);
  const Eigen::MatrixXd tiled = exact_attention(q, k, v, false, true);
  CHECK(relative_difference(tiled, exact_attention_reference(q, k_dropped, v_dropped, false, true), v) > 100 * bound);
  // A causal kernel that ignored the mask: the bidirectional output.
  CHECK(relative_difference(exact_attention(q, k, v, true, true), exact_attention_reference(q, k, v, false, true), v) >
        100 * bound);
}
