// Importance sampling of the one-feature variance of gerf, oprf and sderf (mc/importance_gerf.hpp). Covered:
//   1. the closed-form (multiprecision) moments: the formula h(s, u) against the families' own code (estimate_kernel);
//      the mean is the family's iid_mse·m/SM² for every proposal (gerf, oprf, sderf, positive; ‖z‖² up to 25); at
//      a = 0 the relative variance and skewness equal importance_mse.hpp's quadrature for the same (μ, σ), τ = 1; one
//      E_q[Y²] against a brute-force 2-D quadrature with the likelihood ratio taken as a ratio of densities; 100
//      against 250 digits at the grid's worst-cancelling point; the existence conditions;
//   2. unbiasedness: the IS MSE agrees with iid_mse at light and heavy points, every point reliable by the a-priori
//      skewness gate (stats/edgeworth.hpp) at the trial count used; the estimate-mean row is never violated;
//   3. power: iid_mse × 1.05 is rejected at heavy points where plain Monte Carlo with the same trials is out of reach
//      (gerf, oprf); sderf is light-tailed at a pair, where plain MC is itself reliable (shown, and still rejected);
//   4. bit-identical results for 1 and 2 threads;
//   5. the optimal proposal is a minimum of the relative third moment (and agrees with importance_mse's at a = 0);
//   6. bad input → std::invalid_argument.
// Statistical checks use a family-wise false-failure rate kAlpha split over their points (Bonferroni); the seeds are
// fixed, so the suite is deterministic, and other seeds pass with probability ≥ 1 − kAlpha per check.
// Deterministic comparisons use tolerances derived from rounding or from a quadrature's own error estimate.
#include <catch2/catch.hpp>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "features/estimator.hpp"
#include "features/family_theory.hpp"
#include "kernels/softmax_kernel.hpp"
#include "mc/importance_gerf.hpp"
#include "mc/importance_mse.hpp"
#include "rng/philox_stream.hpp"
#include "stats/claim_check.hpp"
#include "stats/edgeworth.hpp"
#include "stats/exact_inequality.hpp"
#include "stats/normal_quantiles.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-3;
constexpr int kD = 16, kM = 16;  // the mse experiment's default d and m
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr std::uint64_t kSeed = 20240612;
const FeatureParameters kParams{};  // gerf's default A = −1/16

const std::vector<Family> kFamilies{Family::gerf, Family::oprf, Family::sderf};
const std::vector<Geometry> kLight{{0.3, 0.5, -0.5}, {0.5, 0.5, 0.3}, {1.0, 1.0, 0.0}};  // ‖z‖² 0.19, 0.65, 2
const std::vector<Geometry> kHeavy{{2.0, 2.0, 0.0}, {1.5, 1.5, 1.0}, {2.0, 2.0, 1.0}};   // ‖z‖² 8, 9, 16

// Trials per point: 30000 where the a-priori gate asks for ≤ 4600 (measured: gerf ≤ 4600 at its light points,
// sderf ≤ 1800, positive ≤ 250, oprf ≤ 1200 at ‖z‖² ≤ 2); 5e5 for oprf at the heavy points, where the Gaussian
// proposal across ẑ fits poorly (relative variance 9.6 / 13.4, skewness 8.9 / 11 at ‖z‖² = 8 / 9; the gate asks for
// ≤ 8e4) and the power case below needs the smaller SE. oprf at ‖z‖² = 16 (relative variance 96, skewness 40: the
// gate asks for ~9e5 trials) is left to the closed-form tests. 1e5 trials take ~0.15 s on 2 threads.
std::int64_t trials_for(Family e, const Geometry& g) {
  return e == Family::oprf && g.z_sq() > 4 ? 500000 : 30000;
}

// The Monte Carlo points of an estimator: kLight and kHeavy, without oprf's ‖z‖² = 16 (above).
std::vector<Geometry> mc_points(Family e) {
  std::vector<Geometry> points = kLight;
  for (const Geometry& g : kHeavy)
    if (!(e == Family::oprf && g.z_sq() > 10)) points.push_back(g);
  return points;
}

// One run per (estimator, point), shared by the test cases below (the runs are deterministic).
const GerfImportanceSampledMse& run(Family e, const Geometry& g) {
  static std::map<std::tuple<int, double, double, double>, GerfImportanceSampledMse> cache;
  const auto key = std::make_tuple(static_cast<int>(e), g.x_norm, g.y_norm, g.cos_angle);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, importance_sampled_gerf_mse(e, g, kD, kM, trials_for(e, g), kSeed, 0, 2, kParams)).first;
  return it->second;
}

