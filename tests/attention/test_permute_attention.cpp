// PermuteFormer attention: the linear-time gathers against the quadratic reference (all four modes), chunking,
// exact causality, overflow-free long causal runs in float32, PF properties 1–3 and the period at tiny size, thread
// independence, bad input, and the fused feature path (gather inside the exp pass) against gather-after-features.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/attention_projection.hpp"
#include "attention/permute_attention.hpp"
#include "attention/permute_reference.hpp"
#include "attention/permuted_features.hpp"
#include "attention/random_inputs.hpp"
#include "cli_runner.hpp"
#include "evaluation/permute_similarity.hpp"
#include "features/shifted_exp.hpp"
#include "perm/cyclic_permutation.hpp"

using namespace favorlab;

namespace {

Eigen::MatrixXd gaussian(int rows, int cols, std::uint64_t stream, double scale = 1.0) {
  return gaussian_input(rows, cols, scale, 91, stream, 0);
}

double relative_max_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

AttentionConfig permute_config(Family kind, bool causal, int m, int chunk = 5) {
  AttentionConfig c;
  c.features = kind;
  c.causal = causal;
  c.m = m;
  c.chunk = chunk;
  return c;
}

// A head for 1-D (π on all m' columns) or 2-D (π_x, π_y on halves) with random permutations from stream `s`.
PermuteHead random_head(int columns, bool two_d, double r, std::uint64_t s) {
  if (!two_d) return {random_permutation(columns, 5, s, 0), std::nullopt, r};
  return {random_permutation(columns / 2, 5, s, 1), random_permutation(columns / 2, 5, s, 2), r};
}

struct Mode {
  bool two_d, causal;
};
constexpr Mode kModes[] = {{false, false}, {false, true}, {true, false}, {true, true}};

Eigen::MatrixXd linear(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                       const Eigen::MatrixXd& w, const AttentionConfig& c, const PermuteHead& head,
                       const PermuteLayout& layout, int threads = 1) {
  return permute_attend<double>({q}, {k}, {v}, w, c, {head}, layout, threads).front();
}

}  // namespace

TEST_CASE("PermuteFormer's linear gathers equal the quadratic reference in all four modes", "[permute]") {
  const int d = 4, m = 8;
  const Eigen::Index W = 7, H = 6, L = W * H;  // 42 tokens: several chunks of 5, a 2-D grid of 7×6
  const auto q = gaussian(L, d, 1), k = gaussian(L, d, 2), v = gaussian(L, 3, 3);
  for (Family kind : {Family::positive, Family::relu})
    for (const Mode mode : kModes) {
      const AttentionConfig c = permute_config(kind, mode.causal, m);
      const Eigen::MatrixXd w = draw_attention_projection(c, d, 3, 0);
      const PermuteHead head = random_head(m, mode.two_d, mode.causal ? 0.9 : 1.0, 7);
      const PermuteLayout layout = mode.two_d ? PermuteLayout::grid(W, H) : PermuteLayout::line();
      INFO(feature_kind_name(kind) << (mode.two_d ? " 2-D" : " 1-D") << (mode.causal ? " causal" : " bidirectional"));
      CHECK(relative_max_error(linear(q, k, v, w, c, head, layout),
                               permute_attention_reference(q, k, v, w, c, head, layout, 0, L)) < 1e-10);
      // The similarity matrix itself: one-hot values without renormalization extract sim(i, ·) row by row.
      AttentionConfig raw = c;
      raw.renormalize = false;
      const Eigen::MatrixXd extracted = linear(q, k, Eigen::MatrixXd::Identity(L, L), w, raw, head, layout);
      CHECK(relative_max_error(extracted, permute_similarity_matrix(q, k, w, raw, head, layout, 0, L)) < 1e-10);
    }
}

