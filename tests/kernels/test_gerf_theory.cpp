// Closed-form theory of GERF / OPRF / coupled (orthogonal, simplex) rows / SDERF (kernels/gerf_moments.hpp,
// kernels/simplex_moments.hpp). Every closed form is checked three ways: against an independent series or quadrature,
// at a degenerate point where it reduces to a value the toolkit already knows (a = 0: Lemma 2 and the positive
// orthogonal MSE; c = 0: ₁F₁; d = 1 or 2: direct integration of the feature products themselves), and by a power case
// in which a wrong formula (or a perturbed parameter) must be detected by the same comparison.
// All checks are deterministic; each tolerance says where its size comes from.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/hypergeometric_1F1.hpp>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "features/family_theory.hpp"
#include "kernels/gerf_moments.hpp"
#include "kernels/lemma2.hpp"
#include "kernels/orthogonal_mse.hpp"
#include "kernels/simplex_moments.hpp"

using namespace favorlab;

namespace {

using Quad = boost::math::quadrature::gauss_kronrod<double, 61>;

double rel_diff(double a, double b) { return a == b ? 0.0 : std::abs(a - b) / std::max(std::abs(a), std::abs(b)); }

// Geometries (‖x‖, ‖y‖, cos) covering small and large φ = ‖x + y‖² (φ up to ≈ 44).
const std::vector<Geometry> kGeometries{
    {0.1, 0.2, 0.3}, {0.5, 0.7, -0.4}, {1.0, 1.0, 0.5}, {1.5, 1.2, 0.9}, {2.0, 1.0, -0.95}, {3.0, 3.7, 0.8}};

// log f(ω, u) of the GERF feature in d = 1, straight from its definition D exp(aω² + Bωu − u²/2), D = (1−4a)^{1/4}.
double log_gerf_feature_1d(double w, double u, double a) {
  return 0.25 * std::log(1 - 4 * a) + a * w * w + std::sqrt(1 - 4 * a) * w * u - u * u / 2;
}

// log E_{ω~N(0,1)}[f(ω,x)^p f(ω,y)^p] for p = 1 (the kernel) or p = 2 (the second moment) by adaptive Gauss–Kronrod.
// The log integrand is maximised numerically (Brent); the integral of exp(log integrand − max) runs over
// ±40 "widths" around it, a width being 1/√(curvature) measured by a finite difference.
double log_moment_1d_direct(double x, double y, double a, int p) {
  auto log_integrand = [&](double w) {
    return -w * w / 2 - 0.5 * std::log(2 * M_PI) + p * (log_gerf_feature_1d(w, x, a) + log_gerf_feature_1d(w, y, a));
  };
  // The log integrand is a concave quadratic; one Newton step from 0 with exact central differences lands near the
  // peak, Brent then polishes it.
  const double l0 = log_integrand(0), lp = log_integrand(1), lm = log_integrand(-1);
  const double start = -(lp - lm) / 2 / (lp - 2 * l0 + lm);
  const auto best =
      boost::math::tools::brent_find_minima([&](double w) { return -log_integrand(w); }, start - 10, start + 10, 60);
  const double peak = best.first, top = -best.second;
  const double h = 1e-3;
  const double curvature = -(log_integrand(peak + h) - 2 * top + log_integrand(peak - h)) / (h * h);
  const double width = 1 / std::sqrt(curvature);
  auto f = [&](double w) { return std::exp(log_integrand(w) - top); };
  const double v =
      Quad::integrate(f, peak - 40 * width, peak, 12, 1e-13) + Quad::integrate(f, peak, peak + 40 * width, 12, 1e-13);
  return std::log(v) + top;
}

// What one gets by counting the tilt e^{a‖ω‖²} once per row in the orthogonal pair moment (the brief's derivation):
// log[((1−4a)/(1−2a))^d ₁F₁(d; d/2; (1−4a)φ/(2(1−2a)))]. Wrong for a ≠ 0; the power cases must catch it.
double log_pair_moment_single_tilt(double phi, int d, double a) {
  return d * std::log((1 - 4 * a) / (1 - 2 * a)) +
         boost::math::log_hypergeometric_1F1(static_cast<double>(d), d / 2.0, (1 - 4 * a) * phi / (2 * (1 - 2 * a)));
}

// log E[f(ω₁,x) f(ω₁,y) f(ω₂,x) f(ω₂,y)] in d = 2 straight from the feature definition, with the Haar measure of O(2)
// written out: ω₁ = r₁(cos θ, sin θ) and ω₂ = −r₂(cos θ, sin θ) (simplex: s₁ = −s₂ in d = 2) or ω₂ = ±r₂(−sin θ, cos θ)
// (orthogonal, both orientations), θ uniform, r₁, r₂ iid Rayleigh (chi_2). The θ-average is the trapezoid rule with
// 64 nodes (exact to e^{−60} relative for the integrand's periodic, entire θ-dependence at these amplitudes); the
// radii by adaptive Gauss–Kronrod on [0, 30] (the integrand is below e^{−100} of its peak beyond 30 here).
// No ₀F₁, no chi_{2d}, no tilt algebra: an independent check of all three.
double log_pair_moment_direct_d2(const Eigen::Vector2d& x, const Eigen::Vector2d& y, double a, bool simplex) {
  const double b = std::sqrt(1 - 4 * a), log_dee = 0.5 * std::log(1 - 4 * a);  // D = (1−4a)^{2/4}
  auto log_f = [&](double w0, double w1, const Eigen::Vector2d& u) {
    return log_dee + a * (w0 * w0 + w1 * w1) + b * (w0 * u(0) + w1 * u(1)) - u.squaredNorm() / 2;
  };
  auto log_pair = [&](double p0, double p1, double q0, double q1) {
    return log_f(p0, p1, x) + log_f(p0, p1, y) + log_f(q0, q1, x) + log_f(q0, q1, y);
  };
  const int n = 64;
  auto angular = [&](double r1, double r2) {
    double sum = 0;
    for (int k = 0; k < n; ++k) {
      const double co = std::cos(2 * M_PI * k / n), si = std::sin(2 * M_PI * k / n);
      if (simplex) {
        sum += std::exp(log_pair(r1 * co, r1 * si, -r2 * co, -r2 * si));
      } else {
        sum += 0.5 * std::exp(log_pair(r1 * co, r1 * si, -r2 * si, r2 * co));
        sum += 0.5 * std::exp(log_pair(r1 * co, r1 * si, r2 * si, -r2 * co));
      }
    }
    return sum / n;
  };
  auto rayleigh = [](double r) { return r * std::exp(-r * r / 2); };
  auto over_r = [](auto&& g) {
    return Quad::integrate(g, 0.0, 4.0, 15, 1e-13) + Quad::integrate(g, 4.0, 10.0, 15, 1e-13) +
           Quad::integrate(g, 10.0, 30.0, 15, 1e-13);
  };
  const double v = over_r([&](double r1) { return rayleigh(r1) * over_r([&](double r2) { return rayleigh(r2) * angular(r1, r2); }); });
  return std::log(v);
}

// The normalised pair moment ρ = e^{‖x‖²+‖y‖²} · pair moment, from a direct pair moment.
double log_rho_from_pair(double log_pair, const Eigen::Vector2d& x, const Eigen::Vector2d& y) {
  return log_pair + x.squaredNorm() + y.squaredNorm();
}

// SDERF second moment from the matrices, no eigenbasis: log det(I−4A) − ½ log det(I−8A) + 2zᵀ(I−4A)(I−8A)⁻¹z − ‖x‖²
// − ‖y‖² (matrix Gaussian integral; B(I−8A)⁻¹B = (I−4A)(I−8A)⁻¹ because B and I−8A are both functions of A).
double dense_sderf_log_second_moment(const Eigen::MatrixXd& a, const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  const Eigen::Index d = a.rows();
  const Eigen::MatrixXd i4 = Eigen::MatrixXd::Identity(d, d) - 4 * a, i8 = Eigen::MatrixXd::Identity(d, d) - 8 * a;
  const Eigen::VectorXd z = x + y;
  return std::log(i4.determinant()) - 0.5 * std::log(i8.determinant()) + 2 * z.dot(i4 * i8.lu().solve(z)) -
         x.squaredNorm() - y.squaredNorm();
}

// E[f(ω,x)² f(ω,y)²] for an SDERF feature in d = 2, straight from f(ω,u) = D exp(ωᵀAω + ωᵀBu − ‖u‖²/2),
// B = (I − 4A)^{1/2} (Eigen's operatorSqrt), D = det(I − 4A)^{1/4}, by nested Gauss–Kronrod over [−20, 20]² cut into
// 2-wide panels (the Gaussian-shaped integrand, widths ≥ 0.4 here, is negligible outside).
double log_sderf_second_moment_direct_d2(const Eigen::Matrix2d& a, const Eigen::Vector2d& x, const Eigen::Vector2d& y) {
  const Eigen::Matrix2d i4 = Eigen::Matrix2d::Identity() - 4 * a;
  const Eigen::Matrix2d b = Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(i4).operatorSqrt();
  const double log_dee = 0.25 * std::log(i4.determinant());
  const Eigen::Vector2d bx = b * x, by = b * y;
  auto log_f = [&](double w0, double w1, const Eigen::Vector2d& bu, double u_sq) {
    return log_dee + a(0, 0) * w0 * w0 + 2 * a(0, 1) * w0 * w1 + a(1, 1) * w1 * w1 + w0 * bu(0) + w1 * bu(1) - u_sq / 2;
  };
  auto integrand = [&](double w0, double w1) {
    return std::exp(-(w0 * w0 + w1 * w1) / 2 - std::log(2 * M_PI) + 2 * log_f(w0, w1, bx, x.squaredNorm()) +
                    2 * log_f(w0, w1, by, y.squaredNorm()));
  };
  auto panels = [](auto&& g) {
    double s = 0;
    for (int k = -10; k < 10; ++k) s += Quad::integrate(g, 2.0 * k, 2.0 * k + 2, 12, 1e-13);
    return s;
  };
  return std::log(panels([&](double w0) { return panels([&](double w1) { return integrand(w0, w1); }); }));
}

Eigen::MatrixXd random_orthogonal(int d, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd g(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) g(i, j) = normal(rng);
  return Eigen::HouseholderQR<Eigen::MatrixXd>(g).householderQ();
}

}  // namespace

