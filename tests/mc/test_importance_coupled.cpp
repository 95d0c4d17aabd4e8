// Importance sampling with coupled rows (mc/importance_coupled.hpp). Covered:
//   1. the block sampler: orthogonal blocks are orthonormal and simplex blocks have the simplex's inner products
//      (−1/(d−1)) whatever the frame, rows have chi norms (E‖ω‖² = d), and conditioning on a row keeps the block's
//      shape, puts ω_J in place and leaves other blocks alone;
//   2. the law: under the plain proposal (weight 1) the sampler's MSE is the exact orthogonal / simplex / iid MSE
//      (features/family_theory.hpp), for one block, a partial block and two blocks;
//   3. unbiasedness at heavy points, where the plain squared error is far too skewed: the importance-sampled MSE
//      agrees with the closed form for orthogonal, simplex and iid rows, every point reliable by the gate;
//   4. power: the closed form × 1.05 is violated at those points, where plain Monte Carlo with the same trials is out
//      of reach (its own gate asks for more trials than were run);
//   5. the gate's level, simulated: 400 replicates of few trials at the heaviest skewness met, false violations at
//      α = 0.05 counted;
//   6. the zero-variance proposal gives every weighted estimate SM with coupled rows (an identity of the map's
//      algebra: test_importance_sampled_mean.cpp shows it blind to the rows' law); a proposal for the other estimator
//      does not;
//   7. 1 and 2 threads bit-identical; bad input → std::invalid_argument;
//   8. the CLI: orthogonal's importance-sampled checks hold where its plain ones cannot settle, unbiased's Lemma 1
//      by the defensive proposal holds with orthogonal rows where the plain line is open, the identity line is its
//      own claim, and bad --importance-trials exit 2 with no file.
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
#include "features/projection.hpp"
#include "gate_level.hpp"
#include "kernels/softmax_kernel.hpp"
#include "mc/importance_coupled.hpp"
#include "rng/philox_stream.hpp"
#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/normal_quantiles.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-3;
constexpr std::uint64_t kSeed = 20261203;

// ‖z‖ = ‖x + y‖ = 2√(1 + cos) for unit x, y: 1.41 (cos 0), 1.73, 2; and 3 at norms 1.5.
const std::vector<Geometry> kHeavy{{1, 1, 0.0}, {1, 1, 0.5}, {1, 1, 1.0}, {1.5, 1.5, 1.0}};

struct Case {
  Coupling c;
  int d, m;
};
// One block (m = d), a partial block (m < d), and two blocks (m > d, orthogonal: 4 + 2 rows).
const std::vector<Case> kCases{{Coupling::orthogonal, 4, 4}, {Coupling::simplex, 4, 4}, {Coupling::orthogonal, 16, 16},
                               {Coupling::simplex, 16, 5},   {Coupling::orthogonal, 4, 6}, {Coupling::iid, 8, 8}};

double exact(const Case& k, const Geometry& g) { return *exact_mse(Family::positive, k.c, g, k.d, k.m); }

// The evidence of one importance-sampled MSE, the rounding allowance scaled by SM(x, y).
PointEvidence mse_evidence(const CoupledImportanceSampledMse& r, double theory, const Geometry& g) {
  return testing::mse_evidence(r, theory, softmax_kernel(g));
}

}  // namespace

