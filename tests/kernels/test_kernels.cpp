#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "features/family_theory.hpp"
#include "kernels/lemma2.hpp"
#include "kernels/smreg.hpp"
#include "kernels/softmax_kernel.hpp"

using namespace favorlab;

TEST_CASE("sphere MGF matches closed forms in d = 1 and d = 3", "[kernels]") {
  // d = 1: E = cosh t; d = 3: E = sinh(t)/t. Small t by their Taylor series (the closed forms cancel there).
  for (double t : {1e-3, 1e-2}) {
    const double t2 = t * t;
    CHECK(log_sphere_mgf(1, t) == Approx(t2 / 2 - t2 * t2 / 12 + t2 * t2 * t2 / 45).epsilon(1e-12));
    CHECK(log_sphere_mgf(3, t) == Approx(t2 / 6 - t2 * t2 / 180 + t2 * t2 * t2 / 2835).epsilon(1e-12));
  }
  for (double t : {0.5, 2.0, 40.0, 600.0}) {
    CHECK(log_sphere_mgf(1, t) == Approx(t + std::log1p(std::exp(-2 * t)) - std::log(2.0)).epsilon(1e-12));
    CHECK(log_sphere_mgf(3, t) == Approx(t + std::log(-std::expm1(-2 * t)) - std::log(2 * t)).epsilon(1e-12));
  }
}

