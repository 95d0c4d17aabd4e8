// Paired simplex and orthogonal rows (mc/paired_simplex_gap.hpp). Covered:
//   1. the twin: C is the symmetric square root of the simplex Gram matrix, C = [1] at one row; the twin of an
//      orthogonal block has the simplex's inner products (−1/(d−1)) and the block's norms, one row is copied bit for bit;
//   2. the law, plain sampling at a light point: each coupling's MSE is its closed form and the difference is the
//      difference of the closed forms (one block, a partial block, two blocks); power: a difference 5 % of MSE(orthogonal)
//      lower than the truth is violated;
//   3. the same at heavy points under the mixture proposal, and the pairing's gain: the difference's SE is a small
//      fraction of what two independent runs of the same size give;
//   4. at m = 1 the difference is 0 on every trial;
//   5. the gate's level on the one-sided difference, simulated at few trials on the heaviest skewness met;
//   6. 1 and 2 threads bit-identical; bad input → std::invalid_argument.
// Statistical checks use a false-failure rate kAlpha split over their points (Bonferroni); seeds are fixed, so the
// suite is deterministic, and other seeds pass with probability ≥ 1 − kAlpha per check.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "features/family_theory.hpp"
#include "kernels/softmax_kernel.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/paired_simplex_gap.hpp"
#include "rng/philox_stream.hpp"
#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-3;
constexpr std::uint64_t kSeed = 20261204;

struct Case {
  int d, m;
};
// One block (m = d), partial blocks (m < d), and two blocks (4 + 2 rows).
const std::vector<Case> kCases{{4, 4}, {16, 5}, {16, 16}, {4, 6}};

double exact(Coupling c, const Geometry& g, const Case& k) { return *exact_mse(Family::positive, c, g, k.d, k.m); }

// The evidence of a paired difference against `theory`, scaled by SM² (the rounding allowance too).
PointEvidence gap_evidence(const PairedSimplexGap& r, double theory, const Geometry& g) {
  const double k2 = softmax_kernel(g) * softmax_kernel(g);
  PointEvidence ev{r.gap, theory, r.gap_stderr, 1e-20 * k2, r.gate_skewness(), r.trials, r.nonfinite, "p"};
  ev.scale = k2;
  return ev;
}

PointEvidence mse_evidence(const CoupledImportanceSampledMse& r, double theory, const Geometry& g) {
  const double k2 = softmax_kernel(g) * softmax_kernel(g);
  return {r.mse, theory, r.mse_stderr, 1e-20 * k2, r.gate_skewness(), r.trials, r.nonfinite, "p"};
}

}  // namespace

TEST_CASE("the simplex twin of orthogonal rows has the simplex's shape", "[mc][paired]") {
  for (int d : {2, 3, 8}) {
    for (int k = 1; k <= d; ++k) {
      const Eigen::MatrixXd c = simplex_twin_coefficients(k, d);
      Eigen::MatrixXd gram = Eigen::MatrixXd::Constant(k, k, -1.0 / (d - 1));
      gram.diagonal().setOnes();
      REQUIRE((c * c.transpose() - gram).cwiseAbs().maxCoeff() < 1e-14);
      REQUIRE((c - c.transpose()).cwiseAbs().maxCoeff() < 1e-15);
    }
    REQUIRE(simplex_twin_coefficients(1, d)(0, 0) == 1.0);
  }
  PhiloxStream rng(kSeed, 1, 0);
  const int d = 6, m = 9;  // a full block and a partial one of 3 rows
  const CoupledBlockSampler full(Coupling::orthogonal, d, d), part(Coupling::orthogonal, 3, d);
  Eigen::MatrixXd w(m, d);
  full.draw(w, 0, rng);
  part.draw(w, d, rng);
  const Eigen::MatrixXd t = simplex_twin(w, d);
  for (int i = 0; i < m; ++i) {
    REQUIRE(t.row(i).norm() == Approx(w.row(i).norm()).epsilon(1e-13));
    for (int j = 0; j < m; ++j) {
      if (i == j) continue;
      const double cos = t.row(i).dot(t.row(j)) / (t.row(i).norm() * t.row(j).norm());
      // Rows of one block: the simplex's −1/(d−1); rows of different blocks keep the blocks' independence (their
      // inner products are those of the orthogonal rows' blocks, untouched here).
      if (i / d == j / d) REQUIRE(cos == Approx(-1.0 / (d - 1)).margin(1e-13));
    }
  }
  Eigen::MatrixXd one(1, d);
  one.row(0) = w.row(0);
  REQUIRE(simplex_twin(one, d) == one);  // bit for bit
}