TEST_CASE("coupled blocks keep their shape: orthonormal or simplex directions, chi norms", "[mc][importance]") {
  PhiloxStream rng(kSeed, 1, 0);
  for (const Case& k : {Case{Coupling::orthogonal, 5, 5}, Case{Coupling::orthogonal, 6, 3},
                        Case{Coupling::simplex, 5, 5}, Case{Coupling::simplex, 6, 3}}) {
    const CoupledBlockSampler sampler(k.c, k.m, k.d);
    const int draws = 4000;
    double norm_sq = 0;
    for (int t = 0; t < draws; ++t) {
      Eigen::MatrixXd w = Eigen::MatrixXd::Zero(k.m + 2, k.d);
      sampler.draw(w, 1, rng);
      REQUIRE(w.row(0).norm() == 0.0);  // rows outside the block untouched
      REQUIRE(w.row(k.m + 1).norm() == 0.0);
      Eigen::MatrixXd dirs = w.middleRows(1, k.m);
      for (int i = 0; i < k.m; ++i) {
        norm_sq += dirs.row(i).squaredNorm();
        dirs.row(i).normalize();
      }
      const double off = k.c == Coupling::simplex ? -1.0 / (k.d - 1) : 0.0;
      const Eigen::MatrixXd gram = dirs * dirs.transpose();
      for (int i = 0; i < k.m; ++i)
        for (int j = 0; j < k.m; ++j) REQUIRE(gram(i, j) == Approx(i == j ? 1.0 : off).margin(1e-12));
    }
    // E‖ω‖² = d with Var = 2d per row: the mean over draws·m rows within 5 SE (false failure < 6e-7).
    const double n = static_cast<double>(draws) * k.m;
    REQUIRE(std::abs(norm_sq / n - k.d) < 5 * std::sqrt(2.0 * k.d / n));
  }
}

TEST_CASE("conditioning a block on one row puts that row in place and keeps the block's shape", "[mc][importance]") {
  PhiloxStream rng(kSeed, 2, 0);
  const int d = 4;
  Eigen::MatrixXd w(8, d);
  const CoupledBlockSampler sampler(Coupling::simplex, d, d);
  sampler.draw(w, 0, rng);
  sampler.draw(w, 4, rng);
  const Eigen::MatrixXd before = w;
  Eigen::VectorXd omega(d);
  omega << 0.3, -1.2, 2.0, 0.7;
  condition_block_on_row(w, d, 5, omega);
  REQUIRE((w.topRows(4) - before.topRows(4)).norm() == 0.0);  // the other block untouched
  REQUIRE((w.row(5).transpose() - omega).norm() == 0.0);
  for (int i : {4, 6, 7}) REQUIRE(w.row(i).norm() == Approx(before.row(i).norm()).epsilon(1e-13));
  const Eigen::MatrixXd block = w.middleRows(4, 4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j)
        REQUIRE(block.row(i).normalized().dot(block.row(j).normalized()) == Approx(-1.0 / 3).margin(1e-12));
  REQUIRE_THROWS_AS(condition_block_on_row(w, d, 5, Eigen::VectorXd::Zero(d)), std::invalid_argument);
  REQUIRE_THROWS_AS(condition_block_on_row(w, d, 8, omega), std::invalid_argument);
}

TEST_CASE("under the plain proposal the coupled sampler's MSE is the exact MSE", "[mc][importance]") {
  // Weight 1 at proposal N(0, 1): plain Monte Carlo of the sampler's own law, at a light point (‖z‖² = 0.18, where
  // the sampled skewness of the squared error is 4–18 (simplex rows the most) and the gate asks for up to 1.2e5).
  const Geometry g{0.3, 0.3, 0.0};
  const RowProposal plain{{0, 1, false}, 0};
  ClaimCheck check("plain", "cases", kAlpha, kCases.size());
  ClaimCheck wrong("plain, theory x 1.05", "cases", kAlpha, kCases.size());
  for (std::size_t i = 0; i < kCases.size(); ++i) {
    const Case& k = kCases[i];
    const CoupledImportanceSampledMse r =
        importance_sampled_coupled_mse(Family::positive, k.c, g, k.d, k.m, 200000, kSeed, 10 + i, 2, plain);
    const PointEvidence ev = mse_evidence(r, exact(k, g), g);
    const PointVerdict v = check.judge(ev);
    INFO("case " << i << ": mse " << r.mse << " exact " << exact(k, g) << " z " << v.z << " skew " << ev.skewness
                  << " needed " << v.trials_needed);
    REQUIRE(v.reliable);
    REQUIRE(v.status != Verdict::violated);
    // Power: relative SE ≤ 0.6 %, so a 5 % error of the law's MSE lies ≈ 9 SE away.
    REQUIRE(wrong.judge(mse_evidence(r, 1.05 * exact(k, g), g)).status == Verdict::violated);
    REQUIRE(r.estimate_mean / softmax_kernel(g) == Approx(1).margin(6 * r.estimate_stderr / softmax_kernel(g)));
  }
}

