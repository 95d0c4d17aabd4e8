// The exact MSE of orthogonal random features (kernels/orthogonal_mse.hpp) and Theorem 2.
// Unit tests compare independent computations: the double series, ₁F₁, a 1-D quadrature over the chi_{2d} norm of
// ω_1 + ω_2, the sphere MGF, and the 50-digit feature moments of kernels/error_moments. Statistical tests state their
// family-wise α (Bonferroni over their points), require every point to be conclusive (a-priori skewness), and have a
// power case that must fail.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>

#include "cli_runner.hpp"
#include "features/projection.hpp"
#include "features/family_theory.hpp"
#include "kernels/lemma2.hpp"
#include "kernels/orthogonal_mse.hpp"
#include "kernels/smreg.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/claim_check.hpp"
#include "stats/running_moments.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-6;

// S(z) = E_R[M_d(R‖z‖)] with R = ‖ω_1 + ω_2‖ ~ chi_{2d}, independent of the (uniform) direction of ω_1 + ω_2.
double log_pair_moment_by_quadrature(double z_norm, int d) {
  const double k = 2.0 * d;
  auto integrand = [&](double r) {
    if (r <= 0) return 0.0;
    const double log_density = (k - 1) * std::log(r) - r * r / 2 - (k / 2 - 1) * std::log(2.0) - std::lgamma(k / 2);
    return std::exp(log_density + log_sphere_mgf(d, r * z_norm));
  };
  const double upper = std::sqrt(k) + z_norm + 40;  // the integrand is negligible beyond (Gaussian tail around ‖z‖)
  return std::log(boost::math::quadrature::gauss_kronrod<double, 61>::integrate(integrand, 0.0, upper, 15, 1e-13));
}

}  // namespace

TEST_CASE("orthogonal pair moment S(z): double series, 1F1 and quadrature agree", "[kernels][orthogonal]") {
  for (int d : {1, 2, 3, 4, 16, 64, 256}) {
    for (double z : {1e-3, 0.1, 0.7, 1.5, 3.0, 8.0}) {
      INFO("d=" << d << " |z|=" << z);
      const double series = log_orthogonal_pair_moment_series(z, d);
      const double hyper = log_orthogonal_pair_moment_1f1(z, d);
      CHECK(series == Approx(hyper).epsilon(1e-11).margin(1e-14));
      if (d <= 64) CHECK(series == Approx(log_pair_moment_by_quadrature(z, d)).epsilon(1e-9).margin(1e-12));
      // Orthogonality lowers the pair moment below the iid one, exp(‖z‖²), for every z ≠ 0.
      CHECK(series < z * z);
    }
  }
}

TEST_CASE("regularized pair moment: double series and sphere MGF at sqrt(2d)|z| agree", "[kernels][orthogonal]") {
  for (int d : {1, 2, 3, 4, 16, 64, 256})
    for (double z : {1e-3, 0.1, 0.7, 1.5, 3.0, 8.0}) {
      INFO("d=" << d << " |z|=" << z);
      CHECK(log_regularized_pair_moment_series(z, d) ==
            Approx(log_regularized_pair_moment_exact(z, d)).epsilon(1e-11).margin(1e-14));
      // Below the iid pair moment M_d(√d‖z‖)² (d ≥ 2; in d = 1 two orthogonal rows do not exist).
      if (d >= 2) CHECK(log_regularized_pair_moment_exact(z, d) < 2 * log_sphere_mgf(d, std::sqrt(1.0 * d) * z));
    }
}

TEST_CASE("S(z) -> 1 as z -> 0, with log S = |z|^2 + O(|z|^4)", "[kernels][orthogonal]") {
  for (int d : {2, 16}) {
    CHECK(log_orthogonal_pair_moment_series(0, d) == 0);
    CHECK(log_orthogonal_pair_moment_1f1(0, d) == 0);
    CHECK(log_regularized_pair_moment_exact(0, d) == 0);
    for (double z : {1e-2, 1e-4}) {
      CHECK(log_orthogonal_pair_moment_series(z, d) / (z * z) == Approx(1).epsilon(2 * z * z));
      CHECK(log_regularized_pair_moment_series(z, d) / (z * z) == Approx(1).epsilon(2 * z * z));
    }
  }
}