TEST_CASE("position gathers are the powers of pi, for orders above and below L", "[permute]") {
  // order 60 ≥ L = 50, and order 60 < L = 130 (the powers wrap around).
  const Permutation pi = order_sixty_permutation(14);
  REQUIRE(pi.order_u64() == 60);
  for (Eigen::Index L : {50, 130}) {
    const PositionPermutation positions({pi, std::nullopt, 1.0}, PermuteLayout::line(), L);
    std::vector<std::int32_t> map(14);
    for (Eigen::Index t = 0; t < L; ++t) {
      positions.index_map(t, map.data());
      const Permutation p = pi.power(t);
      for (int a = 0; a < 14; ++a) REQUIRE(map[std::size_t(a)] == p(a));
    }
  }
  // The gathers rotate each cycle of the cycle layout by the token's offset: against each token's own map
  // (index_map, from the powers of π), from several starting tokens, 1-D and 2-D (where the x map restarts at every
  // grid row). gather_rows takes the original column order; rotate_exp_rows takes rows already in the cycle layout and
  // must equal the same exponential (exp_into, on rows of the same shape) of the gathered rows, bit for bit.
  const auto gathers_match_maps = [](const PositionPermutation& p, Eigen::Index length) {
    const Eigen::MatrixXd values = gaussian(int(length), p.columns(), 71);
    const std::vector<int>& order = p.column_order();
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int a = 0; a < p.columns(); ++a) REQUIRE(sorted[std::size_t(a)] == a);  // a relabelling of the columns
    RowMatrix<double> in_layout(length, p.columns());
    for (int j = 0; j < p.columns(); ++j) in_layout.col(j) = values.col(order[std::size_t(j)]);
    const Eigen::ArrayXd shift = Eigen::ArrayXd::LinSpaced(length, 0.5, 1.5);
    std::vector<std::int32_t> map(std::size_t(p.columns()));
    for (const Eigen::Index first : {Eigen::Index(0), Eigen::Index(7), length / 2}) {
      const Eigen::Index rows = length - first;
      const RowMatrix<double> g = p.gather_rows(Eigen::MatrixXd(values.topRows(rows)), first);
      const RowMatrix<double> e =
          p.rotate_exp_rows(RowMatrix<double>(in_layout.topRows(rows)), Eigen::ArrayXd(shift.head(rows)), 0.25, first);
      RowMatrix<double> expected(rows, p.columns());
      for (Eigen::Index r = 0; r < rows; ++r) {
        p.index_map(first + r, map.data());
        for (int j = 0; j < p.columns(); ++j) {
          const double want = values(r, map[std::size_t(order[std::size_t(j)])]);
          REQUIRE(g(r, j) == want);
          expected(r, j) = want;
        }
        Eigen::Map<Eigen::ArrayXd> row(expected.row(r).data(), p.columns());
        exp_into(row, row - shift(r), 0.25);
      }
      REQUIRE(e == expected);
    }
  };
  gathers_match_maps(PositionPermutation({pi, std::nullopt, 1.0}, PermuteLayout::line(), 130), 130);
  // Fixed points (one segment that never rotates), the identity, and a single m-cycle.
  std::vector<int> two_fixed = pi.image();
  std::swap(two_fixed[0], two_fixed[5]);
  for (const Permutation& special :
       {Permutation(two_fixed), Permutation::identity(14), Permutation({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0})})
    gathers_match_maps(PositionPermutation({special, std::nullopt, 1.0}, PermuteLayout::line(), 40), 40);
  // 2-D: token y·W + x gathers with π_x^x on the first half and π_y^y (shifted by m/2) on the second.
  const Permutation px = random_permutation(7, 5, 3, 0), py = random_permutation(7, 5, 3, 1);
  const Eigen::Index W = 9, H = 4;
  const PositionPermutation grid({px, py, 1.0}, PermuteLayout::grid(W, H), W * H);
  std::vector<std::int32_t> map(14);
  for (Eigen::Index t = 0; t < W * H; ++t) {
    grid.index_map(t, map.data());
    const Permutation a = px.power(t % W), b = py.power(t / W);
    for (int c = 0; c < 7; ++c) {
      REQUIRE(map[std::size_t(c)] == a(c));
      REQUIRE(map[std::size_t(7 + c)] == 7 + b(c));
    }
  }
  gathers_match_maps(grid, W * H);
  // Tokens outside the head's positions are refused, not read out of range.
  CHECK_THROWS_AS(grid.index_map(W * H, map.data()), std::invalid_argument);
  CHECK_THROWS_AS(grid.gather_rows(Eigen::MatrixXd(Eigen::MatrixXd::Zero(3, 14)), W * H - 2), std::invalid_argument);
  // Rows of another width are refused, not read out of range.
  CHECK_THROWS_AS(grid.gather_rows(Eigen::MatrixXd(Eigen::MatrixXd::Zero(3, 12)), 0), std::invalid_argument);
  const RowMatrix<double> wide = RowMatrix<double>::Zero(3, 16);
  CHECK_THROWS_AS(grid.rotate_exp_rows(wide, Eigen::ArrayXd(Eigen::ArrayXd::Zero(3)), 1.0, 0), std::invalid_argument);
}