TEST_CASE("[gerf] GERF one-feature moments: closed form vs direct 1-D integration (d = 1, m = 1)", "[gerf]") {
  // d = 1 geometries (x, y scalars). a covers very negative (a* at φ = 50 is ≈ −12.6), moderate, 0 and up to 1/8.
  const std::vector<std::pair<double, double>> pairs{{0.3, 0.5}, {1.0, -0.4}, {2.0, 1.5}, {3.5, 3.5}};
  for (const auto& [x, y] : pairs) {
    const double phi = (x + y) * (x + y);
    const Geometry g{std::abs(x), std::abs(y), x * y >= 0 ? 1.0 : -1.0};
    for (double a : {oprf_a_star(phi, 1), -12.6, -2.0, -0.3, 0.0, 0.05, 0.1, 0.124}) {
      INFO("x=" << x << " y=" << y << " a=" << a);
      // Gauss–Kronrod at 1e-13 on a smooth single-peaked integrand: the logs agree to ~1e-13 absolute, i.e. the
      // moments to ~1e-13 relative, plus the rounding of log integrands of size up to ≈ 6000 (a → 1/8, φ = 49):
      // 1e-11 relative to max(1, |log moment|).
      const double tol = 1e-11;
      CHECK(std::abs(log_moment_1d_direct(x, y, a, 1) - x * y) < tol);  // unbiased for SM
      const double direct = log_moment_1d_direct(x, y, a, 2);
      CHECK(std::abs(direct - gerf_log_second_moment(g, 1, a)) < tol * std::max(1.0, std::abs(direct)));
      // Power: the closed form at a perturbed a is detected (1% of |a|, at least 1e-3: a* is a minimum, where the
      // change is only second order).
      const double wrong = gerf_log_second_moment(g, 1, a - 0.01 * std::max(0.1, std::abs(a)));
      CHECK(std::abs(direct - wrong) > 100 * tol * std::max(1.0, std::abs(direct)));
    }
  }
}

