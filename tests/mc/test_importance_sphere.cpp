// Importance sampling for rows of norm √d (mc/importance_sphere.hpp, and smreg in mc/importance_coupled.hpp).
// Covered:
//   1. the tilted law: Wood's sampler has the von Mises–Fisher mean d/dκ log M_d(κ), and the weight 1/r averages to 1
//      under it (the sampler and its closed-form density agree);
//   2. the quadrature moments: the weighted squared error's mean is e^{L(2a) − 2L(a)} − 1 for every κ, the weighted
//      estimate's is 1 and constant at κ = a; the chosen κ minimises the relative third moment;
//   3. unbiasedness at heavy points (a = √d‖z‖ up to 12), where the plain squared error is far too skewed: the
//      importance-sampled MSE agrees with the exact iid and orthogonal MSEs of smreg, every point reliable;
//   4. power: the closed form × 1.05 is violated at those points;
//   5. the gate's level, simulated at few trials on the heaviest point met;
//   6. 1 and 2 threads bit-identical; bad input → std::invalid_argument;
//   7. Lemma 1's tilt (κ = a, no plain share): every weighted estimate is SMREG to rounding, the weight normalised by
//      the moment series rather than the Bessel form the smreg experiment judges; a 1e-9 wrong theory is refuted;
//   8. the CLI: orthogonal's importance-sampled smreg checks hold where its plain ones cannot settle.
// Statistical checks use a false-failure rate kAlpha split over their points (Bonferroni); seeds are fixed.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "cli_runner.hpp"
#include "features/family_theory.hpp"
#include "gate_level.hpp"
#include "kernels/smreg.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/importance_sphere.hpp"
#include "rng/philox_stream.hpp"
#include "stats/claim_check.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/running_moments.hpp"

using namespace favorlab;
using favorlab::testing::mse_evidence;

namespace {

// smreg's closed forms (features/family_theory.hpp): the sphere MGF for iid rows, Theorem 2's proof for orthogonal.
double exact(Coupling c, const Geometry& g, int d, int m) {
  return c == Coupling::iid ? iid_mse(Family::smreg, g, d, m) : orthogonal_mse(Family::smreg, g, d, m);
}

constexpr double kAlpha = 1e-3;
constexpr std::uint64_t kSeed = 20261204;

// ‖z‖ = 1.41, 2 and 3: a = √d‖z‖ = 5.7, 8, 12 at d = 16.
const std::vector<Geometry> kHeavy{{1, 1, 0.0}, {1, 1, 1.0}, {1.5, 1.5, 1.0}};

struct Case {
  Coupling c;
  int d, m;
};
// One block, a partial block, two blocks (4 + 2 rows), iid rows.
const std::vector<Case> kCases{{Coupling::orthogonal, 16, 16},
                               {Coupling::orthogonal, 16, 5},
                               {Coupling::orthogonal, 4, 6},
                               {Coupling::iid, 8, 8}};

// d/dκ log M_d(κ), the mean of t under the tilt, by a central difference (error ≈ 1e-9).
double tilt_mean(int d, double kappa) {
  if (kappa == 0) return 0;
  const double h = 1e-4 * std::max(1.0, kappa);
  return (log_sphere_mgf(d, kappa + h) - log_sphere_mgf(d, kappa - h)) / (2 * h);
}

}  // namespace