TEST_CASE("importance-sampled MSE with coupled rows agrees with the closed forms at heavy points, and has power",
          "[mc][importance]") {
  // 30000 trials: relative SE ≤ 1.1 % at these points; the closed form × 1.05 then lies ≥ 4.5 SE away.
  constexpr std::int64_t kTrials = 30000;
  const std::size_t points = kHeavy.size() * kCases.size();
  ClaimCheck check("coupled IS", "heavy", kAlpha, points);
  ClaimCheck wrong("coupled IS, theory x 1.05", "heavy", kAlpha, points);
  ClaimCheck plain_check("plain", "heavy", kAlpha, points);
  std::uint64_t stream = 100;
  for (const Geometry& g : kHeavy) {
    const RowProposal q = optimal_row_proposal(Family::positive, g);
    for (const Case& k : kCases) {
      const CoupledImportanceSampledMse r =
          importance_sampled_coupled_mse(Family::positive, k.c, g, k.d, k.m, kTrials, kSeed, stream++, 2, q);
      const double theory = exact(k, g);
      const PointVerdict v = check.judge(mse_evidence(r, theory, g));
      const PointVerdict p = wrong.judge(mse_evidence(r, 1.05 * theory, g));
      INFO(coupling_name(k.c) << " d=" << k.d << " m=" << k.m << " cos=" << g.cos_angle << " |x|=" << g.x_norm
                              << ": mse/theory " << r.mse / theory << " rel SE " << r.mse_stderr / theory
                              << " gate skewness " << r.gate_skewness());
      REQUIRE(v.reliable);
      REQUIRE(v.status != Verdict::violated);
      REQUIRE(r.mse_stderr / theory < 0.011);  // docs/theory.md#importance-sampling-for-coupled-rows quotes it
      REQUIRE(p.status == Verdict::violated);
      // Plain Monte Carlo at the same trial count: the a-priori skewness of the iid squared error (what the
      // experiments gate plain coupled rows with) puts the point out of reach of these trials.
      const ErrorMoments em = error_moments(Family::positive, g, k.d, k.m);
      const PointVerdict pv =
          plain_check.judge({theory, theory, theory * 1e-3, 0, em.squared_error_skewness, kTrials, 0, "p"});
      REQUIRE_FALSE(pv.reliable);
    }
  }
  REQUIRE(check.result().status != Verdict::violated);
}

TEST_CASE("the gate of coupled importance sampling keeps the z test's level at few trials", "[mc][importance]") {
  // Measured on the heaviest sampled skewness met (orthogonal d = 16, m = 16 at ‖z‖ = 1.41: gate skewness ≈ 5):
  // 400 replicates of 300 trials (the least the gate lets through at α = 0.05 for skewness ≈ 5 is ≈ 280), one point
  // at α = 0.05. The Edgeworth gate allows the heavier tail up to twice its share (stats/edgeworth.hpp), so the
  // two-sided rate is bounded by 1.5 α to first order; the test fails when the Clopper–Pearson interval at 1 − 2e-6
  // lies above that. Measured: 23 of 400 (5.75 %), 309 judged. And the same replicates against the closed form × 1.05:
  // power to see a 5 % error with 300 trials is low, so only "never holds" is asserted there.
  const Geometry g{1, 1, 0.0};
  const RowProposal q = optimal_row_proposal(Family::positive, g);
  const double theory = *exact_mse(Family::positive, Coupling::orthogonal, g, 16, 16);
  const int replicates = 400;
  const auto [violated, judged, wrong_held] = testing::simulate_gate_level(
      [&](std::uint64_t stream) {
        return importance_sampled_coupled_mse(Family::positive, Coupling::orthogonal, g, 16, 16, 300, kSeed, stream, 2,
                                              q);
      },
      theory, softmax_kernel(g), replicates);
  INFO("false violations " << violated << " of " << replicates << ", judged " << judged);
  REQUIRE(clopper_pearson(violated, replicates, 2e-6).lower <= 1.5 * 0.05);
  // docs/theory.md and docs/judging.md quote these counts (deterministic for the fixed seed).
  CHECK(violated == 23);
  CHECK(judged == 309);
  REQUIRE(judged >= replicates / 2);  // the gate does not simply refuse these trials
  REQUIRE(wrong_held == 0);           // a 2 % margin cannot be established with 300 trials at ≈ 4 % SE
}