TEST_CASE("[gerf] GERF at a = 0 is the positive estimator (Lemma 2), the GERF variance form agrees", "[gerf]") {
  for (int d : {1, 2, 16, 64})
    for (const Geometry& g0 : kGeometries) {
      const Geometry g = d == 1 ? Geometry{g0.x_norm, g0.y_norm, 1.0} : g0;
      for (int m : {1, 7, 64}) {
        INFO("d=" << d << " m=" << m << " phi=" << g.z_sq());
        // Both are SM²·expm1(φ)/m evaluated along different roundings: a few ulps.
        CHECK(rel_diff(gerf_mse_iid(g, d, 0.0, m), mse_positive(g, m)) < 1e-13);
        // Power: a = ±0.01 moves the MSE by a relative amount ≥ ~1e-4 at these φ — far above 1e-13.
        CHECK(rel_diff(gerf_mse_iid(g, d, 0.01, m), mse_positive(g, m)) > 1e-6);
        CHECK(rel_diff(gerf_mse_iid(g, d, -0.01, m), mse_positive(g, m)) > 1e-6);
      }
      // docs/theory.md#gerf: Var = (1 + 16a²/(1 − 8a))^{d/2} exp(−‖x‖² − ‖y‖² + (1 + 1/(1 − 8a))φ) − SM², i.e. the
      // same second moment.
      for (double a : {-1.0, -0.2, 0.07}) {
        const double stated = d / 2.0 * std::log(1 + 16 * a * a / (1 - 8 * a)) - g.x_norm * g.x_norm -
                              g.y_norm * g.y_norm + (1 + 1 / (1 - 8 * a)) * g.z_sq();
        CHECK(std::abs(stated - gerf_log_second_moment(g, d, a)) < 1e-12 * std::max(1.0, std::abs(stated)));
      }
    }
}