TEST_CASE("causal PermuteFormer: chunk sizes 1, odd and L agree", "[permute]") {
  const int d = 4, m = 10, L = 37;
  const auto q = gaussian(L, d, 11), k = gaussian(L, d, 12), v = gaussian(L, 2, 13);
  const PermuteHead head = random_head(m, false, 0.8, 17);
  const Eigen::MatrixXd w = draw_attention_projection(permute_config(Family::positive, true, m), d, 4, 0);
  const Eigen::MatrixXd ref =
      permute_attention_reference(q, k, v, w, permute_config(Family::positive, true, m), head,
                                  PermuteLayout::line(), 0, L);
  for (int chunk : {1, 3, 7, L, 2 * L}) {
    INFO("chunk " << chunk);
    CHECK(relative_max_error(linear(q, k, v, w, permute_config(Family::positive, true, m, chunk), head,
                                    PermuteLayout::line()),
                             ref) < 1e-12);
  }
}

// Causal PermuteFormer runs on causal FAVOR's windowed algorithm with the decay passed in: over several windows and
// feature blocks (L = 1100: chunk 48 gives blocks of 240 rows and windows of 480; chunk 300 one chunk per window) it
// must equal the quadratic reference, 1-D and 2-D, on one and two threads. r = 0.995 keeps keys of earlier windows
// in play (r^480 ≈ 0.09). Tolerance as in the test above (double rounding of features and sums of ≤ 1100 terms,
// ≲ 1e-13 relative); a state mis-decayed by one factor r between chunks moves outputs by ≈ 1e-3 or more, which the
// check with r = 1 shows the reference can see.
TEST_CASE("causal PermuteFormer equals the quadratic reference over many windows and feature blocks", "[permute]") {
  const int d = 4, m = 8;
  const Eigen::Index W = 44, H = 25, L = W * H;
  const auto q = gaussian(int(L), d, 51), k = gaussian(int(L), d, 52), v = gaussian(int(L), 2, 53);
  for (bool two_d : {false, true})
    for (int chunk : {1, 48, 300}) {
      const AttentionConfig c = permute_config(Family::positive, true, m, chunk);
      const Eigen::MatrixXd w = draw_attention_projection(c, d, 8, 0);
      const PermuteHead head = random_head(m, two_d, 0.995, 57);
      const PermuteLayout layout = two_d ? PermuteLayout::grid(W, H) : PermuteLayout::line();
      const Eigen::MatrixXd ref = permute_attention_reference(q, k, v, w, c, head, layout, 0, L);
      INFO((two_d ? "2-D" : "1-D") << " chunk " << chunk);
      CHECK(relative_max_error(linear(q, k, v, w, c, head, layout), ref) < 1e-10);
      CHECK(relative_max_error(linear(q, k, v, w, c, head, layout, 2), ref) < 1e-10);
      PermuteHead undecayed = head;
      undecayed.r = 1.0;
      CHECK(relative_max_error(permute_attention_reference(q, k, v, w, c, undecayed, layout, 0, L), ref) > 1e-3);
    }
}