TEST_CASE("the zero-variance proposal makes every weighted estimate of coupled rows SM", "[mc][importance]") {
  for (Family e : {Family::positive, Family::hyperbolic})
    for (const Case& k : kCases)
      for (const Geometry& g : kHeavy) {
        const CoupledImportanceSampledMse r = importance_sampled_coupled_mse(
            e, k.c, g, k.d, k.m, 64, kSeed, 7, 1, mean_tuned_row_proposal(e, g));
        const double sm = softmax_kernel(g);
        REQUIRE(r.estimate_mean / sm == Approx(1).margin(1e-12));
        REQUIRE(r.estimate_stderr / sm < 1e-13);
        REQUIRE(std::isinf(r.gate_skewness()));  // no MSE verdict from this proposal
      }
  // Power: the positive estimator under the hyperbolic estimator's proposal is not constant.
  const Geometry g = kHeavy[2];
  const CoupledImportanceSampledMse r = importance_sampled_coupled_mse(
      Family::positive, Coupling::orthogonal, g, 4, 4, 64, kSeed, 7, 1, mean_tuned_row_proposal(Family::hyperbolic, g));
  REQUIRE(r.estimate_stderr / softmax_kernel(g) > 1e-3);
}

TEST_CASE("coupled importance sampling is bit-identical for 1 and 2 threads", "[mc][importance]") {
  const Geometry g{1, 1, 0.5};
  const RowProposal q = optimal_row_proposal(Family::hyperbolic, g);
  for (Coupling c : {Coupling::orthogonal, Coupling::simplex}) {
    const auto a = importance_sampled_coupled_mse(Family::hyperbolic, c, g, 8, 8, 1000, kSeed, 3, 1, q);
    const auto b = importance_sampled_coupled_mse(Family::hyperbolic, c, g, 8, 8, 1000, kSeed, 3, 2, q);
    REQUIRE(a.mse == b.mse);
    REQUIRE(a.mse_stderr == b.mse_stderr);
    REQUIRE(a.estimate_mean == b.estimate_mean);
    REQUIRE(a.mse_sample_skewness == b.mse_sample_skewness);
    // A look: 512 trials continued to 1536 are one run of 1536, bit for bit (512 is a multiple of the trial block).
    const auto pilot = importance_sampled_coupled_mse(Family::hyperbolic, c, g, 8, 8, 512, kSeed, 3, 2, q);
    const auto look = importance_sampled_coupled_mse(Family::hyperbolic, c, g, 8, 8, 1536, kSeed, 3, 1, q, {}, &pilot);
    const auto whole = importance_sampled_coupled_mse(Family::hyperbolic, c, g, 8, 8, 1536, kSeed, 3, 2, q);
    REQUIRE(look.drawn == 1536);
    REQUIRE(look.mse == whole.mse);
    REQUIRE(look.mse_stderr == whole.mse_stderr);
    REQUIRE(look.estimate_mean == whole.estimate_mean);
    REQUIRE_THROWS_AS(importance_sampled_coupled_mse(Family::hyperbolic, c, g, 8, 8, 512, kSeed, 3, 1, q, {}, &pilot),
                      std::invalid_argument);
  }
}