TEST_CASE("[gerf] OPRF a* minimises the one-feature second moment", "[gerf]") {
  CHECK(oprf_a_star(0, 7) == 0);
  for (int d : {1, 4, 16, 64})
    for (double phi : {1e-6, 0.1, 1.0, 4.0, 20.0, 50.0}) {
      INFO("d=" << d << " phi=" << phi);
      const double a = oprf_a_star(phi, d);
      CHECK(a <= 0);
      // The stationarity condition in ρ = 1/(1 − 8a): 2φρ² + (2φ + d)ρ − d = 0 (relative residual: rounding only).
      const double rho = 1 / (1 - 8 * a);
      CHECK(std::abs(2 * phi * rho * rho + (2 * phi + d) * rho - d) < 1e-12 * (2 * phi * rho * rho + (2 * phi + d) * rho + d));
      // Small-φ limit a* ≈ −φ/(2d) (first order; relative error O(φ/d)).
      if (phi == 1e-6) CHECK(a == Approx(-phi / (2 * d)).epsilon(1e-5));
      auto log_m2 = [&](double aa) { return gerf_log_relative_second_moment(phi, d, aa); };
      // A minimum: both neighbours at a relative step h are higher...
      const double h = 1e-3 * std::max(std::abs(a), 1e-3);
      CHECK(log_m2(a + h) > log_m2(a));
      CHECK(log_m2(a - h) > log_m2(a));
      // ...and the central difference of the derivative vanishes up to its O(h²) truncation and rounding/h.
      const double slope = (log_m2(a + h) - log_m2(a - h)) / (2 * h);
      const double scale = (log_m2(a + h) - 2 * log_m2(a) + log_m2(a - h)) / (h * h) * h;  // curvature × h
      CHECK(std::abs(slope) < 1e-3 * scale + 1e-9 * std::abs(log_m2(a)) / h);
      // Brute-force minimisation (Brent, 52 bits: x located to ~√eps relative) finds the same a.
      const double lo = std::min(-1.0, 4 * a - 1), hi = 0.1249;
      const auto best = boost::math::tools::brent_find_minima(log_m2, lo, hi, 52);
      CHECK(std::abs(best.first - a) < 1e-6 * std::max(1.0, std::abs(a)));
      CHECK(best.second >= log_m2(a) - 1e-12 * std::max(1.0, std::abs(log_m2(a))));
      // Power: the first-order guess −φ/(2d) and a 1% perturbation are visibly worse than a* (φ ≥ 1).
      if (phi >= 1) CHECK(log_m2(-phi / (2 * d)) > log_m2(a) + 1e-6 * std::abs(log_m2(a)));
      CHECK(log_m2(1.01 * a) > log_m2(a));
    }
}

TEST_CASE("[gerf] coupled pair moment at c = 0: 1F1, series and quadrature agree for every a", "[gerf]") {
  for (int d : {1, 2, 4, 16, 64})
    for (double phi : {0.01, 1.0, 4.0, 20.0, 50.0}) {
      if (d == 64 && phi > 20) continue;  // slowest quadrature; d = 64 at φ ≤ 20 and φ = 50 at d ≤ 16 cover it
      for (double a : {0.0, oprf_a_star(phi, d), -0.3, 0.1}) {
        INFO("d=" << d << " phi=" << phi << " a=" << a);
        const double closed = gerf_log_pair_moment_orthogonal(phi, d, a);
        // The series is summed in 50 digits to a 1e-32 tail: agreement is limited by Boost's ₁F₁ (~1e-14).
        CHECK(rel_diff(std::exp(gerf_log_pair_moment_series(phi, d, a, 0.0) - closed), 1.0) < 1e-12);
        // Quadrature: GK error estimates at these points are ≤ 1e-12 relative (asserted); 1e-10 leaves margin.
        double err = 1;
        const double quad = gerf_log_pair_moment_quadrature(phi, d, a, 0.0, &err);
        CHECK(err < 1e-11);
        CHECK(std::abs(std::expm1(quad - closed)) < 1e-10);
        // a = 0 is the positive estimator's R-ORF moment of kernels/orthogonal_mse.
        if (a == 0) {
          CHECK(std::abs(closed - log_orthogonal_pair_moment_1f1(std::sqrt(phi), d)) < 1e-14 * std::max(1.0, closed));
          CHECK(std::abs(std::expm1(closed - log_orthogonal_pair_moment_series(std::sqrt(phi), d))) < 1e-11);
        }
        // Power: counting the tilt once per row is off by far more than the tolerance whenever a ≠ 0
        // (and reduces to the right value at a = 0).
        const double single = log_pair_moment_single_tilt(phi, d, a);
        if (std::abs(a) > 1e-3) CHECK(std::abs(std::expm1(single - quad)) > 1e-4);
        if (a == 0) CHECK(std::abs(std::expm1(single - quad)) < 1e-10);
      }
    }
}