TEST_CASE("exact orthogonal MSE: m = 1 is iid, iid values match independent derivations", "[kernels][orthogonal]") {
  for (int d : {2, 8, 32})
    for (double xn : {0.2, 0.9})
      for (double c : {-1.0, -0.6, 0.0, 0.8}) {
        const Geometry g{xn, 0.7, c};
        INFO("d=" << d << " x_norm=" << xn << " cos=" << c);
        for (Family e : {Family::positive, Family::smreg}) {
          CHECK(orthogonal_mse(e, g, d, 1) == iid_mse(e, g, d, 1));
          // 50-digit moments of one feature (kernels/error_moments) against the closed forms.
          CHECK(iid_mse(e, g, d, 4) == Approx(error_moments(e, g, d, 4).variance).epsilon(1e-10));
          for (int m : {2, d}) CHECK(orthogonal_mse(e, g, d, m) < iid_mse(e, g, d, m));
        }
        CHECK(iid_mse(Family::positive, g, d, 3) == mse_positive(g, 3));
      }
}

TEST_CASE("same-block pair fraction: 1 - 1/m up to d, blocks beyond", "[kernels][orthogonal]") {
  for (int m = 1; m <= 8; ++m) CHECK(same_block_pair_fraction(m, 8) == Approx(1 - 1.0 / m).epsilon(1e-15));
  CHECK(same_block_pair_fraction(16, 8) == Approx(2 * 8 * 7 / 256.0));
  CHECK(same_block_pair_fraction(9, 8) == Approx(8 * 7 / 81.0));
  // Full blocks of d: the ORF MSE of m = k·d rows is the m = d one divided by k (independent blocks average).
  const Geometry g{0.6, 0.4, 0.3};
  CHECK(orthogonal_mse(Family::positive, g, 4, 12) == Approx(orthogonal_mse(Family::positive, g, 4, 4) / 3));
  CHECK(orthogonal_mse(Family::smreg, g, 4, 8) == Approx(orthogonal_mse(Family::smreg, g, 4, 4) / 2));
}

TEST_CASE("Theorem 2: the claimed bound fails near z = 0, the corrected (K - Lambda)^2 bound holds",
          "[kernels][orthogonal]") {
  for (Family e : {Family::positive, Family::smreg})
    for (int d : {4, 16, 64}) {
      // ‖z‖ → 0 (y ≈ −x): both MSEs vanish but the claimed reduction (1 − 1/m)·2/(d+2)·K² does not.
      const Geometry near_zero{1.0, 1.0, -0.995};
      CHECK(orthogonal_mse(e, near_zero, d, d) > theorem2_claimed_bound(e, near_zero, d, d));
      CHECK(theorem2_claimed_bound(e, near_zero, d, d) < 0);
      // Large ‖z‖: the pair moment is a vanishing fraction of F², and the claimed bound holds.
      const Geometry large{1.5, 1.5, 0.9};
      CHECK(orthogonal_mse(e, large, d, d) <= theorem2_claimed_bound(e, large, d, d));
      for (double c : {-1.0, -0.995, -0.9, -0.5, 0.0, 0.5, 1.0})
        for (int m : {1, 2, d / 2, d}) {
          const Geometry g{1.0, 0.8, c};
          INFO(estimator_name(e) << " d=" << d << " m=" << m << " cos=" << c);
          const double ort = orthogonal_mse(e, g, d, m), bound = theorem2_corrected_bound(e, g, d, m);
          CHECK(ort <= bound * (1 + 1e-12));
        }
    }
  // The corrected bound is tight to leading order as ‖z‖ → 0: the t = u = 2 term has τ = d/(d+2) exactly.
  const Geometry tiny{0.5, 0.5 - 1e-3, -1.0};
  const double iid = iid_mse(Family::positive, tiny, 8, 8);
  const double reduction = iid - orthogonal_mse(Family::positive, tiny, 8, 8);
  CHECK(reduction == Approx(iid - theorem2_corrected_bound(Family::positive, tiny, 8, 8)).epsilon(1e-4));
}