TEST_CASE("the tilted sphere law has the von Mises-Fisher mean and its density ratio integrates to 1",
          "[mc][importance][sphere]") {
  constexpr int kDraws = 20000;
  const std::vector<int> dims{2, 4, 16, 64};
  const std::vector<SphereTilt> tilts{{0, 0}, {3, 0}, {25, 0}, {25, 0.2}};
  const double z = two_sided_critical_z(kAlpha / (2.0 * dims.size() * tilts.size()));
  std::uint64_t counter = 0;
  for (int d : dims)
    for (const SphereTilt& q : tilts) {
      PhiloxStream rng(kSeed, 5, counter++);
      RunningMoments t_moments, inverse_ratio;
      for (int i = 0; i < kDraws; ++i) {
        const double t = draw_sphere_tilt(d, q, rng);
        REQUIRE(t >= -1);
        REQUIRE(t <= 1);
        t_moments.add(t);
        inverse_ratio.add(std::exp(-sphere_tilt_log_ratio(d, q, t)));
      }
      // The mixture's mean: (1 − β) times the tilted component's (the plain one's is 0).
      const double mean = (1 - q.plain_share) * tilt_mean(d, q.kappa);
      INFO("d=" << d << " kappa=" << q.kappa << " beta=" << q.plain_share << " mean t " << t_moments.mean() << " vs "
                << mean);
      REQUIRE(std::abs(t_moments.mean() - mean) < z * t_moments.standard_error());
      // E_q[p/q] = 1; at κ = 0 the ratio is 1 exactly. Under a pure tilt of 25, p/q = M_d(25) e^{−25t} is huge on
      // rare draws: far too heavy a tail for a z test, so only the bounded cases (p/q ≤ 1/β, or κ ≤ 3) are judged.
      const bool bounded = q.plain_share > 0 || q.kappa <= 3;
      if (q.kappa == 0) REQUIRE(inverse_ratio.standard_error() == 0);
      else if (bounded) REQUIRE(std::abs(inverse_ratio.mean() - 1) < z * inverse_ratio.standard_error());
    }
  // Power: a tilt of 3 drawn is not a tilt of 3.3 (the mean moves by ≫ its SE at d = 16).
  PhiloxStream rng(kSeed, 6, 0);
  RunningMoments t_moments;
  for (int i = 0; i < kDraws; ++i) t_moments.add(draw_sphere_tilt(16, {3, 0}, rng));
  REQUIRE(std::abs(t_moments.mean() - tilt_mean(16, 3.3)) > z * t_moments.standard_error());
}

TEST_CASE("the sphere tilt's quadrature moments have the exact means, and the chosen tilt is the criterion's minimum",
          "[mc][importance][sphere]") {
  for (int d : {4, 16, 64})
    for (const Geometry& g : kHeavy) {
      const double a = std::sqrt(d * g.z_sq());
      const double mse1 = std::expm1(log_sphere_mgf(d, 2 * a) - 2 * log_sphere_mgf(d, a));
      for (const SphereTilt& q : {SphereTilt{0, 0}, SphereTilt{a, 0}, SphereTilt{2 * a, 0}, SphereTilt{2 * a, 0.1}}) {
        INFO("d=" << d << " a=" << a << " kappa=" << q.kappa << " beta=" << q.plain_share);
        REQUIRE(sphere_squared_error_moments(g, d, q).mean == Approx(mse1).epsilon(1e-9));
        REQUIRE(sphere_estimate_moments(g, d, q).mean == Approx(1).epsilon(1e-9));
      }
      // At κ = a, β = 0 the weighted estimate is 1 at every t (Lemma 1's zero-variance tilt); not with a plain share.
      REQUIRE(sphere_estimate_moments(g, d, {a, 0}).degenerate);
      REQUIRE_FALSE(sphere_estimate_moments(g, d, {a, 0.1}).degenerate);
      REQUIRE_FALSE(sphere_estimate_moments(g, d, {0, 0}).degenerate);
      // One row's exact MSE against the smreg closed form (m = 1: iid and orthogonal coincide).
      const double k = smreg_exact(g, d);
      REQUIRE(mse1 * k * k == Approx(exact(Coupling::iid, g, d, 1)).epsilon(1e-8));
      const SphereTilt best = optimal_sphere_tilt(g, d);
      const auto criterion = [&](const SphereTilt& q) {
        const WeightedMoments m = sphere_squared_error_moments(g, d, q);
        return m.third / std::pow(m.mean, 3);
      };
      const double kb = best.kappa, b = best.plain_share;
      for (const SphereTilt& other :
           {SphereTilt{0, 0}, SphereTilt{0.8 * kb, b}, SphereTilt{1.2 * kb, b}, SphereTilt{kb, b == 0.5 ? 0.3 : 0.5}})
        REQUIRE(criterion(best) <= criterion(other));
      // The proposal tames the tail: relative variance and |skewness| of the weighted squared error fall far below
      // the plain law's.
      const WeightedMoments tilted = sphere_squared_error_moments(g, d, best),
                            plain = sphere_squared_error_moments(g, d, {});
      INFO("d=" << d << " a=" << a << " relative variance " << tilted.relative_variance << " (plain "
                << plain.relative_variance << "), skewness " << tilted.skewness << " (plain " << plain.skewness << ")");
      REQUIRE(tilted.relative_variance < 0.1 * plain.relative_variance);
      REQUIRE(std::abs(tilted.skewness) < 0.5 * plain.skewness);
    }
  REQUIRE(optimal_sphere_tilt({0, 0, 0}, 8).kappa == 0);
  // docs/theory.md#importance-sampling-for-rows-of-norm-d quotes these (d = 64, ‖z‖ = 3, a = 24): the relative
  // variance and skewness of Y at the best pure tilt (κ = 25.8), with a plain share of 2 % and of 20 % at κ = 2a,
  // and the proposal chosen.
  const Geometry g{1.5, 1.5, 1.0};
  const WeightedMoments pure = sphere_squared_error_moments(g, 64, {25.8, 0}),
                        small = sphere_squared_error_moments(g, 64, {48, 0.02}),
                        mixed = sphere_squared_error_moments(g, 64, {48, 0.2});
  CHECK(pure.relative_variance == Approx(22.5).epsilon(0.01));
  CHECK(pure.skewness == Approx(47.7).epsilon(0.01));
  CHECK(small.relative_variance == Approx(0.0179).epsilon(0.01));
  CHECK(small.skewness == Approx(-6.72).epsilon(0.01));
  CHECK(mixed.relative_variance == Approx(0.244).epsilon(0.01));
  CHECK(mixed.skewness == Approx(-1.50).epsilon(0.01));
  const SphereTilt chosen = optimal_sphere_tilt(g, 64);
  CHECK(chosen.plain_share == 0.2);
  CHECK(chosen.kappa == Approx(48).epsilon(0.02));
}