TEST_CASE("paired trials give each coupling's exact MSE and their difference, plain sampling", "[mc][paired]") {
  // ‖z‖² = 0.18: light-tailed squared errors, where plain sampling is reliable at these trials.
  const Geometry g{0.3, 0.3, 0.0};
  const RowProposal plain{{0, 1, false}, 0};
  const std::size_t n = kCases.size();
  ClaimCheck ort("orthogonal", "cases", kAlpha, n), sx("simplex", "cases", kAlpha, n), gap("gap", "cases", kAlpha, n);
  ClaimCheck wrong("gap <= truth - 5% MSE(orthogonal)", "cases", kAlpha, n, ClaimCheck::Sides::upper);
  for (std::size_t i = 0; i < n; ++i) {
    const Case& k = kCases[i];
    const PairedSimplexGap r = paired_simplex_gap(Family::positive, g, k.d, k.m, 100000, kSeed, 10 + i, 2, plain);
    const double o = exact(Coupling::orthogonal, g, k), s = exact(Coupling::simplex, g, k);
    INFO("d=" << k.d << " m=" << k.m << ": gap " << r.gap << " exact " << s - o << " SE " << r.gap_stderr
              << " skew " << r.gap_sample_skewness << " paired/independent SE "
              << r.gap_stderr / std::hypot(r.simplex.mse_stderr, r.orthogonal.mse_stderr));
    REQUIRE(ort.judge(mse_evidence(r.orthogonal, o, g)).status != Verdict::violated);
    REQUIRE(sx.judge(mse_evidence(r.simplex, s, g)).status != Verdict::violated);
    PointEvidence ev = gap_evidence(r, s - o, g);
    const PointVerdict v = gap.judge(ev);
    REQUIRE(v.reliable);
    REQUIRE(v.status != Verdict::violated);
    REQUIRE(wrong.judge(gap_evidence(r, s - o - 0.05 * o, g)).status == Verdict::violated);
  }
}

TEST_CASE("paired trials at heavy points: the difference agrees with the closed forms, far below independent runs' SE",
          "[mc][paired]") {
  // ‖z‖ = 1.41, 1.73, 2 at unit norms; 30000 trials under the mixture proposal (mc/importance_coupled.hpp).
  constexpr std::int64_t kTrials = 30000;
  const std::vector<Geometry> heavy{{1, 1, 0.0}, {1, 1, 0.5}, {1, 1, 1.0}};
  const std::size_t n = heavy.size() * kCases.size();
  ClaimCheck gap("gap", "heavy", kAlpha, n), sx("simplex", "heavy", kAlpha, n);
  ClaimCheck wrong("gap <= truth - 5% MSE(orthogonal)", "heavy", kAlpha, n, ClaimCheck::Sides::upper);
  double worst_partial_gain = 0, largest_skewness = 0;
  double full16_lo = 9, full16_hi = 0, full4_lo = 9, full4_hi = 0;  // the gain where a block is full (m = d)
  std::uint64_t stream = 100;
  for (const Geometry& g : heavy) {
    const RowProposal q = optimal_row_proposal(Family::positive, g);
    for (const Case& k : kCases) {
      const PairedSimplexGap r = paired_simplex_gap(Family::positive, g, k.d, k.m, kTrials, kSeed, stream++, 2, q);
      const double o = exact(Coupling::orthogonal, g, k), s = exact(Coupling::simplex, g, k);
      // Two independent runs of this size would have the SE hypot(SE_simplex, SE_orthogonal).
      const double gain = r.gap_stderr / std::hypot(r.simplex.mse_stderr, r.orthogonal.mse_stderr);
      if (k.m < k.d) worst_partial_gain = std::max(worst_partial_gain, gain);
      double& lo = k.d == 16 ? full16_lo : full4_lo;
      double& hi = k.d == 16 ? full16_hi : full4_hi;
      if (k.m == k.d) lo = std::min(lo, gain), hi = std::max(hi, gain);
      largest_skewness = std::max(largest_skewness, r.gate_skewness());
      INFO("d=" << k.d << " m=" << k.m << " cos=" << g.cos_angle << ": gap " << r.gap << " exact " << s - o << " SE "
                << r.gap_stderr << " gate skewness " << r.gate_skewness() << " paired/independent SE " << gain);
      const PointVerdict v = gap.judge(gap_evidence(r, s - o, g));
      REQUIRE(v.reliable);
      REQUIRE(v.status != Verdict::violated);
      REQUIRE(sx.judge(mse_evidence(r.simplex, s, g)).status != Verdict::violated);
      REQUIRE(wrong.judge(gap_evidence(r, s - o - 0.05 * o, g)).status == Verdict::violated);
    }
  }
  // The pairing's gain where a block's simplex rows can lie close to its orthogonal ones (m < d): an unpaired twin would
  // give about 1. docs/theory.md#paired-simplex-and-orthogonal-rows quotes the measured figures (deterministic for the
  // fixed seed): gain at most 0.40, gate skewness at most 1.02; with full blocks 0.93 to 0.99 at d = 16 and 1.1 to 1.2
  // at d = 4, where the twin's rows lie far from the orthogonal ones.
  REQUIRE(worst_partial_gain < 0.5);
  CHECK(worst_partial_gain == Approx(0.4037).margin(5e-5));
  CHECK(largest_skewness == Approx(1.0201).margin(5e-5));
  CHECK(full16_lo == Approx(0.9347).margin(5e-5));
  CHECK(full16_hi == Approx(0.9908).margin(5e-5));
  CHECK(full4_lo == Approx(1.1155).margin(5e-5));
  CHECK(full4_hi == Approx(1.2152).margin(5e-5));
}