TEST_CASE("Monte Carlo of the pair moments of two orthogonal rows", "[statistical][orthogonal]") {
  // Y = exp((ω_1 + ω_2)ᵀz), z = ‖z‖ e_1, from the library's orthogonal_projection. E[Y^k] = S(k z) exactly, so the
  // skewness of Y is known before sampling and decides whether the z test is trustworthy. α = 1e-6 over 8 points.
  struct Acc {
    std::vector<RunningMoments> chi, reg;
    void merge(const Acc& o) {
      for (std::size_t i = 0; i < chi.size(); ++i) {
        chi[i].merge(o.chi[i]);
        reg[i].merge(o.reg[i]);
      }
    }
  };
  // d = 2 carries the power case: there orthogonality lowers the pair moment the most (τ(2, 2) = d/(d+2) = 1/2).
  const std::vector<std::pair<int, double>> points{{2, 0.6}, {4, 0.3}, {4, 0.6}, {16, 0.5}};
  constexpr std::int64_t kTrials = 200000;
  Acc zero{std::vector<RunningMoments>(points.size()), std::vector<RunningMoments>(points.size())};
  const Acc acc = run_parallel_trials(kTrials, 2, zero, [&](std::int64_t t, Acc& a) {
    for (std::size_t p = 0; p < points.size(); ++p) {
      const auto [d, z] = points[p];
      PhiloxStream rng(17, p, static_cast<std::uint64_t>(t));
      Eigen::MatrixXd w = orthogonal_projection(2, d, rng);
      a.chi[p].add(std::exp(z * (w(0, 0) + w(1, 0))));
      rescale_rows_to_sqrt_d(w);
      a.reg[p].add(std::exp(z * (w(0, 0) + w(1, 0))));
    }
  });
  for (double shift : {0.0, 1.0}) {  // shift 1: claim S(z) = exp(‖z‖²), the iid pair moment — must be caught
    ClaimCheck check("pair moment", "test", kAlpha, 2 * points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
      const auto [d, z] = points[p];
      for (bool regularized : {false, true}) {
        auto log_s = [&](double zz) {
          return regularized ? log_regularized_pair_moment_exact(zz, d) : log_orthogonal_pair_moment_1f1(zz, d);
        };
        const double m1 = std::exp(log_s(z)), m2 = std::exp(log_s(2 * z)), m3 = std::exp(log_s(3 * z));
        const double var = m2 - m1 * m1, skew = (m3 - 3 * m1 * var - m1 * m1 * m1) / std::pow(var, 1.5);
        const double iid_pair = regularized ? std::exp(2 * log_sphere_mgf(d, std::sqrt(1.0 * d) * z)) : std::exp(z * z);
        const double theory = shift == 0 ? m1 : iid_pair;
        const RunningMoments& r = regularized ? acc.reg[p] : acc.chi[p];
        const PointVerdict v = check.judge({r.mean(), theory, r.standard_error(), 0, skew, r.count(), 0, "p"});
        INFO("d=" << d << " |z|=" << z << " regularized=" << regularized << " z=" << v.z << " needs "
                  << v.trials_needed);
        REQUIRE(v.reliable);
      }
    }
    CHECK((((shift == 0)) ? (check.result().status) != Verdict::violated : (check.result().status) == Verdict::violated));
  }
}

TEST_CASE("Monte Carlo MSE of orthogonal features matches the exact value", "[statistical][orthogonal]") {
  // α = 1e-6 over the points of each check. The skewness of the squared error is the iid one (a proxy: orthogonality
  // couples the features but keeps each feature's tail); the points are chosen where it is far from limiting.
  constexpr int kD = 4;
  const std::vector<Geometry> points{{0.5, 0.3, -0.6}, {0.3, 0.3, 0.1}, {0.45, 0.3, -0.2}};
  const std::vector<EstimatorSpec> specs{
      {Family::positive, 2}, {Family::positive, 4}, {Family::smreg, 2}, {Family::smreg, 4}};
  const SweepResult r = run_estimator_sweep({kD, Coupling::orthogonal, specs, points, 2024, 0, 400000, 2, {}});
  for (bool wrong : {false, true}) {  // wrong: the iid MSE as the theory for orthogonal features — must be caught
    ClaimCheck check("orthogonal mse", "test", kAlpha, specs.size() * points.size());
    for (std::size_t s = 0; s < specs.size(); ++s)
      for (std::size_t p = 0; p < points.size(); ++p) {
        const auto [e, m] = specs[s];
        const auto& cell = r.cell(s, p);
        const double theory = wrong ? iid_mse(e, points[p], kD, m) : orthogonal_mse(e, points[p], kD, m);
        const PointVerdict v = check.judge({cell.error.mean_square(), theory, cell.error.mean_square_stderr(), 0,
                                            error_moments(e, points[p], kD, m).squared_error_skewness,
                                            cell.error.count(), cell.nonfinite, "p"});
        INFO(estimator_name(e) << " m=" << m << " point " << p << " z=" << v.z << " needs " << v.trials_needed);
        REQUIRE(v.reliable);
      }
    CHECK((((wrong)) ? (check.result().status) == Verdict::violated : (check.result().status) != Verdict::violated));
  }
}