TEST_CASE("causal PermuteFormer output i does not change, bit for bit, when later keys or values change",
          "[permute]") {
  const int d = 4, m = 8, L = 30, cut = 13;  // cut is inside a chunk of 8
  for (bool two_d : {false, true}) {
    const AttentionConfig c = permute_config(Family::positive, true, m, 8);
    const Eigen::MatrixXd w = draw_attention_projection(c, d, 5, 0);
    const PermuteHead head = random_head(m, two_d, 0.85, 19);
    const PermuteLayout layout = two_d ? PermuteLayout::grid(6, 5) : PermuteLayout::line();
    const auto q = gaussian(L, d, 21);
    Eigen::MatrixXd k = gaussian(L, d, 22), v = gaussian(L, 2, 23);
    const Matrix<float> before = permute_attend<float>({q.cast<float>()}, {k.cast<float>()}, {v.cast<float>()}, w, c,
                                                       {head}, layout)
                                     .front();
    const Eigen::MatrixXd before_d = linear(q, k, v, w, c, head, layout);
    k.bottomRows(L - cut - 1) = gaussian(L - cut - 1, d, 24, 3.0);  // much larger later keys: a new running max
    v.bottomRows(L - cut - 1) *= -7;
    const Matrix<float> after = permute_attend<float>({q.cast<float>()}, {k.cast<float>()}, {v.cast<float>()}, w, c,
                                                      {head}, layout)
                                    .front();
    const Eigen::MatrixXd after_d = linear(q, k, v, w, c, head, layout);
    INFO((two_d ? "2-D" : "1-D"));
    CHECK((before.topRows(cut + 1).array() == after.topRows(cut + 1).array()).all());
    CHECK((before_d.topRows(cut + 1).array() == after_d.topRows(cut + 1).array()).all());
    CHECK((before_d.bottomRows(L - cut - 1) - after_d.bottomRows(L - cut - 1)).cwiseAbs().maxCoeff() > 1e-3);
  }
}

TEST_CASE("causal PermuteFormer stays finite in float32 where a naive r^-j overflows", "[permute]") {
  const int d = 4, m = 6, L = 5000, window = 15;
  const double r = 0.88;
  // A direct implementation forms r^{-j}: infinite in float32 long before j = L − 1.
  CHECK(std::isinf(std::pow(static_cast<float>(r), -static_cast<float>(L - 1))));
  const AttentionConfig c = permute_config(Family::positive, true, m, 64);
  const Eigen::MatrixXd w = draw_attention_projection(c, d, 6, 0);
  const PermuteHead head = random_head(m, false, r, 29);
  const auto q = gaussian(L, d, 31), k = gaussian(L, d, 32), v = gaussian(L, 2, 33);
  const Matrix<float> out =
      permute_attend<float>({q.cast<float>()}, {k.cast<float>()}, {v.cast<float>()}, w, c, {head},
                            PermuteLayout::line())
          .front();
  REQUIRE(out.allFinite());
  const Eigen::MatrixXd ref = permute_attention_reference(q, k, v, w, c, head, PermuteLayout::line(), L - window, window);
  // float32 rounding (u ≈ 6e-8) of inputs, features (|ωᵀu| ≲ 10: relative error ~10u) and sums of ≲ 100 terms with
  // weights r^{i−j}: 1e-4 leaves a margin of ~10 over that, and a wrong decay would be off by O(1).
  CHECK(relative_max_error(out.bottomRows(window).cast<double>(), ref) < 1e-4);
}