// iid_mse·m/SM² = Var_p(g)/SM², the mean of Y for every proposal.
double scaled_iid_mse(Family e, const Geometry& g, int d, const FeatureParameters& params = kParams) {
  return family_info(e).iid_mse(g, d, 1, params) / std::pow(softmax_kernel(g), 2);
}

// Rounding of scaled_iid_mse: SM² expm1(L)/m with L = (k/2) log((1−4a)²/(1−8a)) + φ/(1−8a) (two non-negative parts,
// a dozen operations: relative error ≲ 16ε(1 + L) after expm1, whose condition number L e^L/(e^L − 1) ≤ 1 + L), then
// divided by SM² = exp(xᵀy)² (exp(2xᵀy) and exp(xᵀy)² each carry ≲ 2ε(1 + 2|xᵀy|)). 4× that for safety of the count.
double mean_tolerance(Family e, const Geometry& g, int d, const FeatureParameters& params = kParams) {
  const double l = std::log1p(scaled_iid_mse(e, g, d, params));
  return 4 * (16 * kEps * (1 + l) + 4 * kEps * (1 + 2 * std::abs(g.dot())));
}

// h(s, u) of the header comment.
double h_formula(double a, int k, double r, double s, double u) {
  return std::pow(1 - 4 * a, k / 2.0) * std::exp(2 * a * s * s + std::sqrt(1 - 4 * a) * r * s - r * r / 2 + 2 * a * u);
}

}  // namespace

TEST_CASE("IS gerf: h(s, u) is the families' own feature product at a pair", "[importance]") {
  // g/SM from estimate_kernel (the estimator engine's code path, m = 1, W = ωᵀ) against the header's formula, at
  // random ω. Rounding: both sides are exp of sums of ≤ 8 terms of size ≤ |exponent| + |log parts|; 64ε(1 + Σ|parts|).
  for (Family e : {Family::positive, Family::gerf, Family::oprf, Family::sderf})
    for (const Geometry& g : {Geometry{1.2, 0.8, 0.3}, Geometry{0.5, 1.5, -0.7}}) {
      const PairGerf pg = gerf_importance_pair(e, g, kD, kParams);
      const Eigen::VectorXd x = geometry_x(g, kD), y = geometry_y(g, kD), z = x + y;
      const double r = z.norm();
      const Eigen::VectorXd unit = z / r;
      PhiloxStream rng(1, 2, 3);
      for (int t = 0; t < 20; ++t) {
        Eigen::VectorXd omega(kD);
        for (int i = 0; i < kD; ++i) omega(i) = 1.5 * rng.normal();
        const double s = unit.dot(omega);
        const double u = pg.dimension == kD ? (omega - s * unit).squaredNorm() : 0.0;
        const Eigen::MatrixXd w = omega.transpose();
        const double code = estimate_kernel(e, x.transpose(), y.transpose(), w, kParams)(0) / softmax_kernel(g);
        const double formula = h_formula(pg.a, pg.dimension, r, s, u);
        const double parts = std::abs(pg.dimension / 2.0 * std::log1p(-4 * pg.a)) + std::abs(2 * pg.a) * (s * s + u) +
                             std::abs(r * s) * 2 + r * r + x.squaredNorm() + y.squaredNorm();
        INFO(estimator_name(e) << " t=" << t << " code " << code << " formula " << formula);
        CHECK(code == Approx(formula).epsilon(64 * kEps * (1 + parts)));
      }
    }
}

TEST_CASE("IS gerf closed form: the mean of Y is the family's iid MSE for every proposal", "[importance]") {
  const std::vector<Geometry> points{{0.3, 0.5, -0.5}, {1.0, 1.0, 0.0}, {1.5, 1.5, 1.0},
                                     {2.0, 2.0, 1.0},  {2.5, 2.5, 1.0}, {0.1, 0.1, -0.99}};  // ‖z‖² up to 25
  const std::vector<GerfProposal> proposals{{0, 1, 1}, {2.5, 1.3, 0.95}, {0.7, 0.95, 1.4}};
  for (Family e : {Family::positive, Family::gerf, Family::oprf, Family::sderf})
    for (const Geometry& g : points) {
      std::vector<GerfProposal> qs = proposals;
      qs.push_back(optimal_gerf_proposal(e, g, kD, kParams));
      for (const GerfProposal& q : qs) {
        INFO(estimator_name(e) << " |z|^2=" << g.z_sq() << " q=(" << q.mean << ", " << q.sd << ", " << q.perp_sd
                               << ")");
        const WeightedMoments y = gerf_weighted_squared_error_moments(e, g, kD, kParams, q);
        CHECK(y.mean == Approx(scaled_iid_mse(e, g, kD)).epsilon(mean_tolerance(e, g, kD)));
        // E_q[w h] = T(1, 1) = 1 exactly; its 100-digit evaluation rounds to 1 within one double rounding.
        CHECK(gerf_weighted_estimate_moments(e, g, kD, kParams, q).mean == Approx(1.0).epsilon(2 * kEps));
      }
    }
  // Other dimensions and a positive A (gerf): the k of each family enters the mean.
  for (int d : {1, 3, 64})
    for (double a : {-0.3, 0.05}) {
      const FeatureParameters params{a};
      const Geometry g{1.0, 0.8, d == 1 ? 1.0 : 0.4};
      for (Family e : kFamilies) {
        INFO(estimator_name(e) << " d=" << d << " a=" << a);
        const WeightedMoments y = gerf_weighted_squared_error_moments(e, g, d, params, {1.0, 1.2, 1.1});
        CHECK(y.mean == Approx(scaled_iid_mse(e, g, d, params)).epsilon(mean_tolerance(e, g, d, params)));
      }
    }
}