TEST_CASE("[gerf] coupled pair moment for any c: multinomial series and quadrature agree, and a drops out", "[gerf]") {
  for (int d : {2, 4, 16})
    for (double c : {-1.0, -1.0 / 3, -1.0 / 15, 0.5, 1.0})
      for (double phi : {0.5, 4.0, 20.0, 50.0}) {
        double previous_a_value = std::numeric_limits<double>::quiet_NaN();
        for (double a : {0.0, -0.3, 0.1}) {
          if (phi > 20 && a == -0.3) continue;  // time: the φ = 50 series are the slowest; two values of a suffice
          INFO("d=" << d << " c=" << c << " phi=" << phi << " a=" << a);
          const double series = gerf_log_pair_moment_series(phi, d, a, c);
          double err = 1;
          const double quad = gerf_log_pair_moment_quadrature(phi, d, a, c, &err);
          CHECK(err < 1e-11);  // quadrature's own estimate; the series' rounding is checked inside (< 1e-13)
          CHECK(std::abs(std::expm1(series - quad)) < 1e-10);
          // The tilt drops out (ρ(a) = ρ(0)): the series evaluates its a-dependent terms literally, so this checks
          // the substitution argument; agreement to rounding (the 50-digit sum, converted once).
          if (!std::isnan(previous_a_value)) CHECK(std::abs(series - previous_a_value) < 1e-14 * std::max(1.0, series));
          previous_a_value = series;
        }
        // ρ grows with c (R² does); at c = 0 it is ₁F₁; independent rows would give e^φ.
        const double rho_c = gerf_log_pair_moment_series(phi, d, 0.0, c);
        const double rho_0 = gerf_log_pair_moment_orthogonal(phi, d, 0.0);
        if (c < 0) CHECK(rho_c < rho_0);
        if (c > 0) CHECK(rho_c > rho_0);
        CHECK(rho_0 < phi);
      }
}

TEST_CASE("[gerf] d = 2 pair moments by direct integration of the feature products", "[gerf]") {
  const Eigen::Vector2d x(0.6, -0.3), y(0.5, 0.9);
  const double phi = (x + y).squaredNorm();
  for (bool simplex : {false, true})
    for (double a : {0.0, oprf_a_star(phi, 2), -0.3, 0.1}) {
      INFO((simplex ? "simplex" : "orthogonal") << " a=" << a);
      const double direct = log_rho_from_pair(log_pair_moment_direct_d2(x, y, a, simplex), x, y);
      const double c = simplex ? simplex_cosine(2) : 0.0;
      // Trapezoid (spectral) × Gauss–Kronrod at 1e-13: agreement to ~1e-12; 1e-10 for margin.
      CHECK(std::abs(std::expm1(direct - gerf_log_pair_moment_quadrature(phi, 2, a, c))) < 1e-10);
      CHECK(std::abs(std::expm1(direct - gerf_log_pair_moment_series(phi, 2, a, c))) < 1e-10);
      if (!simplex) CHECK(std::abs(std::expm1(direct - gerf_log_pair_moment_orthogonal(phi, 2, a))) < 1e-10);
      else CHECK(std::abs(std::expm1(direct - simplex_log_pair_moment(phi, 2, a))) < 1e-10);
      // Power: the single-tilt formula is refuted by the direct integral for a ≠ 0.
      if (!simplex && a != 0) CHECK(std::abs(std::expm1(direct - log_pair_moment_single_tilt(phi, 2, a))) > 1e-3);
    }
}