TEST_CASE("the plain share's floor: with 16 coupled rows a share of 5 % leaves a skewed weighted error, 20 % does not",
          "[mc][importance][sphere]") {
  // The measurement behind optimal_sphere_tilt's floor β >= 0.2 (docs/theory.md#importance-sampling-for-rows-of-norm-d
  // quotes both figures): orthogonal d = m = 16, ‖z‖ = 3 (a = 12), κ = 2a, 20 000 trials from seed 1, stream 7. One
  // row's a-priori skewness favours small shares; the sampled skewness of 16 coupled rows does not.
  const Geometry g = kHeavy.back();
  const auto sampled_skewness = [&](double share) {
    RowProposal q = optimal_sphere_row_proposal(g, 16);
    q.sphere_tilt = {24, share};
    return importance_sampled_coupled_mse(Family::smreg, Coupling::orthogonal, g, 16, 16, 20000, 1, 7, 2, q)
        .mse_sample_skewness;
  };
  const double low = sampled_skewness(0.05), floor = sampled_skewness(0.2);
  INFO("sampled skewness at share 0.05: " << low << ", at 0.2: " << floor);
  CHECK(low == Approx(4.09).margin(0.005));
  CHECK(floor == Approx(-0.95).margin(0.005));
  REQUIRE(std::abs(low) > 2 * std::abs(floor));
}

TEST_CASE("importance-sampled smreg MSEs agree with the exact iid and orthogonal MSEs at heavy points, and have power",
          "[mc][importance][sphere]") {
  constexpr std::int64_t kTrials = 20000;
  const std::size_t points = kHeavy.size() * kCases.size();
  ClaimCheck check("smreg IS", "heavy", kAlpha, points);
  ClaimCheck wrong("smreg IS, theory x 1.05", "heavy", kAlpha, points);
  std::uint64_t stream = 100;
  double worst_relative_se = 0;
  for (const Case& c : kCases)
    for (const Geometry& g : kHeavy) {
      const RowProposal q = optimal_sphere_row_proposal(g, c.d);
      const CoupledImportanceSampledMse r =
          importance_sampled_coupled_mse(Family::smreg, c.c, g, c.d, c.m, kTrials, kSeed, stream++, 2, q);
      const double theory = exact(c.c, g, c.d, c.m), k = smreg_exact(g, c.d);
      const PointVerdict v = check.judge(mse_evidence(r, theory, k));
      const PointVerdict p = wrong.judge(mse_evidence(r, 1.05 * theory, k));
      INFO(coupling_name(c.c) << " d=" << c.d << " m=" << c.m << " |z|=" << std::sqrt(g.z_sq()) << ": mse/theory "
                              << r.mse / theory << " rel SE " << r.mse_stderr / theory << " gate skewness "
                              << r.gate_skewness() << " kappa " << q.sphere_tilt.kappa);
      REQUIRE(v.reliable);
      REQUIRE(v.status != Verdict::violated);
      REQUIRE(p.status == Verdict::violated);
      worst_relative_se = std::max(worst_relative_se, r.mse_stderr / theory);
      REQUIRE(std::abs(r.estimate_mean - k) < two_sided_critical_z(kAlpha / points) * r.estimate_stderr);  // E[w g]
    }
  REQUIRE(check.result().status != Verdict::violated);
  // docs/theory.md#importance-sampling-for-rows-of-norm-d quotes it (measured 1.12 %).
  CHECK(worst_relative_se < 0.012);
}