TEST_CASE("IS gerf closed form: at a = 0 it is importance_mse's quadrature", "[importance]") {
  // Same estimator (positive), same proposal (μ, σ; τ = 1). importance_mse's quadrature: relative variance to 1e-12,
  // skewness to 1e-11 (test_importance_mse.cpp derives both); the closed form here is exact to ≥ 77 digits.
  const std::vector<ImportanceProposal> proposals{{0, 1, false}, {2.5, 1.3, false}, {1.2, 0.95, false},
                                                  {7.9, 1.45, false}};
  for (const Geometry& g : {Geometry{0.3, 0.5, -0.5}, Geometry{1.0, 1.0, 0.0}, Geometry{2.0, 2.0, 1.0}})
    for (const ImportanceProposal& q : proposals) {
      INFO("|z|^2=" << g.z_sq() << " q=(" << q.mean << ", " << q.sd << ")");
      const WeightedMoments quadrature = weighted_squared_error_moments(Family::positive, g, q);
      const WeightedMoments closed =
          gerf_weighted_squared_error_moments(Family::positive, g, kD, kParams, {q.mean, q.sd, 1.0});
      CHECK(closed.mean == Approx(quadrature.mean).epsilon(1e-10));
      CHECK(closed.relative_variance == Approx(quadrature.relative_variance).epsilon(1e-12));
      CHECK(closed.skewness == Approx(quadrature.skewness).epsilon(1e-11));
      CHECK(closed.finite == quadrature.finite);
      const WeightedMoments qa = weighted_estimate_moments(Family::positive, g, q);
      const WeightedMoments ca = gerf_weighted_estimate_moments(Family::positive, g, kD, kParams, {q.mean, q.sd, 1});
      CHECK(ca.relative_variance == Approx(qa.relative_variance).epsilon(1e-12));
      CHECK(ca.skewness == Approx(qa.skewness).epsilon(1e-11));
    }
}

TEST_CASE("IS gerf closed form: the second moment of Y by brute-force 2-D quadrature", "[importance]") {
  // gerf (a = −1/16) in d = 5 (k = 5: n = 4 directions across ẑ, u ~ χ²_4 under p), a light point, τ ≠ 1. The
  // integrand is built from densities only — w = φ(s)/N(s; μ, σ²) · χ²_4(u)/(χ²_4(u/τ²)/τ²) — so the likelihood
  // ratio of the header comment is checked too: E_q[Y²] = ∫∫ w² (h − 1)⁴ N(s; μ, σ²) χ²_4(u/τ²)/τ² du ds.
  const int d = 5;
  const Geometry g{0.5, 0.5, 0.3};  // ‖z‖² = 0.65
  const GerfProposal q{0.8, 1.2, 0.93};
  const PairGerf pg = gerf_importance_pair(Family::gerf, g, d, kParams);
  REQUIRE(pg.dimension == d);
  const double r = std::sqrt(g.z_sq());
  // log densities: N(x; m, sd²) and χ²_4(u) = u e^{−u/2}/4.
  const auto log_normal = [](double x, double m, double sd) {
    const double t = (x - m) / sd;
    return -t * t / 2 - std::log(sd * std::sqrt(2 * std::numbers::pi));
  };
  const auto log_chi2_4 = [](double u) { return std::log(u) - u / 2 - std::log(4.0); };
  using Kronrod = boost::math::quadrature::gauss_kronrod<double, 61>;
  constexpr double kInner = 1e-11;  // relative tolerance asked of each inner integral
  const double tau_sq = q.perp_sd * q.perp_sd;
  const auto inner = [&](double s) {
    const double log_ps = log_normal(s, 0, 1), log_qs = log_normal(s, q.mean, q.sd);
    const auto f = [&](double u) {
      if (!(u > 0)) return 0.0;
      const double log_pu = log_chi2_4(u), log_qu = log_chi2_4(u / tau_sq) - std::log(tau_sq);
      // w² (h − 1)⁴ q = p_s² p_u² (h − 1)⁴ / (q_s q_u), with w = (p_s/q_s)(p_u/q_u).
      const double e = h_formula(pg.a, d, r, s, u) - 1;
      return std::exp(2 * (log_ps + log_pu) - log_qs - log_qu) * e * e * e * e;
    };
    return Kronrod::integrate(f, 0.0, std::numeric_limits<double>::infinity(), 15, kInner);
  };
  double outer_error = 0;
  const double brute = Kronrod::integrate(inner, -std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::infinity(), 15, 1e-11, &outer_error);
  const WeightedMoments closed = gerf_weighted_squared_error_moments(Family::gerf, g, d, kParams, q);
  // Error of the nested quadrature: the outer estimate plus the inner integrals' relative tolerance carried through
  // (a positive integrand), plus rounding of the double integrand (≲ 1e-13 relative: exp of parts of size ≲ 10).
  const double tolerance = outer_error + (kInner + 1e-13) * brute;
  INFO("closed " << closed.second << " brute " << brute << " difference " << std::abs(closed.second - brute)
                 << " tolerance " << tolerance);
  CHECK(std::abs(closed.second - brute) <= tolerance);
}