TEST_CASE("[gerf] exact GERF MSE with orthogonal blocks, the (1 - 1/m) OPRF-ORF correction", "[gerf]") {
  for (int d : {2, 4, 16, 64})
    for (const Geometry& g : kGeometries) {
      const double phi = g.z_sq();
      for (int m : {1, 3, d, 2 * d + 3}) {
        INFO("d=" << d << " m=" << m << " phi=" << phi);
        // a = 0: the positive estimator's exact orthogonal MSE of kernels/orthogonal_mse (computed there through a
        // cancellation-free gap series). Differences: ₁F₁ rounding (~1e-14 relative in ρ) amplified by the
        // cancellation e^{−φ}ρ − 1 ≈ O(φ) for small φ: 1e-10 relative to the MSE.
        CHECK(rel_diff(gerf_orthogonal_mse(g, d, 0.0, m), orthogonal_mse(Family::positive, g, d, m)) < 1e-10);
        const double a = oprf_a_star(phi, d);
        const double exact = gerf_orthogonal_mse(g, d, a, m);
        if (m == 1) CHECK(rel_diff(exact, gerf_mse_iid(g, d, a, 1)) < 1e-14);
        else CHECK(exact < gerf_mse_iid(g, d, a, m));  // coupling lowers the MSE (ρ < e^φ)
        // The correction is a-free: exact(a) − iid(a) = exact(0) − iid(0). Each difference cancels MSE values of size
        // iid: rounding of ~1e-15·iid, which at φ ≈ 40 is far larger than the correction itself (iid/corr ~ e^{22}).
        const double iid_a = gerf_mse_iid(g, d, a, m), iid_0 = mse_positive(g, m);
        const double corr_a = exact - iid_a, corr_0 = gerf_orthogonal_mse(g, d, 0.0, m) - iid_0;
        if (m > 1) CHECK(std::abs(corr_a - corr_0) < 1e-13 * std::max(iid_a, iid_0) + 1e-12 * std::abs(corr_0));
        // The (1 − 1/m) form (docs/theory.md#block-correction): right whenever the m rows form one block (m ≤ d)...
        const double stated = math_md_oprf_orf_mse_as_stated(g, d, a, m);
        if (m <= d) CHECK(rel_diff(stated, exact) < 1e-13);
        // ...and for m > d its (1 − 1/m) overstates the coupled pairs (P/m² < 1 − 1/m): it is lower than exact by
        // (1 − 1/m − P/m²) SM² (1 − e^{−φ}ρ), beyond rounding (1e-13 of the MSE) at every point here.
        if (m > d) {
          const double sm2 = std::exp(2 * g.dot());
          const double gap = (1 - 1.0 / m - same_block_pair_fraction(m, d)) * sm2 *
                             -std::expm1(gerf_log_pair_moment_orthogonal(phi, d, a) - phi);
          CHECK(exact - stated > 1e3 * 1e-16 * exact);
          CHECK(std::abs((exact - stated) - gap) < 1e-14 * exact + 1e-12 * gap);
        }
        // Power: the single-tilt pair moment gives a detectably different MSE at the OPRF a.
        if (m > 1 && std::abs(a) > 1e-3) {
          const double wrong = gerf_block_mse(g, d, a, m, log_pair_moment_single_tilt(phi, d, a));
          CHECK(rel_diff(wrong, exact) > 1e-6);
        }
      }
    }
}

TEST_CASE("[gerf] simplex MSE: series and quadrature, m = 1, ordering, a-free correction", "[gerf]") {
  for (int d : {2, 3, 4, 16})
    for (const Geometry& g : kGeometries) {
      const double phi = g.z_sq();
      INFO("d=" << d << " phi=" << phi);
      const double c = simplex_cosine(d);
      CHECK(c == -1.0 / (d - 1));
      const double series = simplex_log_pair_moment(phi, d, 0.0);
      double err = 1;
      CHECK(std::abs(std::expm1(series - gerf_log_pair_moment_quadrature(phi, d, 0.0, c, &err))) < 1e-10);
      CHECK(err < 1e-11);
      // Power: the cosine −1/d (an off-by-one in the simplex geometry) is detected by the same comparison.
      CHECK(std::abs(std::expm1(series - gerf_log_pair_moment_quadrature(phi, d, 0.0, -1.0 / d))) > 1e-6);
      for (int m : {1, 2, d, 3 * d + 1}) {
        INFO("m=" << m);
        const double a = oprf_a_star(phi, d);
        const double simplex = simplex_mse(g, d, a, m);
        if (m == 1) {
          CHECK(rel_diff(simplex, gerf_mse_iid(g, d, a, 1)) < 1e-14);
          continue;
        }
        // Simplex < orthogonal < iid for φ > 0 (ρ increases with c).
        CHECK(simplex < gerf_orthogonal_mse(g, d, a, m));
        // The m = d formula for positive features (docs/theory.md#simplex-random-features),
        // (SM²/m)[(e^φ − 1) + (m − 1)(e^{−φ}ρ − 1)].
        if (m == d) {
          const double sm2 = std::exp(2 * g.dot());
          const double stated = sm2 / m * (std::expm1(phi) + (m - 1) * std::expm1(series - phi));
          CHECK(rel_diff(simplex_mse(g, d, 0.0, m), stated) < 1e-13);
        }
        // The simplex correction is the same for every a (rounding as in the orthogonal case above).
        const double iid_a = gerf_mse_iid(g, d, a, m), iid_0 = mse_positive(g, m);
        const double corr_a = simplex - iid_a, corr_0 = simplex_mse(g, d, 0.0, m) - iid_0;
        CHECK(std::abs(corr_a - corr_0) < 1e-13 * std::max(iid_a, iid_0) + 1e-12 * std::abs(corr_0));
      }
    }
}