TEST_CASE("PF properties at tiny size: shift invariance, boundedness, positivity, period = order", "[permute]") {
  const int d = 4, m = 12;
  const AttentionConfig c = permute_config(Family::positive, true, m);
  const Eigen::MatrixXd w = draw_attention_projection(c, d, 7, 0);
  const Eigen::VectorXd phi_q = explicit_permute_features(gaussian(1, d, 41), w, c).row(0).transpose();
  const Eigen::VectorXd phi_k = explicit_permute_features(gaussian(1, d, 42), w, c).row(0).transpose();
  const double tol = 2 * dot_rounding_bound(m + 1);
  const PermuteHead head = random_head(m, false, 0.9, 43);
  const PermuteLayout line = PermuteLayout::line();
  for (std::int64_t i = 0; i < 12; ++i)
    for (std::int64_t j = 0; j <= i; ++j) {
      const double base = absolute_similarity(phi_q, phi_k, head, line, i, j);
      CHECK(base > 0);                                          // property 3
      CHECK(base <= phi_q.norm() * phi_k.norm() * (1 + tol));   // property 2
      CHECK(std::abs(base - reference_similarity(phi_q, phi_k, head, line, i, j)) <= tol * base);
      for (std::int64_t t : {1, 5, 1000, 123456}) {              // property 1, content shift-copied
        const double moved = absolute_similarity(phi_q, phi_k, head, line, i + t, j + t);
        CHECK(std::abs(moved - base) <= tol * std::max(base, moved));
      }
    }
  // Power: with *different* content at the shifted positions the similarity does change.
  const Eigen::VectorXd phi_other = explicit_permute_features(gaussian(1, d, 44), w, c).row(0).transpose();
  CHECK(std::abs(absolute_similarity(phi_q, phi_other, head, line, 6, 3) -
                 absolute_similarity(phi_q, phi_k, head, line, 3, 0)) > 1e-3 * absolute_similarity(phi_q, phi_k, head, line, 3, 0));

  // Period: a π of order 60; offsets δ and δ + 60 agree, offsets below 60 are pairwise different.
  const PermuteHead periodic{order_sixty_permutation(m), std::nullopt, 1.0};
  REQUIRE(periodic.pi.order_u64() == 60);
  std::vector<double> sims;
  for (std::int64_t delta = 0; delta < 60; ++delta) {
    const double a = absolute_similarity(phi_q, phi_k, periodic, line, 7, 7 + delta);
    CHECK(std::abs(a - absolute_similarity(phi_q, phi_k, periodic, line, 7, 67 + delta)) <= tol * a);
    sims.push_back(a);
  }
  std::sort(sims.begin(), sims.end());
  for (std::size_t s = 1; s < sims.size(); ++s) CHECK(sims[s] - sims[s - 1] > tol * sims[s]);
}

TEST_CASE("2-D PermuteFormer is invariant to 2-D shifts and tells a row wrap from a unit step", "[permute]") {
  const int d = 4, m = 12;
  const Eigen::Index W = 5, H = 4;
  const AttentionConfig c = permute_config(Family::relu, false, m);
  const Eigen::MatrixXd w = draw_attention_projection(c, d, 8, 0);
  const Eigen::VectorXd phi_q = explicit_permute_features(gaussian(1, d, 51), w, c).row(0).transpose();
  const Eigen::VectorXd phi_k = explicit_permute_features(gaussian(1, d, 52), w, c).row(0).transpose();
  const double tol = 2 * dot_rounding_bound(m + 1);
  const PermuteHead h2 = random_head(m, true, 1.0, 53), h1 = random_head(m, false, 1.0, 54);
  const PermuteLayout grid = PermuteLayout::grid(W, H), line = PermuteLayout::line();
  const double base = absolute_similarity(phi_q, phi_k, h2, grid, 1 * W + 0, 0 * W + 2);  // (0,1) → (2,0)
  const double moved = absolute_similarity(phi_q, phi_k, h2, grid, 3 * W + 2, 2 * W + 4);  // shifted by (2,2)
  CHECK(std::abs(moved - base) <= tol * base);
  const double wrap2 = absolute_similarity(phi_q, phi_k, h2, grid, 1 * W + W - 1, 2 * W);
  const double unit2 = absolute_similarity(phi_q, phi_k, h2, grid, 1 * W + 1, 1 * W + 2);
  CHECK(std::abs(wrap2 - unit2) > 1e-6 * unit2);
  const double wrap1 = absolute_similarity(phi_q, phi_k, h1, line, 1 * W + W - 1, 2 * W);
  const double unit1 = absolute_similarity(phi_q, phi_k, h1, line, 1 * W + 1, 1 * W + 2);
  CHECK(std::abs(wrap1 - unit1) <= tol * unit1);
}

