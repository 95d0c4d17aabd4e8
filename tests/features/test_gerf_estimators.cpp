// The estimators published after FAVOR+ in the Monte Carlo engine: gerf, oprf and sderf features (against their
// prepared positive-map form, entry by entry), simplex projections (their geometry), and the Monte Carlo MSE of each
// against its exact form under iid, orthogonal and simplex rows, with a power case that must fail.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include <cmath>
#include <vector>

#include "cli_runner.hpp"
#include "features/estimator.hpp"
#include "features/feature_maps.hpp"
#include "features/gerf_projection.hpp"
#include "features/family_theory.hpp"
#include "kernels/gerf_moments.hpp"
#include "kernels/softmax_kernel.hpp"
#include "mc/estimator_sweep.hpp"
#include "stats/claim_check.hpp"
#include "stats/exact_inequality.hpp"

using namespace favorlab;

namespace {

Eigen::MatrixXd gaussian_matrix(int rows, int cols, std::uint64_t stream) {
  PhiloxStream rng(5, stream, 0);
  return iid_projection(rows, cols, rng);
}

}  // namespace

TEST_CASE("gerf, oprf and sderf estimates equal their prepared positive maps, pair by pair", "[features][gerf]") {
  const int d = 6, m = 10;
  const Eigen::MatrixXd w = gaussian_matrix(m, d, 1);
  const Eigen::MatrixXd x = 0.4 * gaussian_matrix(5, d, 2), y = 0.4 * gaussian_matrix(5, d, 3);
  const Eigen::VectorXd oprf = estimate_kernel(Family::oprf, x, y, w);
  const Eigen::VectorXd sderf = estimate_kernel(Family::sderf, x, y, w);
  for (Eigen::Index p = 0; p < x.rows(); ++p) {
    const Eigen::MatrixXd xp = x.row(p), yp = y.row(p);
    const Eigen::VectorXd z = (xp + yp).transpose();
    const ShiftedProjection g = gerf_projection(w, oprf_a_star(z.squaredNorm(), d));
    const double oprf_ref = shifted_positive_features<double>(xp, packed(g)).row(0).dot(shifted_positive_features<double>(yp, packed(g)).row(0));
    // Rounding only: the same exponents summed in another order (~1e-16 each, exponents of order 1) — 1e-13 leaves
    // room for m = 10 terms; the sderf reference goes through a d×d eigensolver (backward error ~1e-15·‖M‖ per
    // eigenpair, entering the exponents through B and A), hence 1e-11.
    CHECK(oprf(p) == Approx(oprf_ref).epsilon(1e-13));
    const ShiftedProjection s = sderf_projection(w, z * z.transpose());  // the d×d eigensolver path
    const double sderf_ref = shifted_positive_features<double>(xp, packed(s)).row(0).dot(shifted_positive_features<double>(yp, packed(s)).row(0));
    CHECK(sderf(p) == Approx(sderf_ref).epsilon(1e-11));
    CHECK(std::abs(sderf(p) - oprf(p)) > 1e-6 * oprf(p));  // the two families differ (power of the comparison)
  }
  // A = 0: gerf is the positive map.
  FeatureParameters zero;
  zero.gerf_a = 0;
  CHECK(estimate_kernel(Family::gerf, x, y, w, zero).isApprox(estimate_kernel(Family::positive, x, y, w), 1e-14));
  FeatureParameters bad;
  bad.gerf_a = 0.125;
  CHECK_THROWS_WITH(estimate_kernel(Family::gerf, x, y, w, bad), Catch::Contains("below 1/8"));
}

TEST_CASE("sderf with A = a I is gerf, and its prepared W' rows are B omega_i", "[features][gerf]") {
  const int d = 5, m = 7;
  const Eigen::MatrixXd w = gaussian_matrix(m, d, 4);
  // M = λ I gives a_l = a*(λ, 1) in every direction: gerf with that a.
  const double lambda = 0.8;
  const ShiftedProjection s = sderf_projection(w, lambda * Eigen::MatrixXd::Identity(d, d));
  const ShiftedProjection g = gerf_projection(w, oprf_a_star(lambda, 1));
  CHECK(s.w.isApprox(g.w, 1e-13));
  CHECK(s.offset.isApprox(g.offset, 1e-13));
  const Eigen::MatrixXd not_square(d, d + 1);
  CHECK_THROWS_WITH(sderf_projection(w, not_square), Catch::Contains("d×d"));
}