TEST_CASE("IS gerf closed form: 100 and 250 digits agree at the grid's worst cancellation", "[importance]") {
  // ‖z‖² = 2e-4 (|x| = |y| = 0.1, cos = −0.99): Y ≈ w r² s², so the alternating sums cancel ~(2/(r s))^{2j}; measured
  // ≤ 13 digits consumed there (any family), the most on the mse default grid.
  const Geometry g{0.1, 0.1, -0.99};
  for (Family e : {Family::positive, Family::oprf, Family::sderf}) {
    const GerfProposal q = optimal_gerf_proposal(e, g, kD, kParams);
    GerfMomentPrecision p100, p250;
    const WeightedMoments a = gerf_weighted_squared_error_moments(e, g, kD, kParams, q, &p100);
    const WeightedMoments b = gerf_weighted_squared_error_moments(e, g, kD, kParams, q, &p250, true);
    INFO(estimator_name(e) << " cancellation digits " << p100.cancellation_digits);
    CHECK(p100.digits == 100);
    CHECK(p250.digits == 250);
    CHECK(p100.cancellation_digits > 5);   // the cancellation is real here …
    CHECK(p100.cancellation_digits < 20);  // … and far from the 80 digits the 100-digit evaluation may lose
    // Both are exact to ≥ 80 digits before rounding to double: equal within one rounding of each.
    CHECK(a.mean == Approx(b.mean).epsilon(2 * kEps));
    CHECK(a.second == Approx(b.second).epsilon(2 * kEps));
    CHECK(a.third == Approx(b.third).epsilon(2 * kEps));
    CHECK(a.relative_variance == Approx(b.relative_variance).epsilon(2 * kEps));
    CHECK(a.skewness == Approx(b.skewness).epsilon(2 * kEps));
  }
}