TEST_CASE("PermuteFormer gives identical numbers on 1 and 2 threads, one head or several", "[permute]") {
  const int d = 4, m = 8, L = 1100;  // more than two key blocks of 512
  const AttentionConfig c = permute_config(Family::positive, false, m);
  const Eigen::MatrixXd w = draw_attention_projection(c, d, 9, 0);
  Heads<double> q, k, v;
  std::vector<PermuteHead> heads;
  for (int h = 0; h < 3; ++h) {
    q.push_back(gaussian(L, d, 60 + h));
    k.push_back(gaussian(L, d, 70 + h));
    v.push_back(gaussian(L, 2, 80 + h));
    heads.push_back(random_head(m, false, 1.0, 90 + static_cast<std::uint64_t>(h)));
  }
  for (std::size_t count : {std::size_t{1}, std::size_t{3}}) {
    const Heads<double> qs(q.begin(), q.begin() + static_cast<long>(count)),
        ks(k.begin(), k.begin() + static_cast<long>(count)), vs(v.begin(), v.begin() + static_cast<long>(count));
    const std::vector<PermuteHead> hs(heads.begin(), heads.begin() + static_cast<long>(count));
    const auto one = permute_attend(qs, ks, vs, w, c, hs, PermuteLayout::line(), 1);
    const auto two = permute_attend(qs, ks, vs, w, c, hs, PermuteLayout::line(), 2);
    for (std::size_t h = 0; h < count; ++h) CHECK((one[h].array() == two[h].array()).all());
  }
}