TEST_CASE("simplex projections: regular-simplex directions, chi norms, independent blocks", "[projection][simplex]") {
  const int d = 6, m = 15;  // two full blocks and a partial one
  PhiloxStream rng(11, 0, 0);
  const Eigen::MatrixXd w = simplex_projection(m, d, rng);
  REQUIRE(w.rows() == m);
  for (int start = 0; start < m; start += d) {
    const int rows = std::min(d, m - start);
    Eigen::MatrixXd dirs = w.middleRows(start, rows);
    for (int i = 0; i < rows; ++i) dirs.row(i).normalize();
    const Eigen::MatrixXd gram = dirs * dirs.transpose();
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < rows; ++j) CHECK(gram(i, j) == Approx(i == j ? 1.0 : -1.0 / (d - 1)).margin(1e-13));
    if (rows == d) CHECK(dirs.colwise().sum().norm() < 1e-12);  // the vertices sum to 0
  }
  // Different blocks are independent rotations, not copies.
  CHECK((w.row(0).normalized() - w.row(d).normalized()).norm() > 1e-3);
  PhiloxStream again(11, 0, 0);
  CHECK(draw_projection(Coupling::simplex, RowNorms::chi, m, d, again) == w);  // the same stream, the same draw
  PhiloxStream r1(1, 0, 0);
  CHECK_THROWS_WITH(simplex_projection(3, 1, r1), Catch::Contains("d >= 2"));
  CHECK(parse_coupling("simplex") == Coupling::simplex);
}

TEST_CASE("simplex rows: the mean squared row norm is d (chi norms) over many draws", "[projection][simplex]") {
  // E‖ω‖² = d; 4000 draws of 4 rows, SD of ‖ω‖² is √(2d): the mean is off by > 5 SE with probability < 1e-6.
  const int d = 4, draws = 4000;
  double sum = 0;
  for (int t = 0; t < draws; ++t) {
    PhiloxStream rng(3, 1, static_cast<std::uint64_t>(t));
    sum += simplex_projection(d, d, rng).rowwise().squaredNorm().sum();
  }
  const double n = double(draws) * d, mean = sum / n, se = std::sqrt(2.0 * d / n);
  CHECK(std::abs(mean - d) < 5 * se);
}