TEST_CASE("the gate of smreg importance sampling keeps the z test's level at few trials", "[mc][importance][sphere]") {
  // The heaviest point of the tests above (orthogonal d = 16, m = 16, ‖z‖ = 3), 400 replicates of 300 trials at
  // α = 0.05, one point. As for chi-norm rows (test_importance_coupled.cpp) the two-sided rate is bounded by 1.5 α to
  // first order; the test fails when the Clopper–Pearson interval at 1 − 2e-6 lies above that.
  const Geometry g = kHeavy.back();
  const RowProposal q = optimal_sphere_row_proposal(g, 16);
  const double theory = exact(Coupling::orthogonal, g, 16, 16), k = smreg_exact(g, 16);
  const int replicates = 400;
  const auto [violated, judged, wrong_held] = testing::simulate_gate_level(
      [&](std::uint64_t stream) {
        return importance_sampled_coupled_mse(Family::smreg, Coupling::orthogonal, g, 16, 16, 300, kSeed, stream, 2, q);
      },
      theory, k, replicates);
  INFO("false violations " << violated << " of " << replicates << ", judged " << judged);
  REQUIRE(clopper_pearson(violated, replicates, 2e-6).lower <= 1.5 * 0.05);
  // docs/theory.md quotes these counts (deterministic for the fixed seed).
  CHECK(violated == 19);
  CHECK(judged == 400);
  REQUIRE(judged >= replicates / 2);  // the gate does not simply refuse these trials
  REQUIRE(wrong_held == 0);           // a 2 % margin cannot be established with 300 trials
}