TEST_CASE("[gerf] SDERF: per-direction OPRF, reduces to GERF, factorised = dense = direct integral", "[gerf]") {
  std::mt19937_64 rng(20230611);
  // a_l is the d = 1 OPRF optimum at φ = λ_l.
  Eigen::VectorXd lambda(5);
  lambda << 0, 1e-8, 0.3, 4, 50;
  const Eigen::VectorXd al = sderf_eigen_a(lambda);
  for (int l = 0; l < 5; ++l) CHECK(al(l) == oprf_a_star(lambda(l), 1));
  CHECK(al(0) == 0);
  // A = a I: the SDERF formula is GERF's, whatever orthogonal q.
  for (int d : {1, 3, 8})
    for (const Geometry& g0 : kGeometries) {
      const Geometry g = d == 1 ? Geometry{g0.x_norm, g0.y_norm, -1.0} : g0;
      const Eigen::VectorXd x = geometry_x(g, d), y = geometry_y(g, d);
      const Eigen::MatrixXd q = random_orthogonal(d, rng);
      for (double a : {-0.7, oprf_a_star(g.z_sq(), d), 0.0, 0.1}) {
        const double want = gerf_log_second_moment(g, d, a);
        CHECK(std::abs(sderf_log_second_moment(Eigen::VectorXd::Constant(d, a), q, x, y) - want) <
              1e-12 * std::max(1.0, std::abs(want)));
        CHECK(rel_diff(sderf_mse_iid(Eigen::VectorXd::Constant(d, a), q, x, y, 5), gerf_mse_iid(g, d, a, 5)) < 1e-10);
      }
    }
  // General symmetric A (8A ≺ I): factorised form vs the dense determinant/solve form.
  for (int d : {2, 5, 12}) {
    std::normal_distribution<double> normal;
    for (int trial = 0; trial < 5; ++trial) {
      const Eigen::MatrixXd q = random_orthogonal(d, rng);
      Eigen::VectorXd a(d), x(d), y(d);
      for (int l = 0; l < d; ++l) a(l) = 0.12 - std::exp(normal(rng));  // all < 1/8, spread over (−∞, 0.12)
      for (int l = 0; l < d; ++l) x(l) = 0.6 * normal(rng), y(l) = 0.6 * normal(rng);
      const Eigen::MatrixXd amat = q * a.asDiagonal() * q.transpose();
      const double dense = dense_sderf_log_second_moment(amat, x, y);
      // LU determinants and solves of well-conditioned matrices (condition ≲ 1e3 here): ~1e-13 relative.
      CHECK(std::abs(sderf_log_second_moment(a, q, x, y) - dense) < 1e-11 * std::max(1.0, std::abs(dense)));
      // Power: perturbing one eigenvalue by 1e-2 is detected.
      Eigen::VectorXd a2 = a;
      a2(0) -= 1e-2;
      CHECK(std::abs(sderf_log_second_moment(a2, q, x, y) - dense) > 1e-8);
    }
  }
  // d = 2, non-diagonal A: the direct 2-D integral of f(ω,x)² f(ω,y)².
  {
    Eigen::Matrix2d amat;
    amat << -0.2, 0.06, 0.06, 0.05;
    const Eigen::Vector2d x(0.7, -0.2), y(0.3, 0.5);
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eig(amat);
    const double direct = log_sderf_second_moment_direct_d2(amat, x, y);
    const double factorised = sderf_log_second_moment(eig.eigenvalues(), eig.eigenvectors(), x, y);
    // Nested GK at 1e-13 per panel: ~1e-12.
    CHECK(std::abs(direct - factorised) < 1e-10);
    // Power: the same A with its off-diagonal dropped (a "diagonal-only" formula) is detected.
    const Eigen::Vector2d diag(amat(0, 0), amat(1, 1));
    CHECK(std::abs(direct - sderf_log_second_moment(diag, Eigen::Matrix2d::Identity(), x, y)) > 1e-4);
  }
}