TEST_CASE("PermuteFormer rejects bad input with a message naming the problem", "[permute]") {
  const int d = 4, m = 8, L = 12;
  const auto q = gaussian(L, d, 1), k = gaussian(L, d, 2), v = gaussian(L, 2, 3);
  auto expect = [&](const AttentionConfig& c, const PermuteHead& head, const PermuteLayout& layout,
                    const std::string& needle) {
    const Eigen::MatrixXd w = draw_attention_projection(c, d, 1, 0);
    try {
      linear(q, k, v, w, c, head, layout);
      FAIL("no exception; expected one naming " << needle);
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  const AttentionConfig causal = permute_config(Family::positive, true, m);
  const AttentionConfig bidir = permute_config(Family::positive, false, m);
  expect(causal, random_head(m, false, 0.0, 1), PermuteLayout::line(), "--r");
  expect(causal, random_head(m, false, -0.5, 1), PermuteLayout::line(), "--r");
  expect(causal, random_head(m, false, 1.5, 1), PermuteLayout::line(), "--r");
  expect(bidir, random_head(m, false, 0.9, 1), PermuteLayout::line(), "--r must be 1");
  expect(bidir, random_head(m, true, 1.0, 1), PermuteLayout::grid(5, 3), "--grid");
  expect(bidir, random_head(m, true, 1.0, 1), PermuteLayout::grid(0, 12), "--grid");
  expect(permute_config(Family::positive, false, 7),
         {random_permutation(3, 5, 1, 1), random_permutation(3, 5, 1, 2), 1.0}, PermuteLayout::grid(4, 3), "even");
  expect(bidir, random_head(m + 2, false, 1.0, 1), PermuteLayout::line(), "permutation size");
  expect(permute_config(Family::trig, false, m), random_head(2 * m, false, 1.0, 1), PermuteLayout::line(),
         "positive features");
  const Eigen::MatrixXd w = draw_attention_projection(bidir, d, 1, 0);
  CHECK_THROWS_AS(permute_attend<double>({q, q}, {k, k}, {v, v}, w, bidir, {random_head(m, false, 1.0, 1)},
                                         PermuteLayout::line()),
                  std::invalid_argument);
}

TEST_CASE("favorlab permute-properties: bad input exits 2 naming the option", "[permute][cli]") {
  using namespace favorlab::testing;
  const auto dir = scratch_dir("permute");
  const std::pair<const char*, const char*> cases[] = {
      {"--r 1.5", "--r"},       {"--r 0", "--r"},         {"--m 13", "--m"},
      {"--grid 4by4", "--grid"}, {"--features trig", "trig"}, {"--overhead-m 0", "--overhead-m"},
  };
  for (const auto& [args, needle] : cases) {
    const CliRun run = run_cli(std::string("permute-properties --quick --quiet --out r.json ") + args, dir);
    INFO(args << "\nstderr: " << run.err);
    CHECK(run.status == 2);
    CHECK(run.err.find(needle) != std::string::npos);
    CHECK(!std::filesystem::exists(dir / "r.json"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("PermuteFormer's fused features (gather inside the exp pass) equal features gathered afterwards",
          "[permute]") {
  // Same mathematics, different rounding: the products U Wᵀ row-major against column-major (d-term sums), and the
  // shift folded into one exponent. Bound, relative to the largest value (values ≤ 1 with the stabilizer):
  //   (2d + 16) · u · (1 + S),  S = max‖ω_a‖·max‖u_r‖ + max‖u_r‖² + max|log scale|,
  // the γ_d error of both products and of the norms carried through exp, plus a few roundings of the shift.
  // Power: the plain features gathered with a neighbouring token's permutations must exceed it.
  const int d = 16, m = 32;
  const Eigen::Index W = 44, H = 25, L = W * H;  // 1100 tokens: blocks at 0, 512 and 1024
  const Eigen::MatrixXd q = gaussian(int(L), d, 61, 1.5), k = gaussian(int(L), d, 62, 1.5);
  const AttentionConfig c = permute_config(Family::positive, false, m);
  const Eigen::MatrixXd w = draw_attention_projection(c, d, 3, 0);
  const double u = std::numeric_limits<double>::epsilon() / 2, input_scale = std::pow(double(d), -0.25);
  const double max_w = w.rowwise().norm().maxCoeff();
  const double max_x = std::max(q.rowwise().norm().maxCoeff(), k.rowwise().norm().maxCoeff()) * input_scale;
  for (const bool two_d : {false, true}) {
    const PermuteHead head = random_head(m, two_d, 1.0, 67);
    const PermuteLayout layout = two_d ? PermuteLayout::grid(W, H) : PermuteLayout::line();
    const PositionPermutation positions(head, layout, L);
    const PermutedFeatures<double> fused(q, k, w, c, positions), plain(q, k, w, c, positions, false);
    REQUIRE(fused.fused());
    REQUIRE_FALSE(plain.fused());
    for (const Eigen::Index first : {Eigen::Index(0), Eigen::Index(512), Eigen::Index(1024)}) {
      const Eigen::Index rows = std::min<Eigen::Index>(512, L - first);
      INFO((two_d ? "2-D" : "1-D") << ", rows from " << first);
      const PermutedBlock<double> fk = fused.keys(first, rows), pk = plain.keys(first, rows);
      const PermutedRows<double> fq = fused.queries(first, rows), pq = plain.queries(first, rows);
      const double carried = first == 0 ? -std::numeric_limits<double>::infinity() : 0.25;
      const PermutedCausalKeys<double> fc = fused.causal_keys(first, rows, carried),
                                       pc = plain.causal_keys(first, rows, carried);
      const double scales = std::max({std::abs(fk.log_scale), fq.log_scale.abs().maxCoeff(),
                                      fc.running.abs().maxCoeff()});
      const double bound = (2 * d + 16) * u * (1 + max_w * max_x + max_x * max_x + scales);
      CHECK(std::abs(fk.log_scale - pk.log_scale) <= bound);
      CHECK((fk.values - pk.values).cwiseAbs().maxCoeff() <= bound);
      CHECK((fq.log_scale - pq.log_scale).abs().maxCoeff() <= bound);
      CHECK((fq.values - pq.values).cwiseAbs().maxCoeff() <= bound);
      CHECK((fc.running - pc.running).abs().maxCoeff() <= bound);
      CHECK((fc.values - pc.values).cwiseAbs().maxCoeff() <= bound);
      // Power: the permutations of the neighbouring tokens (first − 1, first, … or first + 1, …) on the same rows.
      const BlockFeatures<double> raw = block_features_of_rows(k, first, rows, w, c);
      const Eigen::Index shifted = first > 0 ? first - 1 : first + 1;
      CHECK((fk.values - positions.gather_rows(raw.values, shifted)).cwiseAbs().maxCoeff() > bound);
    }
  }
}