TEST_CASE("orthogonal MSE functions reject bad input", "[kernels][orthogonal]") {
  const Geometry g{0.5, 0.5, 0.0};
  CHECK_THROWS_AS(log_orthogonal_pair_moment_series(1.0, 0), std::invalid_argument);
  CHECK_THROWS_AS(log_orthogonal_pair_moment_1f1(-1.0, 4), std::invalid_argument);
  CHECK_THROWS_AS(log_regularized_pair_moment_series(NAN, 4), std::invalid_argument);
  CHECK_THROWS_AS(log_regularized_pair_moment_exact(INFINITY, 4), std::invalid_argument);
  CHECK_THROWS_AS(same_block_pair_fraction(0, 4), std::invalid_argument);
  CHECK_THROWS_AS(same_block_pair_fraction(2, 0), std::invalid_argument);
  CHECK_THROWS_AS(orthogonal_mse(Family::trig, g, 4, 2), std::invalid_argument);
  CHECK_THROWS_AS(iid_mse(Family::hyperbolic, g, 4, 2), std::invalid_argument);
  CHECK_THROWS_AS(orthogonal_mse(Family::positive, g, 4, -1), std::invalid_argument);
  CHECK_THROWS_AS(orthogonal_mse(Family::positive, Geometry{0.5, 0.5, 2.0}, 4, 2), std::invalid_argument);
  CHECK_THROWS_AS(theorem2_claimed_bound(Family::positive, g, 4, 5), std::invalid_argument);
  CHECK_THROWS_AS(theorem2_corrected_bound(Family::smreg, g, 4, 8), std::invalid_argument);
}

TEST_CASE("favorlab orthogonal: result rows and checks, bad options exit 2 without a file", "[cli][orthogonal]") {
  using namespace favorlab::testing;
  const auto dir = scratch_dir("orthogonal");
  const auto ok = run_cli(
      "orthogonal --d 4,8 --m 1,4,8 --cos -0.9,0.5 --trials 300 --importance-trials 300 --quiet --out orthogonal.json",
      dir);
  REQUIRE(ok.status == 0);
  const auto json = nlohmann::json::parse(read_text(dir / "orthogonal.json"));
  // d=4 uses m 1,4 and d=8 uses m 1,4,8; 2 estimators × 2 couplings × 2 points, plus positive with simplex rows;
  // 5 checks per d × estimator, 3 simplex checks per d, 4 importance-sampled ones of positive per d (iid,
  // orthogonal, simplex, simplex <= orthogonal) and 2 of smreg (iid, orthogonal), each also combined with its plain
  // check point by point ("..., plain or importance-sampled").
  CHECK(json["rows"].size() == (2 + 3) * 2 * 2 * 2 + (2 + 3) * 2);
  CHECK(json["checks"].size() == 2 * 2 * 5 + 2 * 3 + 2 * 2 * (4 + 2));
  std::size_t combined = 0;
  for (const auto& c : json["checks"])
    combined += c["claim"].get<std::string>().ends_with(", plain or importance-sampled");
  CHECK(combined == 2 * (4 + 2));
  for (const auto& row : json["rows"])
    if (row["estimator"] == "smreg") {
      CHECK(row.contains("is_status"));
      CHECK(row["is_sphere_plain_share"].get<double>() >= 0.2);
    }
  CHECK(json["params"]["importance_trials"] == 300);
  std::size_t simplex_rows = 0;
  for (const auto& row : json["rows"]) {
    if (row["coupling"] == "orthogonal") CHECK(row.contains("claim_exact_status"));
    if (row["coupling"] == "simplex") {
      ++simplex_rows;
      CHECK(row["estimator"] == "positive");
      CHECK(row["mse_simplex_theory"].get<double>() <= row["mse_orthogonal_theory"].get<double>() * (1 + 1e-12));
      CHECK(row["simplex_below_orthogonal_exact_status"] == "holds");
    }
  }
  CHECK(simplex_rows == (2 + 3) * 2);
  // --no-simplex --importance-trials 0: the Theorem 2 checks alone.
  const auto plain =
      run_cli("orthogonal --d 4 --m 1,4 --cos 0.5 --trials 300 --no-simplex --importance-trials 0 --quiet "
              "--out plain.json",
              dir);
  REQUIRE(plain.status == 0);
  CHECK(nlohmann::json::parse(read_text(dir / "plain.json"))["checks"].size() == 2 * 5);
  for (const char* bad : {"--d 4 --m 8", "--d 1", "--estimators trig", "--m 0", "--alpha 2", "--cos 1.5"}) {
    INFO(bad);
    const auto run = run_cli(std::string("orthogonal --trials 300 --quiet --out bad.json ") + bad, dir);
    CHECK(run.status == 2);
    CHECK(!std::filesystem::exists(dir / "bad.json"));
  }
  // The figures render from this file (plotting/plot_orthogonal.py through make_figures.py).
  const auto plotting = std::filesystem::path(FAVORLAB_SOURCE_DIR) / "plotting" / "make_figures.py";
  const std::string plot = "/usr/bin/python3 '" + plotting.string() + "' --results '" + dir.string() + "' --quiet";
  CHECK(std::system(plot.c_str()) == 0);
  for (const char* png : {"orthogonal_positive.png", "orthogonal_smreg.png", "orthogonal_gap.png"})
    CHECK(std::filesystem::file_size(dir / "figures" / png) > 1000);
  std::filesystem::remove_all(dir);
}