TEST_CASE("gerf, oprf and sderf: Monte Carlo MSE matches the exact forms under iid, orthogonal and simplex rows",
          "[statistical][gerf]") {
  // Light-tailed points (‖x + y‖² ≤ 0.5) where the squared-error skewness keeps the z interval reliable; each check
  // has family-wise false-failure rate 1e-6 (Bonferroni over its points) and an equivalence margin of 5 % of the
  // exact MSE. The power case compares the same data with the MSE of m/2 features (twice the truth) and must fail.
  const int d = 8, m = 8;
  const std::vector<Geometry> points{{0.3, 0.5, -0.5}, {0.6, 0.6, -1.0}, {0.4, 0.7, -0.9}, {0.3, 0.3, 0.3}};
  const std::vector<EstimatorSpec> specs{
      {Family::gerf, m}, {Family::oprf, m}, {Family::sderf, m}, {Family::positive, m}};
  for (Coupling c : {Coupling::iid, Coupling::orthogonal, Coupling::simplex}) {
    const SweepResult r =
        run_estimator_sweep({d, c, specs, points, 2026, static_cast<std::uint64_t>(c), 150000, 2, {}});
    for (std::size_t s = 0; s < specs.size(); ++s) {
      const Family e = specs[s].estimator;
      if (!exact_mse(e, c, points.front(), d, m)) continue;  // sderf has none with coupled rows
      for (double scale : {1.0, 2.0}) {
        ClaimCheck check("mse", "test", 1e-6, points.size(), ClaimCheck::Sides::two, 0.05);
        for (std::size_t p = 0; p < points.size(); ++p) {
          const SweepCell& cell = r.cell(s, p);
          const PointVerdict v = check.judge(
              {cell.error.mean_square(), scale * *exact_mse(e, c, points[p], d, m), cell.error.mean_square_stderr(),
               std::pow(kRoundingAllowance * softmax_kernel(points[p]), 2),
               error_moments(e, points[p], d, m).squared_error_skewness, cell.error.count(), cell.nonfinite, "p"});
          INFO(estimator_name(e) << " / " << coupling_name(c) << " point " << p << " z=" << v.z);
          REQUIRE(v.reliable);
        }
        INFO(estimator_name(e) << " / " << coupling_name(c) << " scale " << scale << ": "
                               << check.result().detail);
        CHECK(check.result().status == (scale == 1.0 ? Verdict::holds : Verdict::violated));
      }
      // Unbiased for SM, every coupling: |mean error| ≤ 5.5 SE, two-sided normal level 3.8e-8 per point, at most
      // 4 families × 3 couplings × 4 points = 48 points: family-wise false-failure rate < 2e-6 (light tails here).
      for (std::size_t p = 0; p < points.size(); ++p) {
        const SweepCell& cell = r.cell(s, p);
        CHECK(std::abs(cell.error.mean()) <= 5.5 * cell.error.standard_error() +
                                                 kRoundingAllowance * softmax_kernel(points[p]));
      }
    }
  }
}

TEST_CASE("the exact comparisons of favorlab estimators hold, and reversed they fail", "[gerf][estimators]") {
  // Power of checks 2–4: the same closed forms with the claim turned around must be violated wherever φ > 0.
  const int d = 8, m = 8;
  const std::vector<Geometry> points{{0.5, 0.5, 0.0}, {1.0, 0.5, 0.5}, {1.0, 1.0, 0.9}};
  for (const Geometry& g : points) {
    const double pos = *exact_mse(Family::positive, Coupling::iid, g, d, m);
    const double oprf = *exact_mse(Family::oprf, Coupling::iid, g, d, m);
    const double sderf = *exact_mse(Family::sderf, Coupling::iid, g, d, m);
    CHECK(oprf < pos);
    CHECK(sderf < oprf);
    for (Family e : {Family::positive, Family::oprf}) {
      const double ort = *exact_mse(e, Coupling::orthogonal, g, d, m);
      const double sim = *exact_mse(e, Coupling::simplex, g, d, m);
      CHECK(sim < ort);
      CHECK(ort < *exact_mse(e, Coupling::iid, g, d, m));
    }
  }
  CHECK_FALSE(exact_mse(Family::sderf, Coupling::orthogonal, points[0], d, m).has_value());
  CHECK_FALSE(exact_mse(Family::trig, Coupling::simplex, points[0], d, m).has_value());
}