TEST_CASE("coupled importance sampling refuses bad input", "[mc][importance]") {
  const Geometry g{1, 1, 0.0};
  const RowProposal q = optimal_row_proposal(Family::positive, g);
  const auto run = [&](Family e, Coupling c, int d, int m, std::int64_t trials, int threads) {
    return importance_sampled_coupled_mse(e, c, g, d, m, trials, kSeed, 0, threads, q);
  };
  REQUIRE_THROWS_AS(run(Family::trig, Coupling::orthogonal, 4, 4, 10, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, Coupling::hadamard, 4, 4, 10, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, Coupling::simplex, 1, 1, 10, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, Coupling::orthogonal, 4, 0, 10, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, Coupling::orthogonal, 4, 4, 1, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(run(Family::positive, Coupling::orthogonal, 4, 4, 10, 0), std::invalid_argument);
  REQUIRE_THROWS_AS(importance_sampled_coupled_mse(Family::positive, Coupling::orthogonal, g, 4, 4, 10, kSeed, 0, 1,
                                                   RowProposal{{0, 1e3 + 1, false}, 0}),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(CoupledBlockSampler(Coupling::orthogonal, 5, 4), std::invalid_argument);
  REQUIRE_THROWS_AS(CoupledBlockSampler(Coupling::iid, 2, 4), std::invalid_argument);
}

TEST_CASE("favorlab orthogonal, estimators and unbiased: the importance-sampled checks settle coupled rows",
          "[importance][cli]") {
  const auto dir = favorlab::testing::scratch_dir("coupled-importance");
  // ‖z‖ = 1.73 and 2 at d = m = 4: plain Monte Carlo of the positive MSE is out of reach there (skewness gate).
  const auto run = favorlab::testing::run_cli(
      "orthogonal --d 4 --m 4 --estimators positive --x-norm 1 --y-norm 1 --cos 0.5,1 --trials 2000 "
      "--importance-trials 60000 --quiet --out o.json",
      dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(favorlab::testing::read_text(dir / "o.json"));
  // Every importance-sampled equality holds; every plain equality of the positive MSEs stays open. (Simplex <=
  // orthogonal is judged on paired trials, tests/mc/test_paired_simplex_gap.cpp.)
  const auto statuses = [](const nlohmann::json& result, bool sampled) {
    std::vector<std::string> found;
    for (const auto& c : result["checks"]) {
      const std::string claim = c["claim"];
      if (claim.find("<=") != std::string::npos) continue;
      const bool is_sampled = claim.find("importance-sampled") != std::string::npos;
      const bool equality =
          claim.find("= Monte Carlo") != std::string::npos || claim.find("closed form") != std::string::npos;
      if (is_sampled == sampled && (sampled || equality)) found.push_back(c["status"]);
    }
    return found;
  };
  // iid, orthogonal, simplex; importance-sampled, then each combined with its plain check
  CHECK(statuses(doc, true) == std::vector<std::string>(6, "holds"));
  CHECK(statuses(doc, false) == std::vector<std::string>(3, "inconclusive"));
  for (const auto& r : doc["rows"]) CHECK(r.contains("is_mse"));
  CHECK(doc["params"]["importance_trials"] == 60000);

  const auto unbiased = favorlab::testing::run_cli(
      "unbiased --estimators positive,hyperbolic --couplings orthogonal --x-norm 1 --y-norm 1 --cos 0.5,1 "
      "--trials 2000 --importance-trials 20000 --quiet --out u.json",
      dir);
  REQUIRE(unbiased.status == 0);
  const auto u = nlohmann::json::parse(favorlab::testing::read_text(dir / "u.json"));
  // Per estimator the importance-sampled line at the plain line's open points and the two combined.
  CHECK(statuses(u, true) == std::vector<std::string>(4, "holds"));
  int identities = 0;
  for (const auto& c : u["checks"])
    if (c["claim"].get<std::string>().starts_with("Identity: ")) {
      ++identities;
      CHECK(c["kind"] == "identity");
      CHECK(c["status"] == "holds");
    }
  CHECK(identities == 2);

  for (const char* bad : {"orthogonal --importance-trials 1 --quiet --out bad.json",
                          "orthogonal --importance-trials -5 --quiet --out bad.json",
                          "estimators --importance-trials 1 --quiet --out bad.json"}) {
    INFO(bad);
    const auto r = favorlab::testing::run_cli(bad, dir);
    CHECK(r.status == 2);
    CHECK_FALSE(std::filesystem::exists(dir / "bad.json"));
  }
  std::filesystem::remove_all(dir);
}