TEST_CASE("the sphere MGF's moment series matches the closed forms in d = 1 and 3 and the Bessel form elsewhere",
          "[kernels]") {
  // The series never calls a Bessel function: d = 1 and 3 check it against elementary forms (their Taylor series at
  // small t, where they cancel), other d against the Bessel form. At t = √d‖z‖ over SMREG's domain ‖z‖ ≤ 37.6 the
  // logs agree to 1e-12 absolute (so M_d to 1e-12 relative): the rounding kRatioTolerance's analysis allows each.
  // Measured: 2e-13 at most on this grid; beyond the domain (t²/2d ≫ 700) the series' rounding grows (3e-11 at d = 2,
  // t = 600), which no check meets.
  for (int d : {1, 2, 3, 4, 16, 64, 256})
    for (double z : {1e-3, 0.1, 0.5, 2.0, 10.0, 25.0, 37.0}) {
      const double t = std::sqrt(static_cast<double>(d)) * z, t2 = t * t;
      double reference = log_sphere_mgf(d, t);
      if (d == 1)
        reference = t < 0.01 ? t2 / 2 - t2 * t2 / 12 + t2 * t2 * t2 / 45
                             : t + std::log1p(std::exp(-2 * t)) - std::log(2.0);
      if (d == 3)
        reference = t < 0.01 ? t2 / 6 - t2 * t2 / 180 + t2 * t2 * t2 / 2835
                             : t + std::log(-std::expm1(-2 * t)) - std::log(2 * t);
      INFO("d=" << d << " t=" << t);
      CHECK(std::abs(log_sphere_mgf_series(d, t) - reference) <= 1e-12);
    }
  CHECK(log_sphere_mgf_series(5, 0.0) == 0.0);
  CHECK_THROWS_AS(log_sphere_mgf_series(0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(log_sphere_mgf_series(4, -1.0), std::invalid_argument);
}

TEST_CASE("log I_nu stays continuous where the computation switches to the asymptotic series", "[kernels]") {
  for (int d : {2, 8, 32}) {
    const double below = log_sphere_mgf(d, 10999.0), above = log_sphere_mgf(d, 11001.0);
    // d/dt log E[e^{t u1}] → 1 − (d−1)/(2t) for large t: the step over Δt = 2 must match it.
    const double slope = 1 - (d - 1) / (2 * 11000.0);
    CHECK((above - below) / 2 == Approx(slope).epsilon(1e-6));
  }
}

TEST_CASE("SMREG: Bessel closed form and the series (eq. 30) agree, and SMREG <= SM", "[kernels]") {
  for (int d : {1, 2, 3, 4, 16, 64, 256}) {
    for (double xn : {0.1, 1.0, 3.0, 10.0}) {
      for (double c : {-1.0, -0.3, 0.0, 0.7, 1.0}) {
        const Geometry g{xn, xn * 0.8, d == 1 ? (c < 0 ? -1.0 : 1.0) : c};
        const double exact = log_smreg_exact(g, d), series = g.dot() + log_smreg_ratio_series(g, d);
        INFO("d=" << d << " x_norm=" << xn << " cos=" << g.cos_angle);
        CHECK(exact == Approx(series).margin(1e-10 * std::max(1.0, std::abs(series))));
        CHECK(exact <= g.dot() + 1e-12);  // Theorem 1: SMREG ≤ SM
      }
    }
  }
}

TEST_CASE("Lemma 2 closed forms equal the variance from exact feature moments", "[kernels]") {
  // Two independent derivations: eq. 8 versus the 50-digit moments of one feature divided by m.
  for (double xn : {0.1, 0.7, 1.5})
    for (double yn : {0.3, 1.2})
      for (double c : {-1.0, -0.5, 0.2, 1.0}) {
        const Geometry g{xn, yn, c};
        INFO("x_norm=" << xn << " y_norm=" << yn << " cos=" << c);
        for (int m : {1, 16}) {
          CHECK(error_moments(Family::trig, g, 8, m).variance == Approx(mse_trig(g, m)).epsilon(1e-10));
          CHECK(error_moments(Family::positive, g, 8, m).variance == Approx(mse_positive(g, m)).epsilon(1e-10));
          CHECK(error_moments(Family::hyperbolic, g, 8, m).variance ==
                Approx(mse_hyperbolic(g, m)).epsilon(1e-10));
        }
      }
}

TEST_CASE("Lemma 2 orderings: hyperbolic(m) < positive(2m), trig/positive blows up as SM -> 0", "[kernels]") {
  for (double r : {0.3, 1.0, 2.0, 3.0}) {
    const Geometry g{r, r, -0.7};
    CHECK(mse_hyperbolic(g, 8) < mse_positive(g, 16));
  }
  double previous = 0;
  for (double r : {0.5, 1.0, 2.0, 3.0, 4.0}) {  // SM = exp(−0.7 r²) falls
    const Geometry g{r, r, -0.7};
    const double ratio = mse_trig(g, 1) / mse_positive(g, 1);
    CHECK(ratio > previous);
    previous = ratio;
  }
  CHECK(previous > 1e10);
}

TEST_CASE("error skewness: one positive feature is lognormal", "[kernels]") {
  // X = Λ e^a, a ~ N(0, s²): skewness (e^{s²} + 2) √(e^{s²} − 1); the mean of m features has skewness / √m.
  for (double s2 : {0.01, 0.5, 2.0}) {
    const Geometry g{std::sqrt(s2 / 2), std::sqrt(s2 / 2), 0.0};  // ‖z‖² = s²
    const double lognormal = (std::exp(s2) + 2) * std::sqrt(std::expm1(s2));
    CHECK(error_moments(Family::positive, g, 4, 1).error_skewness == Approx(lognormal).epsilon(1e-9));
    CHECK(error_moments(Family::positive, g, 4, 9).error_skewness == Approx(lognormal / 3).epsilon(1e-9));
  }
  // Where the estimator is exact (positive at z = 0) the moments say so.
  CHECK(error_moments(Family::positive, Geometry{0.8, 0.8, -1.0}, 4, 4).degenerate);
}

TEST_CASE("geometry validation", "[kernels]") {
  CHECK_THROWS_AS(validate_geometry({-1, 1, 0}, 4), std::invalid_argument);
  CHECK_THROWS_AS(validate_geometry({1, NAN, 0}, 4), std::invalid_argument);
  CHECK_THROWS_AS(validate_geometry({1, 1, 1.5}, 4), std::invalid_argument);
  CHECK_THROWS_AS(validate_geometry({1, 1, 0.5}, 1), std::invalid_argument);
  CHECK_NOTHROW(validate_geometry({1, 1, -1}, 1));
}

TEST_CASE("Gaussian kernel: SM = exp(|x|^2/2) K_gauss exp(|y|^2/2)", "[kernels]") {
  for (const Geometry g : {Geometry{0.3, 1.1, -0.4}, Geometry{1.5, 0.2, 0.9}, Geometry{0.7, 0.7, -1.0}})
    CHECK(softmax_kernel(g) ==
          Approx(std::exp(g.x_norm * g.x_norm / 2) * gaussian_kernel(g) * std::exp(g.y_norm * g.y_norm / 2))
              .epsilon(1e-14));
}