TEST_CASE("favorlab estimators: rows, checks, figure fields, bad input exits 2 with one line", "[cli][estimators]") {
  using namespace favorlab::testing;
  const auto dir = scratch_dir("estimators");
  const auto run = run_cli("estimators --d 4 --x-norm 0.5 --y-norm 0.5 --cos 0,0.5 --trials 3000 --quiet --out e.json",
                           dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "e.json"));
  CHECK(doc["experiment"] == "estimators");
  REQUIRE(doc["rows"].size() == 5 * 3 * 2);  // families × couplings × points
  for (const char* key : {"estimator", "coupling", "d", "m", "z_norm", "mse", "mse_stderr", "mse_exact",
                          "reference_mse", "trials"})
    CHECK(doc["rows"][0].contains(key));
  std::set<std::string> claims;
  for (const auto& c : doc["checks"]) {
    claims.insert(c["claim"].get<std::string>());
    CHECK(c["status"] != "violated");
  }
  // A closed form another experiment also judges carries that experiment's name (one claim, one ledger line).
  for (const char* claim : {"FAVOR++: MSE(oprf) <= MSE(positive), iid rows",
                            "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), exact values",
                            "FAVOR#: MSE(sderf) <= MSE(oprf), iid rows", "Exact MSE (oprf, simplex) = Monte Carlo",
                            "Lemma 2: MSE(positive) closed form", "Lemma 2: MSE(trig) closed form",
                            "Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo"})
    CHECK(claims.count(claim) == 1);
  for (const auto& c : doc["checks"])
    CHECK(c["claim"].get<std::string>().find("(positive, iid) = Monte Carlo") == std::string::npos);
  std::filesystem::remove(dir / "e.json");

  const std::vector<std::pair<std::string, std::string>> cases{
      {"estimators --d 1 --cos 1", "d >= 2"},
      {"estimators --estimators relu", "unknown estimator 'relu'"},
      {"estimators --couplings haar", "haar"},
      {"estimators --estimators gerf --gerf-a 0.2", "below 1/8"},
  };
  for (const auto& [args, needle] : cases)
    check_bad_input(args + " --trials 50 --quiet --out r.json", needle, dir, "r.json");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the closed-form numbers the README quotes", "[gerf][estimators]") {
  // Exact values (no sampling), to the 3 digits quoted; ‖x‖ = ‖y‖ = 1, cos = 1 gives φ = ‖x + y‖² = 4.
  const Geometry g{1.0, 1.0, 1.0};
  const double sm2 = std::exp(2 * g.dot());
  const double a16 = oprf_a_star(g.z_sq(), 16);
  // The (1 − 1/m) OPRF orthogonal correction (docs/theory.md#block-correction) at m > d: exact 0.338 SM², the formula
  // as stated 0.160 SM².
  CHECK(gerf_orthogonal_mse(g, 16, a16, 40) / sm2 == Approx(0.338).margin(5e-4));
  CHECK(math_md_oprf_orf_mse_as_stated(g, 16, a16, 40) / sm2 == Approx(0.160).margin(5e-4));
  // d = 16, m = 16, φ = 4, iid rows: SDERF 0.0997, OPRF 1.077, positive 3.350 (× SM²).
  CHECK(sderf_pair_mse_iid(g, 16, 16) / sm2 == Approx(0.0997).margin(5e-5));
  CHECK(gerf_mse_iid(g, 16, a16, 16) / sm2 == Approx(1.077).margin(5e-4));
  CHECK(*exact_mse(Family::positive, Coupling::iid, g, 16, 16) / sm2 == Approx(3.350).margin(5e-4));
  // Simplex vs R-ORF at m = d = 16, ‖x‖ = ‖y‖ = 1, cos = −0.999 (‖z‖ = 0.0447): 3.9e-6 against 1.25e-4 (× SM²).
  const Geometry close{1.0, 1.0, -0.999};
  const double k2 = std::exp(2 * close.dot());
  CHECK(*exact_mse(Family::positive, Coupling::simplex, close, 16, 16) / k2 == Approx(3.9e-6).margin(5e-8));
  CHECK(*exact_mse(Family::positive, Coupling::orthogonal, close, 16, 16) / k2 == Approx(1.25e-4).margin(5e-7));
}

TEST_CASE("error moments where an estimator is exact: variances are 0 to rounding, never below", "[moments][gerf]") {
  // Trig at x = y and positive at x = −y do not vary: the 50-digit subtractions leave ±1e-52, and a negative
  // variance is refused by `favorlab compare` (it once reached a committed result file as −6.7e-52).
  const Geometry same{0.5, 0.5, 1.0}, opposite{0.5, 0.5, -1.0};
  for (const auto& [e, g] : {std::pair{Family::trig, same}, {Family::positive, opposite}}) {
    const ErrorMoments em = error_moments(e, g, 16, 16);
    CHECK(em.variance >= 0);
    CHECK(em.variance < 1e-30);
    CHECK(em.squared_error_variance >= 0);
  }
  CHECK(error_moments(Family::trig, Geometry{0.5, 0.5, 0.5}, 16, 16).variance > 1e-3);  // and not 0 elsewhere
}