TEST_CASE("IS gerf closed form: moments exist exactly where the header's conditions hold", "[importance]") {
  const Geometry g{1.0, 1.0, 0.5};
  // a < 0 (oprf): E_q[Y^j] needs σ², τ² > (j − 1)/j. σ² = 0.6: the variance exists, the third moment does not.
  const WeightedMoments o = gerf_weighted_squared_error_moments(Family::oprf, g, kD, kParams,
                                                                {1.0, std::sqrt(0.6), 1.0});
  CHECK_FALSE(o.finite);
  CHECK(std::isfinite(o.second));
  CHECK(std::isinf(o.third));
  CHECK(std::isinf(o.skewness));
  // … and the same through τ alone.
  const WeightedMoments ot = gerf_weighted_squared_error_moments(Family::oprf, g, kD, kParams,
                                                                 {1.0, 1.2, std::sqrt(0.6)});
  CHECK_FALSE(ot.finite);
  CHECK(std::isfinite(ot.second));
  // σ² = 0.45 ≤ 1/2: no variance.
  CHECK(std::isinf(gerf_weighted_squared_error_moments(Family::sderf, g, kD, kParams, {1.0, std::sqrt(0.45), 1})
                       .relative_variance));
  // a = 0.05 > 0 (gerf): the bound is (j − 1)/(j(1 − 8a)) = (j − 1)/(0.6 j): σ² = 1 (plain) is below 2/1.8 = 1.11,
  // so the third moment does not exist, but above 1/1.2 = 0.83, so the variance does; likewise through τ.
  const FeatureParameters positive_a{0.05};
  const WeightedMoments gs = gerf_weighted_squared_error_moments(Family::gerf, g, kD, positive_a, {1.0, 1.0, 1.2});
  CHECK(std::isfinite(gs.second));
  CHECK(std::isinf(gs.third));
  const WeightedMoments gt = gerf_weighted_squared_error_moments(Family::gerf, g, kD, positive_a, {1.0, 1.2, 1.0});
  CHECK(std::isfinite(gt.second));
  CHECK(std::isinf(gt.third));
  const WeightedMoments gok = gerf_weighted_squared_error_moments(Family::gerf, g, kD, positive_a, {1.0, 1.2, 1.2});
  CHECK(gok.finite);  // 1.44 > 1.11 in both
  // Plain MC (σ = τ = 1) of gerf with a > 0 has the j-th moment only for a < 1/(8j): a = 0.05 — j = 2 yes, j = 3 no.
  const WeightedMoments plain = gerf_weighted_squared_error_moments(Family::gerf, g, kD, positive_a, {0, 1, 1});
  CHECK(std::isfinite(plain.second));
  CHECK(std::isinf(plain.third));
  // Y ≡ 0 where a = 0 and z = 0 (positive, and oprf/sderf, whose a*(0) = 0); gerf's a ≠ 0 keeps a variance there.
  for (Family e : {Family::positive, Family::oprf, Family::sderf}) {
    const WeightedMoments zero = gerf_weighted_squared_error_moments(e, {1.0, 1.0, -1.0}, kD, kParams, {0, 1, 1});
    CHECK(zero.degenerate);
    CHECK(zero.mean == 0);
  }
  CHECK_FALSE(
      gerf_weighted_squared_error_moments(Family::gerf, {1.0, 1.0, -1.0}, kD, kParams, {0, 1, 1}).degenerate);
  // The zero-variance proposal of the positive estimate: h φ = N(r, 1), so w h ≡ 1 under q = N(r, 1).
  CHECK(gerf_weighted_estimate_moments(Family::positive, {1.0, 1.0, 0.0}, kD, kParams, {std::sqrt(2.0), 1, 1})
            .degenerate);
}

TEST_CASE("IS gerf MSE is unbiased for the iid MSE at light and heavy points, with reliable z intervals",
          "[importance]") {
  const std::vector<Family> estimators{Family::positive, Family::gerf, Family::oprf, Family::sderf};
  std::size_t judged = 0;
  for (Family e : estimators) judged += mc_points(e).size();
  // One family (α = 1e-3) over every (estimator, point), Bonferroni inside ClaimCheck. Allowance 0: the rounding of
  // SM²·mean (a few ε relative) is far below the SE (≥ 1e-3 relative at these trial counts).
  ClaimCheck mse("IS MSE equals the iid MSE", "test", kAlpha, judged);
  ClaimCheck mean("IS estimate mean equals SM", "test", kAlpha, judged);
  const double point_alpha = bonferroni_alpha(kAlpha, judged);
  for (Family e : estimators)
    for (const Geometry& g : mc_points(e)) {
      const GerfImportanceSampledMse& r = run(e, g);
      const double theory = family_info(e).iid_mse(g, kD, kM, kParams);
      INFO(estimator_name(e) << " |z|^2=" << g.z_sq() << " mse=" << r.mse << " +- " << r.mse_stderr << " theory "
                             << theory << " skew " << r.mse_skewness << " trials " << r.trials);
      CHECK(r.nonfinite == 0);
      CHECK(r.trials == trials_for(e, g));
      CHECK(trials_for_reliable_z_test(r.mse_skewness, mse.critical_z(), point_alpha) <= r.trials);
      const PointVerdict v = mse.judge({r.mse, theory, r.mse_stderr, 0, r.mse_skewness, r.trials, r.nonfinite, "p"});
      CHECK(v.reliable);
      CHECK(v.status != Verdict::violated);
      const PointVerdict m = mean.judge({r.estimate_mean, softmax_kernel(g), r.estimate_stderr, 0, r.estimate_skewness,
                                         r.trials, r.nonfinite, "p"});
      CHECK(m.status != Verdict::violated);
    }
  CHECK(mse.result().status != Verdict::violated);
  CHECK(mean.result().status != Verdict::violated);
}