TEST_CASE("smreg importance sampling is bit-identical for 1 and 2 threads, and refuses bad input",
          "[mc][importance][sphere]") {
  const Geometry g{1, 1, 0.5};
  const RowProposal q = optimal_sphere_row_proposal(g, 8);
  for (Coupling c : {Coupling::iid, Coupling::orthogonal}) {
    const auto a = importance_sampled_coupled_mse(Family::smreg, c, g, 8, 8, 1000, kSeed, 3, 1, q);
    const auto b = importance_sampled_coupled_mse(Family::smreg, c, g, 8, 8, 1000, kSeed, 3, 2, q);
    REQUIRE(a.mse == b.mse);
    REQUIRE(a.mse_stderr == b.mse_stderr);
    REQUIRE(a.estimate_mean == b.estimate_mean);
  }
  const RowProposal chi = optimal_row_proposal(Family::positive, g);
  REQUIRE_THROWS_AS(importance_sampled_coupled_mse(Family::smreg, Coupling::simplex, g, 8, 8, 10, kSeed, 0, 1, q),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(importance_sampled_coupled_mse(Family::smreg, Coupling::orthogonal, g, 8, 8, 10, kSeed, 0, 1, chi),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(importance_sampled_coupled_mse(Family::positive, Coupling::orthogonal, g, 8, 8, 10, kSeed, 0, 1, q),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(importance_sampled_coupled_mse(Family::smreg, Coupling::orthogonal, g, 1, 1, 10, kSeed, 0, 1, q),
                    std::invalid_argument);
  PhiloxStream rng(kSeed, 0, 0);
  REQUIRE_THROWS_AS(draw_sphere_tilt(8, {-1, 0}, rng), std::invalid_argument);
  REQUIRE_THROWS_AS(draw_sphere_tilt(8, {1, 1}, rng), std::invalid_argument);
  REQUIRE_THROWS_AS(draw_sphere_tilt(1, {1, 0}, rng), std::invalid_argument);
  REQUIRE_THROWS_AS(sphere_tilt_log_ratio(8, {1, 0}, 1.5), std::invalid_argument);
  REQUIRE_THROWS_AS(mean_tuned_sphere_tilt(g, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(mean_tuned_sphere_tilt({-1, 1, 0.5}, 8), std::invalid_argument);
}

TEST_CASE("Lemma 1's tilt for rows of norm sqrt(d): every weighted estimate is SMREG, normalised by the moment series",
          "[mc][importance][sphere]") {
  for (int d : {4, 64})
    for (const Geometry& g : {Geometry{1, 1, 1.0}, Geometry{5, 5, 1.0}}) {  // a = √d‖z‖ up to 80
      const SphereTilt q = mean_tuned_sphere_tilt(g, d);
      const double a = std::sqrt(d * g.z_sq());
      REQUIRE(q.kappa == a);
      REQUIRE(q.plain_share == 0);
      // The weight's normaliser is the series, bit for bit: nothing of the Bessel form the check judges enters it.
      for (double t : {-0.5, 0.25, 1.0}) REQUIRE(sphere_tilt_log_ratio(d, q, t) == a * t - log_sphere_mgf_series(d, a));
      const double smreg = smreg_exact(g, d);
      for (Coupling c : {Coupling::iid, Coupling::orthogonal}) {
        const auto r = importance_sampled_coupled_mse(Family::smreg, c, g, d, 16, 256, kSeed, 11, 2,
                                                      mean_tuned_sphere_row_proposal(g, d));
        INFO("d=" << d << " |z|=" << std::sqrt(g.z_sq()) << " " << coupling_name(c) << ": mean/SMREG - 1 = "
                  << r.estimate_mean / smreg - 1 << ", SE/SMREG " << r.estimate_stderr / smreg);
        REQUIRE(r.nonfinite == 0);
        // Series against Bessel form: their rounding, 1e-12 relative at these a (kernels test), bounds the gap.
        REQUIRE(std::abs(r.estimate_mean / smreg - 1) < 1e-12);
        REQUIRE(r.estimate_stderr < 1e-13 * smreg);
        // Power: a theory one part in 1e9 off is refuted; so is the plain tilt's near miss κ = 1.1a, which samples.
        ClaimCheck wrong("SMREG x (1 + 1e-9)", "one point", kAlpha, 1);
        REQUIRE(wrong.judge({r.estimate_mean, smreg * (1 + 1e-9), r.estimate_stderr, 1e-12 * smreg, 0.0, r.trials, 0,
                             "p"}).status == Verdict::violated);
      }
      RowProposal off = mean_tuned_sphere_row_proposal(g, d);
      off.sphere_tilt.kappa *= 1.1;
      const auto r = importance_sampled_coupled_mse(Family::smreg, Coupling::iid, g, d, 16, 256, kSeed, 12, 2, off);
      REQUIRE(r.estimate_stderr > 1e-6 * smreg);  // zero variance only at κ = a
    }
}

TEST_CASE("favorlab orthogonal: the importance-sampled smreg checks settle what plain Monte Carlo cannot",
          "[importance][sphere][cli]") {
  const auto dir = favorlab::testing::scratch_dir("sphere-importance");
  // ‖z‖ = 2 and 3 at d = 16 (a = 8 and 12), m = 4 and 16: plain Monte Carlo of smreg's MSE is out of reach there.
  const auto run = favorlab::testing::run_cli(
      "orthogonal --d 16 --m 4,16 --estimators smreg --x-norm 1,1.5 --y-norm 1 --cos 1 --trials 2000 "
      "--importance-trials 40000 --quiet --out o.json",
      dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(favorlab::testing::read_text(dir / "o.json"));
  for (const auto& c : doc["checks"]) {
    const std::string claim = c["claim"];
    INFO(claim << ": " << c["detail"]);
    // "..., importance-sampled" and "..., plain or importance-sampled" (the two combined point by point)
    if (claim.find("importance-sampled") != std::string::npos) CHECK(c["status"] == "holds");
    else if (claim.find("= Monte Carlo") != std::string::npos) CHECK(c["status"] == "inconclusive");
  }
  for (const auto& r : doc["rows"]) {
    CHECK(r["is_status"] == "holds");
    CHECK(r.contains("is_sphere_kappa"));
    CHECK_FALSE(r.contains("is_proposal_mean"));
  }
  std::filesystem::remove_all(dir);
}