TEST_CASE("at one row the paired difference is 0 on every trial", "[mc][paired]") {
  for (const Geometry& g : {Geometry{1, 1, 0.5}, Geometry{0.3, 0.5, -0.2}}) {
    const PairedSimplexGap r =
        paired_simplex_gap(Family::positive, g, 16, 1, 500, kSeed, 3, 2, optimal_row_proposal(Family::positive, g));
    REQUIRE(r.gap == 0.0);
    REQUIRE(r.gap_stderr == 0.0);
    REQUIRE(r.simplex.mse == r.orthogonal.mse);
    ClaimCheck order("simplex <= orthogonal", "m = 1", kAlpha, 1, ClaimCheck::Sides::upper);
    REQUIRE(order.judge(gap_evidence(r, 0, g)).status == Verdict::holds);
  }
  // Two rows are not one vector: the difference has a spread.
  const Geometry g{1, 1, 0.5};
  REQUIRE(paired_simplex_gap(Family::positive, g, 16, 2, 500, kSeed, 3, 2, optimal_row_proposal(Family::positive, g))
              .gap_stderr > 0);
}

TEST_CASE("the gate on paired differences keeps the one-sided z test's level at few trials", "[mc][paired]") {
  // The heaviest gate skewness met above (d = m = 16 at ‖z‖ = 1.41), 400 replicates of 300 trials, one point at
  // α = 0.05 against the exact difference. To first order the gate lets the tail's rate reach twice its share
  // (stats/edgeworth.hpp): the test fails when the Clopper–Pearson interval at 1 − 2e-6 lies above 2α. Measured: 23
  // false violations of 400 (5.75 %), all 400 judged.
  const Geometry g{1, 1, 0.0};
  const Case k{16, 16};
  const RowProposal q = optimal_row_proposal(Family::positive, g);
  const double truth = exact(Coupling::simplex, g, k) - exact(Coupling::orthogonal, g, k);
  const int replicates = 400;
  int violated = 0, judged = 0;
  for (int rep = 0; rep < replicates; ++rep) {
    const PairedSimplexGap r = paired_simplex_gap(Family::positive, g, k.d, k.m, 300, kSeed, 1000 + rep, 2, q);
    ClaimCheck check("level", "one point", 0.05, 1, ClaimCheck::Sides::upper);
    const PointVerdict v = check.judge(gap_evidence(r, truth, g));
    judged += v.reliable ? 1 : 0;
    violated += v.status == Verdict::violated ? 1 : 0;
  }
  INFO("false violations " << violated << " of " << replicates << ", judged " << judged);
  REQUIRE(clopper_pearson(violated, replicates, 2e-6).lower <= 2 * 0.05);
  REQUIRE(judged >= replicates / 2);  // the gate does not simply refuse these trials
  // docs/theory.md quotes these counts (deterministic for the fixed seed).
  CHECK(violated == 23);
  CHECK(judged == 400);
}