TEST_CASE("IS gerf MSE has power where plain Monte Carlo is out of reach", "[importance]") {
  // A wrong constant (iid MSE × 1.05) must be rejected at the heavy points. Relative SE of the IS MSE:
  // gerf √(0.70/30000) ≤ 0.49 %, oprf √(13.4/5e5) ≤ 0.52 %: the 4.8 % deviation sits ≥ 9.7 / 9.2 SE from the
  // estimate, against a critical z of 3.72 (5 points): a miss has probability < 1e-7 per point (normal tail; the
  // skewness gate bounds the Edgeworth correction of that tail by α/2).
  struct Point {
    Family e;
    Geometry g;
  };
  const std::vector<Point> points{{Family::gerf, kHeavy[0]}, {Family::gerf, kHeavy[1]},
                                  {Family::gerf, kHeavy[2]}, {Family::oprf, kHeavy[0]},
                                  {Family::oprf, kHeavy[1]}};
  ClaimCheck wrong("IS MSE equals 1.05 x the iid MSE", "test", kAlpha, points.size());
  const double point_alpha = bonferroni_alpha(kAlpha, points.size());
  for (const Point& p : points) {
    const GerfImportanceSampledMse& r = run(p.e, p.g);
    const double theory = 1.05 * family_info(p.e).iid_mse(p.g, kD, kM, kParams);
    const PointVerdict v = wrong.judge({r.mse, theory, r.mse_stderr, 0, r.mse_skewness, r.trials, r.nonfinite, "p"});
    INFO(estimator_name(p.e) << " |z|^2=" << p.g.z_sq() << " z=" << v.z << " IS relative variance "
                             << r.relative_variance << ", plain " << r.plain_relative_variance);
    CHECK(v.reliable);
    CHECK(v.status == Verdict::violated);
    // Plain MC of the same estimator (m features per trial) with as many trials: its squared error's a-priori
    // skewness (closed-form moments, kernels/error_moments.hpp) asks for more trials than were run. Measured: gerf
    // 6.7e12 → saturated (‖z‖² = 8 → 16), oprf 3.7e7 / 6.3e7 at ‖z‖² = 8 / 9.
    const double plain_skew = error_moments(p.e, p.g, kD, kM, kParams).squared_error_skewness;
    const std::int64_t plain_needs = trials_for_reliable_z_test(plain_skew, wrong.critical_z(), point_alpha);
    INFO("plain MC skewness " << plain_skew << " needs " << plain_needs << " trials");
    CHECK(plain_needs > 10 * r.trials);
    // The plain relative variance (one feature) is huge beside the proposal's: measured ≥ 1.6e6 vs ≤ 0.70 (gerf),
    // ≥ 1.1e4 vs ≤ 13.4 (oprf).
    CHECK(r.plain_relative_variance > 500 * r.relative_variance);
  }
  CHECK(wrong.result().status == Verdict::violated);

  // sderf fitted to a pair is light-tailed: its relative MSE grows only like e^{1/2} √(‖z‖²/2) (sderf_pair_mse_iid
  // with a = a*(φ, 1) ≈ −φ/4), and plain MC's gate asks for ≤ 8000 trials at ‖z‖² ≤ 16, so no point needs IS. IS
  // still rejects the wrong constant: relative SE √(1.43/30000) ≤ 0.69 % at ‖z‖² ≤ 9, so the 4.8 % deviation sits
  // ≥ 6.9 SE away against a critical z of 3.48 (2 points): miss probability < 1e-3 per point.
  ClaimCheck wrong_sderf("IS MSE(sderf) equals 1.05 x the iid MSE", "test", kAlpha, 2);
  for (const Geometry& g : {kHeavy[0], kHeavy[1]}) {
    const GerfImportanceSampledMse& r = run(Family::sderf, g);
    const double theory = 1.05 * family_info(Family::sderf).iid_mse(g, kD, kM, kParams);
    const PointVerdict v =
        wrong_sderf.judge({r.mse, theory, r.mse_stderr, 0, r.mse_skewness, r.trials, r.nonfinite, "p"});
    INFO("sderf |z|^2=" << g.z_sq() << " z=" << v.z);
    CHECK(v.reliable);
    CHECK(v.status == Verdict::violated);
    const double plain_skew = error_moments(Family::sderf, g, kD, kM, kParams).squared_error_skewness;
    CHECK(trials_for_reliable_z_test(plain_skew, wrong_sderf.critical_z(), bonferroni_alpha(kAlpha, 2)) <= r.trials);
  }
}