TEST_CASE("[gerf] SDERF for one pair and for a set of pairs: SDERF <= OPRF <= positive, the fit is optimal", "[gerf]") {
  for (const Geometry& g : kGeometries) {
    const double phi = g.z_sq();
    double previous = std::numeric_limits<double>::quiet_NaN();
    for (int d : {2, 3, 16, 64}) {
      INFO("d=" << d << " phi=" << phi);
      const int m = 16;
      const double sderf = sderf_pair_mse_iid(g, d, m);
      const double oprf = gerf_mse_iid(g, d, oprf_a_star(phi, d), m);
      const double positive = mse_positive(g, m);
      CHECK(sderf <= oprf * (1 + 1e-14));
      CHECK(oprf <= positive * (1 + 1e-14));
      // Strict for d ≥ 2, φ > 0 (the first term's weight d/2 > 1/2 makes OPRF's optimum differ).
      CHECK(sderf < oprf);
      // The pair form equals the general form with M = zzᵀ (eigen-solver rounding: 1e-10).
      const Eigen::VectorXd x = geometry_x(g, d), y = geometry_y(g, d), z = x + y;
      const SderfParameters p = sderf_parameters(z * z.transpose());
      CHECK(rel_diff(sderf_mse_iid(p.a, p.q, x, y, m), sderf) < 1e-10);
      // No dependence on d (identical floating-point evaluation).
      if (!std::isnan(previous)) CHECK(sderf == previous);
      previous = sderf;
    }
    // In d = 1 SDERF and OPRF coincide.
    const Geometry g1{g.x_norm, g.y_norm, 1.0};
    CHECK(rel_diff(sderf_pair_mse_iid(g1, 1, 4), gerf_mse_iid(g1, 1, oprf_a_star(g1.z_sq(), 1), 4)) < 1e-14);
  }
  // A set of pairs: the SDERF fit minimises the mean over the pairs of the log second moment among A sharing M's
  // eigenbasis — perturbing any a_l either way increases it (power: a perturbation of 1e-3 is visible).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  const int d = 4, n = 6;
  std::vector<Eigen::VectorXd> xs, ys;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd x(d), y(d);
    for (int l = 0; l < d; ++l) x(l) = 0.5 * normal(rng) + 0.3, y(l) = 0.5 * normal(rng) - 0.1 * l;
    xs.push_back(x), ys.push_back(y);
  }
  Eigen::MatrixXd mm = Eigen::MatrixXd::Zero(d, d);
  for (const auto& x : xs)
    for (const auto& y : ys) mm += (x + y) * (x + y).transpose() / (n * n);
  const SderfParameters p = sderf_parameters(mm);
  auto mean_log = [&](const Eigen::VectorXd& a) {
    double s = 0;
    for (const auto& x : xs)
      for (const auto& y : ys) s += sderf_log_second_moment(a, p.q, x, y) / (n * n);
    return s;
  };
  const double best = mean_log(p.a);
  for (int l = 0; l < d; ++l)
    for (double h : {-1e-3, 1e-3}) {
      Eigen::VectorXd a = p.a;
      a(l) += h;
      CHECK(mean_log(a) > best);
    }
}

TEST_CASE("[gerf] parameter validation names the parameter", "[gerf]") {
  const Geometry g{1, 1, 0.5};
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(gerf_mse_iid(g, 4, 0.125, 4), Contains("parameter a"));
  CHECK_THROWS_WITH(gerf_mse_iid(g, 4, std::nan(""), 4), Contains("parameter a"));
  CHECK_THROWS_WITH(gerf_log_pair_moment_series(1, 4, 0.2, 0), Contains("parameter a"));
  CHECK_THROWS_WITH(gerf_mse_iid(g, 0, 0, 4), Contains("dimension d"));
  CHECK_THROWS_WITH(oprf_a_star(1, 0), Contains("dimension d"));
  CHECK_THROWS_WITH(gerf_mse_iid(g, 4, 0, 0), Contains("features m"));
  CHECK_THROWS_WITH(gerf_orthogonal_mse(g, 4, 0, -1), Contains("features m"));
  CHECK_THROWS_WITH(oprf_a_star(std::numeric_limits<double>::infinity(), 4), Contains("phi"));
  CHECK_THROWS_WITH(gerf_log_pair_moment_orthogonal(std::nan(""), 4, 0), Contains("phi"));
  CHECK_THROWS_WITH(gerf_log_pair_moment_quadrature(-1, 4, 0, 0), Contains("phi"));
  CHECK_THROWS_WITH(gerf_log_pair_moment_quadrature(1, 4, 0, 1.5), Contains("cosine c"));
  CHECK_THROWS_WITH(gerf_log_pair_moment_series(1, 4, 0, -1.01), Contains("cosine c"));
  CHECK_THROWS_WITH(simplex_cosine(1), Contains("dimension d >= 2"));
  CHECK_THROWS_WITH(simplex_mse(Geometry{1, 1, 1}, 1, 0, 1), Contains("dimension d >= 2"));
  CHECK_THROWS_WITH(simplex_log_pair_moment(1, 3, 0.5), Contains("parameter a"));
  Eigen::VectorXd bad(2);
  bad << 0.0, 0.125;
  CHECK_THROWS_WITH(sderf_log_second_moment(bad, Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Zero(2),
                                            Eigen::VectorXd::Zero(2)),
                    Contains("a[1]"));
  Eigen::VectorXd neg(1);
  neg << -0.5;
  CHECK_THROWS_WITH(sderf_eigen_a(neg), Contains("lambda[0]"));
  Eigen::MatrixXd asym(2, 2);
  asym << 1, 0.5, 0, 1;
  CHECK_THROWS_WITH(sderf_parameters(asym), Contains("symmetric"));
  CHECK_THROWS_WITH(sderf_pair_mse_iid(g, 4, 0), Contains("features m"));
}