TEST_CASE("paired trials are bit-identical for 1 and 2 threads, and refuse bad input", "[mc][paired]") {
  const Geometry g{1, 1, 0.5};
  const RowProposal q = optimal_row_proposal(Family::hyperbolic, g);
  const auto a = paired_simplex_gap(Family::hyperbolic, g, 8, 6, 1000, kSeed, 3, 1, q);
  const auto b = paired_simplex_gap(Family::hyperbolic, g, 8, 6, 1000, kSeed, 3, 2, q);
  REQUIRE(a.gap == b.gap);
  REQUIRE(a.gap_stderr == b.gap_stderr);
  REQUIRE(a.gap_sample_skewness == b.gap_sample_skewness);
  REQUIRE(a.simplex.mse == b.simplex.mse);
  REQUIRE(a.orthogonal.estimate_mean == b.orthogonal.estimate_mean);
  // A look: 1024 trials continued to 2048 are one run of 2048, bit for bit (1024 is a multiple of the trial block).
  const auto pilot = paired_simplex_gap(Family::hyperbolic, g, 8, 6, 1024, kSeed, 3, 2, q);
  const auto look = paired_simplex_gap(Family::hyperbolic, g, 8, 6, 2048, kSeed, 3, 1, q, {}, &pilot);
  const auto whole = paired_simplex_gap(Family::hyperbolic, g, 8, 6, 2048, kSeed, 3, 2, q);
  REQUIRE(look.drawn == 2048);
  REQUIRE(look.gap == whole.gap);
  REQUIRE(look.gap_stderr == whole.gap_stderr);
  REQUIRE(look.simplex.mse == whole.simplex.mse);
  REQUIRE_THROWS_AS(paired_simplex_gap(Family::hyperbolic, g, 8, 6, 1024, kSeed, 3, 1, q, {}, &pilot),
                    std::invalid_argument);
  const auto run = [&](Family e, int d, int m, std::int64_t trials, int threads, const RowProposal& p) {
    return paired_simplex_gap(e, g, d, m, trials, kSeed, 0, threads, p);
  };
  REQUIRE_THROWS_AS(run(Family::trig, 4, 4, 10, 1, q), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, 1, 1, 10, 1, q), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, 4, 0, 10, 1, q), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, 4, 4, 1, 1, q), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, 4, 4, 10, 0, q), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, 4, 4, 10, 1, RowProposal{{0, 1e3 + 1, false}, 0}), std::invalid_argument);
  RowProposal sphere = q;
  sphere.sphere = true;
  REQUIRE_THROWS_AS(run(Family::positive, 4, 4, 10, 1, sphere), std::invalid_argument);
  REQUIRE_THROWS_AS(simplex_twin_coefficients(5, 4), std::invalid_argument);
  REQUIRE_THROWS_AS(simplex_twin_coefficients(1, 1), std::invalid_argument);
}

TEST_CASE("favorlab orthogonal judges simplex <= orthogonal on paired trials", "[paired][cli]") {
  const auto dir = favorlab::testing::scratch_dir("paired-simplex");
  // d = 16, m = 1 and 2 at ‖z‖ = 1.73 and 2: the gaps are 0 (m = 1) and 0.27 % of MSE(orthogonal) (m = 2). The plain
  // line on independent streams stays open there; the paired one settles every point.
  const auto doc = favorlab::testing::run_cli_json(
      "orthogonal --d 16 --m 1,2 --estimators positive --x-norm 1 --y-norm 1 --cos 0.5,1 --trials 2000 "
      "--importance-trials 60000 --quiet",
      dir, "o.json");
  int found = 0;
  for (const auto& c : doc["checks"]) {
    const std::string claim = c["claim"];
    INFO(claim << ": " << c["detail"].get<std::string>());
    if (claim == "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), Monte Carlo")
      CHECK(c["status"] == "inconclusive");
    if (claim != "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), importance-sampled") continue;
    ++found;
    // The check states the departure it would have caught.
    CHECK(c["detail"].get<std::string>().find("power: a theory off by") != std::string::npos);
    CHECK(c["status"] == "holds");
    CHECK(c["points_held"] == 4);
    CHECK(c["where"].get<std::string>().find("paired trials") != std::string::npos);
    CHECK(c["detail"].get<std::string>().find("at m=1 a paired trial's simplex row is its orthogonal row") !=
          std::string::npos);
  }
  CHECK(found == 1);
  std::filesystem::remove_all(dir);
}