TEST_CASE("IS gerf Lemma 1 under the zero-variance proposal: each weighted draw is SM, a wrong SM is refused",
          "[importance]") {
  // mean_tuned_gerf_proposal is the tilt N(z/√(1 − 4A), I/(1 − 4A)) in the dimensions A acts in, so w·h ≡ 1: the
  // closed-form moments are degenerate and every draw gives SM up to one draw's rounding (exp of terms ≲ 50: a few
  // hundred ε). The bound 1e-12 is kRoundingAllowance, the margin of the check mse builds on it.
  for (Family e : {Family::positive, Family::gerf, Family::oprf, Family::sderf})
    for (const std::vector<Geometry>* set : {&kLight, &kHeavy})
      for (const Geometry& g : *set) {
        const GerfProposal q = mean_tuned_gerf_proposal(e, g, kD, kParams);
        const PairGerf pair = gerf_importance_pair(e, g, kD, kParams);
        CHECK(q.sd == Approx(1 / std::sqrt(1 - 4 * pair.a)).epsilon(1e-15));
        CHECK(gerf_weighted_estimate_moments(e, g, kD, kParams, q).degenerate);
        const GerfImportanceSampledMse r = importance_sampled_gerf_mse(e, g, kD, kM, 2000, kSeed, 9, 2, kParams, q);
        const double sm = softmax_kernel(g);
        INFO(estimator_name(e) << " |z|^2=" << g.z_sq() << " a=" << pair.a << " mean/SM-1=" << r.estimate_mean / sm - 1
                               << " stderr/SM=" << r.estimate_stderr / sm);
        CHECK(std::abs(r.estimate_mean / sm - 1) < kRoundingAllowance);
        CHECK(r.estimate_stderr / sm < kRoundingAllowance);
        ClaimCheck right("E[estimate] = SM", "test", kAlpha, 1), wrong("E[estimate] = SM (1 + 1e-9)", "test", kAlpha, 1);
        PointEvidence ev{r.estimate_mean, sm, r.estimate_stderr, kRoundingAllowance * sm, r.estimate_skewness,
                         r.trials, r.nonfinite, "p"};
        CHECK(right.judge(ev).status == Verdict::holds);
        ev.theory = sm * (1 + 1e-9);
        ev.allowance = kRoundingAllowance * ev.theory;
        CHECK(wrong.judge(ev).status == Verdict::violated);
      }
}

TEST_CASE("IS gerf MSE: the same seed gives bit-identical results on 1 and 2 threads", "[importance]") {
  for (Family e : kFamilies) {
    const Geometry g{1.5, 1.5, 1.0};
    const GerfImportanceSampledMse a = importance_sampled_gerf_mse(e, g, kD, kM, 5000, 11, 3, 1, kParams);
    const GerfImportanceSampledMse b = importance_sampled_gerf_mse(e, g, kD, kM, 5000, 11, 3, 2, kParams);
    CHECK(a.mse == b.mse);
    CHECK(a.mse_stderr == b.mse_stderr);
    CHECK(a.estimate_mean == b.estimate_mean);
    CHECK(a.estimate_stderr == b.estimate_stderr);
    CHECK(a.trials == b.trials);
    CHECK(a.nonfinite == b.nonfinite);
    CHECK(importance_sampled_gerf_mse(e, g, kD, kM, 5000, 11, 4, 2, kParams).mse != a.mse);  // another stream
  }
}

TEST_CASE("IS gerf proposal: a minimum of the relative third moment", "[importance]") {
  // Deterministic (closed forms). The Newton search stops when its model promises less than 1e-10·|log E_q[Y³]| ≲
  // 4e-9 relative; nudges of 0.05 in μ and 0.02 in σ, τ raise the objective far more (curvature O(1)).
  for (Family e : kFamilies)
    for (const Geometry& g : {Geometry{0.3, 0.5, -0.5}, Geometry{1.5, 1.5, 1.0}, Geometry{2.0, 2.0, 1.0}}) {
      const GerfProposal q = optimal_gerf_proposal(e, g, kD, kParams);
      const PairGerf pg = gerf_importance_pair(e, g, kD, kParams);
      const double scale = 1 / std::sqrt(1 - 8 * std::max(pg.a, 0.0));
      INFO(estimator_name(e) << " |z|^2=" << g.z_sq() << " q=(" << q.mean << ", " << q.sd << ", " << q.perp_sd << ")");
      CHECK(q.sd >= 0.9 * scale * (1 - 1e-12));
      CHECK(q.sd < 2.9 * scale);
      CHECK(q.perp_sd >= 0.9 * scale * (1 - 1e-12));
      if (pg.dimension == 1) CHECK(q.perp_sd == 1);
      const double best = gerf_weighted_squared_error_moments(e, g, kD, kParams, q).third;
      for (const auto& [dm, ds, dt] : {std::tuple{0.05, 0.0, 0.0}, {-0.05, 0.0, 0.0}, {0.0, 0.02, 0.0},
                                       {0.0, -0.02, 0.0}, {0.0, 0.0, 0.02}, {0.0, 0.0, -0.02}}) {
        const GerfProposal nudged{q.mean + dm, q.sd + ds, q.perp_sd + dt};
        if (nudged.sd < 0.9 * scale || nudged.perp_sd < 0.9 * scale) continue;  // outside the box
        CHECK(gerf_weighted_squared_error_moments(e, g, kD, kParams, nudged).third >= best * (1 - 1e-8));
      }
    }
  // a = 0: the same criterion as importance_mse.hpp (there by nested Brent on quadrature): no worse than its optimum
  // beyond that quadrature's accuracy (1e-12 relative), and perp_sd = 1.
  for (const Geometry& g : {Geometry{0.3, 0.5, -0.5}, Geometry{2.0, 2.0, 1.0}}) {
    const GerfProposal q = optimal_gerf_proposal(Family::positive, g, kD, kParams);
    const ImportanceProposal other = optimal_importance_proposal(Family::positive, g);
    CHECK(q.perp_sd == 1);
    CHECK(gerf_weighted_squared_error_moments(Family::positive, g, kD, kParams, q).third <=
          weighted_squared_error_moments(Family::positive, g, other).third * (1 + 1e-12));
  }
}

TEST_CASE("IS gerf MSE rejects bad input", "[importance]") {
  const Geometry g{1.0, 1.0, 0.5};
  const Family o = Family::oprf;
  for (Family e : {Family::trig, Family::hyperbolic, Family::smreg}) {
    CHECK_THROWS_AS(importance_sampled_gerf_mse(e, g, kD, kM, 100, 1, 0, 1), std::invalid_argument);
    CHECK_THROWS_AS(optimal_gerf_proposal(e, g, kD), std::invalid_argument);
    CHECK_THROWS_AS(gerf_weighted_squared_error_moments(e, g, kD, kParams, {}), std::invalid_argument);
    CHECK_THROWS_AS(gerf_weighted_estimate_moments(e, g, kD, kParams, {}), std::invalid_argument);
    CHECK_FALSE(has_gerf_importance(e));
  }
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, g, kD, 0, 100, 1, 0, 1), std::invalid_argument);   // m < 1
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, g, kD, kM, 1, 1, 0, 1), std::invalid_argument);    // trials < 2
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, g, 0, kM, 100, 1, 0, 1), std::invalid_argument);   // d < 1
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, g, kD, kM, 100, 1, 0, 0), std::invalid_argument);  // threads < 1
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, {1.0, 1.0, 2.0}, kD, kM, 100, 1, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, {1.0, 1.0, 0.5}, 1, kM, 100, 1, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(importance_sampled_gerf_mse(o, {30.0, 30.0, 1.0}, kD, kM, 100, 1, 0, 1), std::invalid_argument);
  for (double a : {0.125, 0.2, std::nan("")}) {  // gerf's A must be finite and below 1/8
    const FeatureParameters bad{a};
    CHECK_THROWS_AS(importance_sampled_gerf_mse(Family::gerf, g, kD, kM, 100, 1, 0, 1, bad), std::invalid_argument);
    CHECK_THROWS_AS(optimal_gerf_proposal(Family::gerf, g, kD, bad), std::invalid_argument);
    CHECK_THROWS_AS(gerf_weighted_squared_error_moments(Family::gerf, g, kD, bad, {}), std::invalid_argument);
  }
  CHECK_THROWS_AS(gerf_weighted_squared_error_moments(o, g, kD, kParams, {0, 0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(gerf_weighted_squared_error_moments(o, g, kD, kParams, {0, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(gerf_weighted_squared_error_moments(o, g, kD, kParams, {std::nan(""), 1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(gerf_weighted_squared_error_moments(o, g, kD, kParams, {0, 1, 1e4}), std::invalid_argument);
  const auto message = [](auto&& call) {
    try {
      call();
    } catch (const std::invalid_argument& ex) {
      return std::string(ex.what());
    }
    return std::string();
  };
  CHECK(message([&] { importance_sampled_gerf_mse(o, g, kD, 0, 100, 1, 0, 1); }).find("m must be positive") !=
        std::string::npos);
  CHECK(message([&] { optimal_gerf_proposal(Family::gerf, g, kD, FeatureParameters{0.2}); })
            .find("gerf parameter A") != std::string::npos);
  CHECK(message([&] { importance_sampled_gerf_mse(Family::hyperbolic, g, kD, kM, 100, 1, 0, 1); })
            .find("hyperbolic") != std::string::npos);
  // z = 0 with a = 0: Y ≡ 0, so the MSE is 0 up to rounding. With q = p (w = 1) the feature product
  // e^{ωᵀx − 1/2} e^{−ωᵀx − 1/2}/e^{−1} is 1 within 8ε(1 + |ωᵀx|) ≤ 72ε (|ωᵀx| < 8 over 100 trials but with
  // probability < 1e-13), so the MSE is below SM² (72ε)²/m.
  const Geometry opposite{1.0, 1.0, -1.0};
  const GerfImportanceSampledMse zero =
      importance_sampled_gerf_mse(Family::positive, opposite, kD, kM, 100, 1, 0, 1);
  CHECK(zero.relative_variance == 0);
  CHECK(zero.mse <= std::pow(softmax_kernel(opposite) * 72 * kEps, 2) / kM);
}
