// Lemma 3 (moments of u₁ = ωᵀe₁/‖ω‖) and Lemma 6 (τ ≤ d/(d+2)) of the Performers paper: the closed forms against
// known values and second methods (quadrature, recursions, exact rationals), the partition reduction of the τ search
// against brute-force enumeration of compositions, the Monte Carlo against the formula, and power tests.
// Statistical cases state their family-wise α (kAlpha, Bonferroni over their points), use fixed seeds, and REQUIRE
// every point to be conclusive.
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/math/special_functions/binomial.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "cli_runner.hpp"
#include "kernels/chi_moments.hpp"
#include "kernels/sphere_moments.hpp"
#include "kernels/tau_maximum.hpp"
#include "mc/sphere_moment_sweep.hpp"
#include "stats/claim_check.hpp"
#include "stats/edgeworth.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/second_order_edgeworth.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-6;

// E[u₁^{2k}] by quadrature of the density of u₁, c_d (1 − s²)^{(d−3)/2} on (−1, 1), normalised numerically too.
double sphere_moment_by_quadrature(int power, int d) {
  boost::math::quadrature::tanh_sinh<double> integrator;
  const auto weight = [d](double s) { return std::pow(1 - s * s, (d - 3) / 2.0); };
  const double norm = integrator.integrate(weight, -1.0, 1.0);
  return integrator.integrate([&](double s) { return std::pow(s, power) * weight(s); }, -1.0, 1.0) / norm;
}

// E‖g‖^j by quadrature of the chi density r^{d−1} e^{−r²/2} / (2^{d/2−1} Γ(d/2)) on (0, ∞).
double chi_moment_by_quadrature(int d, double j) {
  boost::math::quadrature::exp_sinh<double> integrator;
  const double log_c = (d / 2.0 - 1) * std::log(2.0) + std::lgamma(d / 2.0);
  return integrator.integrate(
      [&](double r) { return r > 0 ? std::exp((j + d - 1) * std::log(r) - r * r / 2 - log_c) : 0.0; }, 0.0,
      std::numeric_limits<double>::infinity());
}

// τ by exact rationals from μ(2a) = d(d+2)⋯(d+2a−2) (even parts only).
double tau_exact_rational(int d, const std::vector<int>& parts) {
  using boost::multiprecision::cpp_int;
  const auto mu = [d](int j) {
    cpp_int out = 1;
    for (int i = 0; i < j / 2; ++i) out *= d + 2 * i;
    return out;
  };
  cpp_int num = 1;
  int total = 0;
  for (int p : parts) {
    num *= mu(p);
    total += p;
  }
  const boost::multiprecision::cpp_rational r(num, mu(total));
  return static_cast<double>(r);
}

// Brute force: every composition (d_1..d_m) with parts multiples of `step`, Σ ≤ max_total, ≥ min_nonzero non-zero;
// τ from tau() directly (no table, no partitions).
struct BruteForce {
  double max_tau = 0;
  std::vector<int> argmax;  // sorted non-increasing non-zero parts
  double count = 0;
  std::set<std::vector<int>> multisets;
};

BruteForce brute_force_tau(int d, int m, int max_total, int step, int min_nonzero) {
  BruteForce b;
  std::vector<int> comp(static_cast<std::size_t>(m), 0);
  std::function<void(int, int)> rec = [&](int i, int sum) {
    if (i == m) {
      std::vector<int> nonzero;
      for (int p : comp)
        if (p) nonzero.push_back(p);
      if (static_cast<int>(nonzero.size()) < min_nonzero) return;
      std::sort(nonzero.rbegin(), nonzero.rend());
      ++b.count;
      b.multisets.insert(nonzero);
      const double t = tau(d, comp);
      if (t > b.max_tau * (1 + 1e-12)) {
        b.max_tau = t;
        b.argmax = nonzero;
      }
      return;
    }
    for (int p = 0; sum + p <= max_total; p += step) {
      comp[static_cast<std::size_t>(i)] = p;
      rec(i + 1, sum + p);
    }
  };
  rec(0, 0);
  return b;
}

}  // namespace

TEST_CASE("A(2k, d): known values and the formula's two forms", "[moments][lemma3]") {
  for (int k = 0; k <= 30; ++k) {
    INFO("k = " << k);
    CHECK(sphere_moment(2 * k, 1) == Approx(1.0).epsilon(1e-14));               // u₁ = ±1
    CHECK(sphere_moment(2 * k, 3) == Approx(1.0 / (2 * k + 1)).epsilon(1e-13));  // Archimedes: u₁ ~ U(−1, 1)
    // d = 2: u₁ = cos θ, E cos^{2k} θ = C(2k, k)/4^k.
    CHECK(sphere_moment(2 * k, 2) ==
          Approx(boost::math::binomial_coefficient<double>(2 * k, k) / std::pow(4.0, k)).epsilon(1e-13));
    CHECK(sphere_moment(2 * k + 1, 7) == 0.0);
  }
  CHECK(sphere_moment(2, 128) == Approx(1.0 / 128).epsilon(1e-15));
  CHECK(sphere_moment(4, 10) == Approx(3.0 / (10 * 12)).epsilon(1e-15));
  CHECK(sphere_moment(0, 5) == 1.0);
  // The log-gamma form agrees with the product form, and stays finite where the moment underflows.
  for (int d : {2, 5, 64, 1000})
    for (int k : {1, 3, 17, 100, 256}) {
      INFO("d = " << d << ", k = " << k);
      const double product = sphere_moment(2 * k, d);
      if (product > 1e-300) CHECK(std::exp(log_sphere_moment_even(k, d)) == Approx(product).epsilon(1e-11));
    }
  CHECK(std::isfinite(log_sphere_moment_even(100000, 100000)));
  CHECK(sphere_moment(2 * 1000, 4) == Approx(std::exp(log_sphere_moment_even(1000, 4))).epsilon(1e-10));
}

TEST_CASE("A(2k, d) against quadrature of the density of u1", "[moments][lemma3]") {
  for (int d : {3, 4, 5, 8, 16, 33})
    for (int power : {1, 2, 3, 4, 6, 8, 12}) {
      INFO("d = " << d << ", power " << power);
      CHECK(sphere_moment(power, d) == Approx(sphere_moment_by_quadrature(power, d)).margin(1e-13).epsilon(1e-10));
    }
}

TEST_CASE("skewness of u1^2k: exact closed forms", "[moments][lemma3]") {
  // d = 3: u₁² = U² with U ~ U(0, 1), X = U^{2k}: E X^j = 1/(2kj + 1).
  for (int k = 1; k <= 6; ++k) {
    const double m1 = 1.0 / (2 * k + 1), m2 = 1.0 / (4 * k + 1), m3 = 1.0 / (6 * k + 1);
    const double var = m2 - m1 * m1;
    CHECK(sphere_power_skewness(2 * k, 3) == Approx((m3 - 3 * m1 * m2 + 2 * m1 * m1 * m1) / std::pow(var, 1.5)));
  }
  CHECK(sphere_power_skewness(2, 2) == Approx(0.0).margin(1e-12));  // cos²θ is symmetric about ½ (arcsine law)
  CHECK(sphere_power_skewness(2, 10'000'000) == Approx(std::sqrt(8.0)).epsilon(1e-5));  // → χ²₁/d
  CHECK(sphere_power_skewness(5, 16) == 0.0);
  CHECK(sphere_power_skewness(4, 1) == 0.0);
}

TEST_CASE("excess kurtosis of u1^n: exact closed forms, second-order Edgeworth helpers", "[moments][lemma3]") {
  // d = 3: u₁ ~ U(−1, 1). Odd p: E X² = 1/(2p+1), E X⁴ = 1/(4p+1). Even p: X = U^p on (0, 1), E X^j = 1/(pj+1).
  for (int p : {1, 3, 5, 11}) {
    const double m2 = 1.0 / (2 * p + 1), m4 = 1.0 / (4 * p + 1);
    CHECK(sphere_power_excess_kurtosis(p, 3) == Approx(m4 / (m2 * m2) - 3).epsilon(1e-12));
  }
  for (int p : {2, 4, 8}) {
    const auto e = [p](int j) { return 1.0 / (p * j + 1); };
    const double mu = e(1), var = e(2) - mu * mu;
    const double c4 = e(4) - 4 * mu * e(3) + 6 * mu * mu * e(2) - 3 * std::pow(mu, 4);
    CHECK(sphere_power_excess_kurtosis(p, 3) == Approx(c4 / (var * var) - 3).epsilon(1e-10));
  }
  CHECK(sphere_power_excess_kurtosis(1, 10'000'000) == Approx(0.0).margin(1e-5));  // → normal
  CHECK(sphere_power_excess_kurtosis(2, 10'000'000) == Approx(12.0).epsilon(1e-5));  // → χ²₁: 12
  // Normal draws (γ = κ = 0) still carry the t statistic's own 1/n term; heavy kurtosis needs proportionally more.
  const double z = two_sided_critical_z(1e-4);
  CHECK(trials_for_second_order_z_test(0, 0, z, 1e-4) < 1000);
  CHECK(trials_for_second_order_z_test(0, 1e6, z, 1e-4) > 1e7);
}

TEST_CASE("chi MGF: closed forms at d = 1 and 2, quadrature at large d and t", "[moments][compare]") {
  // d = 1: E[e^{t|g|}] = 2 e^{t²/2} Φ(t); d = 2 (Rayleigh): 1 + t e^{t²/2} √(π/2) (1 + erf(t/√2)).
  for (double t : {0.0, 0.3, 2.0, 8.0}) {
    INFO("t = " << t);
    CHECK(log_chi_mgf(1, t) == Approx(std::log(2.0) + t * t / 2 + std::log(0.5 * std::erfc(-t / std::sqrt(2.0))))
                                   .epsilon(1e-12)
                                   .margin(1e-15));
    CHECK(std::exp(log_chi_mgf(2, t)) ==
          Approx(1 + t * std::exp(t * t / 2) * std::sqrt(M_PI / 2) * (1 + std::erf(t / std::sqrt(2.0)))).epsilon(1e-12));
  }
  // d = 256, t = 8 (the largest a structured row asks for: 4‖z‖ at ‖z‖ = 2): e^{t r} against the density by quadrature.
  for (int d : {16, 256})
    for (double t : {2.0, 8.0}) {
      INFO("d = " << d << ", t = " << t);
      boost::math::quadrature::exp_sinh<double> integrator;
      const double log_c = (d / 2.0 - 1) * std::log(2.0) + std::lgamma(d / 2.0), top = t * std::sqrt(d - 1.0);
      // Scaled by e^{−top} (about the integrand's peak) so that the quadrature stays in range.
      const double scaled = integrator.integrate(
          [&](double r) { return r > 0 ? std::exp(t * r - top + (d - 1) * std::log(r) - r * r / 2 - log_c) : 0.0; },
          0.0, std::numeric_limits<double>::infinity());
      CHECK(log_chi_mgf(d, t) == Approx(top + std::log(scaled)).epsilon(1e-10));
    }
  CHECK_THROWS_AS(log_chi_mgf(4, -1.0), std::invalid_argument);
}

TEST_CASE("chi moments mu(j): recursion, known values, quadrature", "[moments][lemma6]") {
  for (int d : {1, 2, 3, 7, 64})
    for (double j : {0.0, 0.5, 1.0, 2.0, 3.0, 7.5, 20.0}) {
      INFO("d = " << d << ", j = " << j);
      CHECK(chi_moment(d, j + 2) == Approx((d + j) * chi_moment(d, j)).epsilon(1e-12));
    }
  CHECK(chi_moment(1, 1) == Approx(std::sqrt(2 / M_PI)).epsilon(1e-14));
  CHECK(chi_moment(5, 2) == Approx(5.0).epsilon(1e-14));
  CHECK(chi_moment(5, 4) == Approx(35.0).epsilon(1e-14));
  CHECK(chi_moment(9, 0) == 1.0);
  for (int d : {1, 4, 9})
    for (double j : {1.0, 2.5, 6.0}) {
      INFO("d = " << d << ", j = " << j);
      CHECK(chi_moment(d, j) == Approx(chi_moment_by_quadrature(d, j)).epsilon(1e-9));
    }
}

TEST_CASE("tau: closed forms, tau(2, 2) equals the Lemma 6 bound exactly", "[moments][lemma6]") {
  for (int d = 1; d <= 200; d += 7) {
    INFO("d = " << d);
    // μ(2)²/μ(4) = d²/(d(d+2)) = d/(d+2): the lemma's "≤" is attained with equality.
    const double tol = tau_rounding_tolerance(d, 6);  // log-gamma rounding (see tau_maximum.hpp)
    CHECK(tau(d, {2, 2}) == Approx(lemma6_bound(d)).epsilon(tol));
    CHECK(exact_tau_vs_lemma6_bound(d, {2, 2}) == 0);
    CHECK(exact_tau_vs_lemma6_bound(d, {2, 2, 0, 0}) == 0);
    CHECK(tau(d, {2, 4}) == Approx(d / (d + 4.0)).epsilon(tol));
    CHECK(exact_tau_vs_lemma6_bound(d, {4, 2}) == -1);
    CHECK(tau(d, {2, 2, 2}) == Approx(d * d / ((d + 2.0) * (d + 4))).epsilon(tol));
    CHECK(tau(d, {6, 0, 4, 0}) == Approx(tau(d, {4, 6})).epsilon(1e-14));
    CHECK(tau(d, {8}) == Approx(1.0).epsilon(1e-14));  // one non-zero part: τ = 1, outside the lemma
    CHECK(exact_tau_vs_lemma6_bound(d, {8, 0}) == 1);
    for (const std::vector<int>& parts : std::vector<std::vector<int>>{{2, 2}, {4, 6, 2}, {10, 2, 2, 2}, {20, 18}})
      CHECK(tau(d, parts) == Approx(tau_exact_rational(d, parts)).epsilon(tau_rounding_tolerance(d, 40)));
  }
}

TEST_CASE("the rounding tolerance of log-gamma tau bounds its actual error", "[moments][lemma6]") {
  // Every partition of total ≤ 40 into even parts: log τ from log_tau against 50-digit products of d + 2i.
  for (int d : {2, 7, 128, 1000, 20000}) {
    const double tol = tau_rounding_tolerance(d, 40);
    double worst = 0;
    for (int n = 2; n <= 20; ++n)
      for_each_partition(n, n, [&](const std::vector<int>& units) {
        using Big = boost::multiprecision::cpp_bin_float_50;
        Big num = 1, den = 1;
        std::vector<int> parts;
        for (int a : units) {
          parts.push_back(2 * a);
          for (int i = 0; i < a; ++i) num *= d + 2 * i;
        }
        for (int i = 0; i < n; ++i) den *= d + 2 * i;
        worst = std::max(worst, std::abs(log_tau(d, parts) - static_cast<double>(log(num / den))));
      });
    INFO("d = " << d << ": worst error " << worst << ", tolerance " << tol);
    CHECK(worst <= tol);
    CHECK(worst > tol / 1e4);  // and not absurdly loose
  }
}

TEST_CASE("integer partitions: counts", "[moments][lemma6]") {
  const std::vector<int> p{1, 1, 2, 3, 5, 7, 11, 15, 22, 30, 42, 56, 77, 101, 135, 176, 231, 297, 385, 490, 627};
  for (int n = 1; n <= 20; ++n) {
    int count = 0;
    for_each_partition(n, n, [&](const std::vector<int>& parts) {
      int sum = 0;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        sum += parts[i];
        if (i) REQUIRE(parts[i] <= parts[i - 1]);
      }
      REQUIRE(sum == n);
      ++count;
    });
    CHECK(count == p[static_cast<std::size_t>(n)]);
  }
  // At most k parts: p_k(n) = p_{k−1}(n) + p_k(n − k).
  std::map<std::pair<int, int>, int> pk;
  const std::function<int(int, int)> rec = [&](int n, int k) -> int {
    if (n == 0) return 1;
    if (k == 0 || n < 0) return 0;
    return rec(n, k - 1) + rec(n - k, k);
  };
  for (int n = 1; n <= 16; ++n)
    for (int k = 1; k <= 6; ++k) {
      int count = 0;
      for_each_partition(n, k, [&](const std::vector<int>& parts) { count += static_cast<int>(parts.size()) <= k; });
      CHECK(count == rec(n, k));
    }
  CHECK(compositions_of_multiset({2, 2}, 4) == 6);
  CHECK(compositions_of_multiset({4, 2}, 4) == 12);
  CHECK(compositions_of_multiset({2, 4, 2}, 3) == 3);
  CHECK(compositions_of_multiset({2, 2, 2}, 2) == 0);
}

TEST_CASE("the partition reduction of the tau search agrees with brute-force compositions", "[moments][lemma6]") {
  for (int step : {2, 1})
    for (int min_nonzero : {2, 1})
      for (int d : {2, 3, 5, 12})
        for (int m : {2, 3, 4})
          for (int total : {4, 8, 12}) {
            INFO("d=" << d << " m=" << m << " total=" << total << " step=" << step << " min_nonzero=" << min_nonzero);
            const TauSearchResult s = search_tau_maximum({d, m, total, step, min_nonzero});
            const BruteForce b = brute_force_tau(d, m, total, step, min_nonzero);
            CHECK(s.compositions_covered == b.count);
            CHECK(s.partitions_evaluated == static_cast<std::int64_t>(b.multisets.size()));
            CHECK(std::exp(s.max_log_tau) == Approx(b.max_tau).epsilon(1e-12));
            CHECK(s.argmax == b.argmax);
          }
}

TEST_CASE("Lemma 6 holds exhaustively, with equality at the unique maximiser (2, 2)", "[moments][lemma6]") {
  for (int d = 2; d <= 64; ++d) {
    INFO("d = " << d);
    const TauSearchResult s = search_tau_maximum({d, d, 40, 2, 2});
    CHECK(s.partitions_above_bound == 0);
    CHECK(s.argmax == std::vector<int>{2, 2});
    CHECK(exact_tau_vs_lemma6_bound(d, s.argmax) == 0);
    CHECK(s.runner_up == std::vector<int>{4, 2});
    CHECK(std::exp(s.runner_up_log_tau) == Approx(d / (d + 4.0)).epsilon(1e-12));
  }
  // Compositions for m = d = 128 and total ≤ 40 stand for ~10²⁵ compositions through a few thousand partitions.
  const TauSearchResult big = search_tau_maximum({128, 128, 40, 2, 2});
  CHECK(big.partitions_evaluated < 3000);
  CHECK(big.compositions_covered > 1e24);
}

TEST_CASE("Lemma 6 check has power: its hypotheses are needed", "[moments][lemma6][power]") {
  for (int d : {2, 8, 64}) {
    INFO("d = " << d);
    // One non-zero part: τ = 1 > d/(d+2).
    const TauSearchResult single = search_tau_maximum({d, d, 20, 2, 1});
    CHECK(single.partitions_above_bound > 0);
    CHECK(single.argmax.size() == 1);
    // Odd parts: τ(1, 1) = μ(1)²/d ≈ 1 − 1/(2d) exceeds d/(d+2) ≈ 1 − 2/d.
    const TauSearchResult odd = search_tau_maximum({d, d, 20, 1, 2});
    CHECK(odd.partitions_above_bound > 0);
    CHECK(odd.argmax == std::vector<int>{1, 1});
    CHECK(tau(d, {1, 1}) > lemma6_bound(d));
  }
}

TEST_CASE("Lemma 3 by Monte Carlo: E[u1^n] matches the formula", "[statistical][moments][lemma3]") {
  const std::vector<int> dims{2, 3, 8, 16};
  constexpr int kMaxPower = 6;
  const SphereMomentResult r = run_sphere_moment_sweep({dims, kMaxPower, 2021, 500000, 2});
  // Power test: the formula with d + 2 in place of d, and the Gaussian approximation (2k−1)!!/d^k, must be caught.
  for (int variant = 0; variant < 3; ++variant) {
    ClaimCheck check("E[u1^n]", "test", kAlpha, dims.size() * kMaxPower);
    for (std::size_t i = 0; i < dims.size(); ++i)
      for (int power = 1; power <= kMaxPower; ++power) {
        const int d = dims[i];
        double theory = sphere_moment(power, d);
        if (variant == 1) theory = sphere_moment(power, d + 2);
        if (variant == 2 && power % 2 == 0) {  // E[(g₁/√d)^{2k}]: ignores the normalisation by ‖ω‖
          double double_factorial = 1;
          for (int j = 1; j < power; j += 2) double_factorial *= j;
          theory = double_factorial / std::pow(d, power / 2);
        }
        const RunningMoments& m = r.at(i, power);
        REQUIRE(m.count() >= trials_for_second_order_z_test(sphere_power_skewness(power, d),
                                                            sphere_power_excess_kurtosis(power, d),
                                                            check.critical_z(), bonferroni_alpha(kAlpha, 4 * 6)));
        const PointVerdict v = check.judge({m.mean(), theory, m.standard_error(), 1e-12 * theory,
                                            sphere_power_skewness(power, d), m.count(), 0, "p"});
        INFO("variant " << variant << " d=" << d << " power " << power << " z=" << v.z << " needs "
                        << v.trials_needed);
        REQUIRE(v.reliable);
      }
    INFO("variant " << variant);
    CHECK((((variant == 0)) ? (check.result().status) != Verdict::violated : (check.result().status) == Verdict::violated));
  }
}

TEST_CASE("sphere moment sweep: the same seed gives bit-identical moments with 1 and 2 threads", "[determinism]") {
  SphereMomentConfig c{{3, 17}, 5, 11, 2345 /* not a multiple of the block size */, 1};
  const SphereMomentResult one = run_sphere_moment_sweep(c);
  c.threads = 2;
  const SphereMomentResult two = run_sphere_moment_sweep(c);
  for (std::size_t i = 0; i < c.dims.size(); ++i)
    for (int p = 1; p <= 5; ++p) {
      CHECK(one.at(i, p).count() == 2345);
      CHECK(one.at(i, p).mean() == two.at(i, p).mean());
      CHECK(one.at(i, p).variance() == two.at(i, p).variance());
    }
  // A dimension's draws do not depend on which other dimensions are swept.
  c.dims = {17};
  const SphereMomentResult alone = run_sphere_moment_sweep(c);
  CHECK(alone.at(0, 3).mean() == one.at(1, 3).mean());
}

TEST_CASE("moments library rejects bad input", "[moments]") {
  CHECK_THROWS_AS(sphere_moment(2, 0), std::invalid_argument);
  CHECK_THROWS_AS(sphere_moment(-2, 3), std::invalid_argument);
  CHECK_THROWS_AS(log_sphere_moment_even(-1, 3), std::invalid_argument);
  CHECK_THROWS_AS(sphere_power_skewness(2, 0), std::invalid_argument);
  CHECK_THROWS_AS(chi_moment(0, 2), std::invalid_argument);
  CHECK_THROWS_AS(chi_moment(3, -1), std::invalid_argument);
  CHECK_THROWS_AS(chi_moment(3, std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(tau(3, {2, -2}), std::invalid_argument);
  CHECK_THROWS_AS(exact_tau_vs_lemma6_bound(3, {1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(for_each_partition(0, 2, [](const std::vector<int>&) {}), std::invalid_argument);
  CHECK_THROWS_AS(search_tau_maximum({0, 2, 40, 2, 2}), std::invalid_argument);
  CHECK_THROWS_AS(search_tau_maximum({4, 1, 40, 2, 2}), std::invalid_argument);  // m = 1 admits no two parts
  CHECK_THROWS_AS(search_tau_maximum({4, 4, 3, 2, 2}), std::invalid_argument);   // total 3 admits no (2, 2)
  CHECK_THROWS_AS(search_tau_maximum({4, 4, 40, 0, 2}), std::invalid_argument);
  CHECK_THROWS_AS(run_sphere_moment_sweep({{}, 4, 1, 100, 1}), std::invalid_argument);
  CHECK_THROWS_AS(run_sphere_moment_sweep({{3, 3}, 4, 1, 100, 1}), std::invalid_argument);
  CHECK_THROWS_AS(run_sphere_moment_sweep({{0}, 4, 1, 100, 1}), std::invalid_argument);
  CHECK_THROWS_AS(run_sphere_moment_sweep({{3}, 0, 1, 100, 1}), std::invalid_argument);
  CHECK_THROWS_AS(run_sphere_moment_sweep({{3}, 4, 1, 1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(run_sphere_moment_sweep({{3}, 4, 1, 100, 0}), std::invalid_argument);
}

TEST_CASE("favorlab moments: result rows and checks, bad options exit 2", "[cli][moments]") {
  using namespace favorlab::testing;
  const auto dir = scratch_dir("moments");
  const auto run = run_cli("moments --d 3,8 --max-k 2 --trials 4000 --tau-d-max 10 --quiet --out m.json", dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "m.json"));
  CHECK(doc["experiment"] == "moments");
  std::size_t sphere_rows = 0, tau_rows = 0;
  for (const auto& row : doc["rows"]) {
    if (row["kind"] == "sphere_moment") {
      ++sphere_rows;
      for (const char* key :
           {"d", "power", "k", "a_theory", "mean", "stderr", "z", "trials", "status", "trials_needed"})
        CHECK(row.contains(key));
    } else {
      REQUIRE(row["kind"] == "tau");
      ++tau_rows;
      const int d = row["d"];
      CHECK(row["argmax"] == (d == 2 ? "(2, 2)" : d == 3 ? "(2, 2, 0)" : d == 4 ? "(2, 2, 0, 0)" : "(2, 2, 0, …, 0)"));
      CHECK(row["exact_comparison"] == "equal");
      CHECK(row["status"] == "holds");
    }
  }
  CHECK(sphere_rows == 2 * 4);
  CHECK(tau_rows == 9);
  REQUIRE(doc["checks"].size() == 4);
  CHECK(doc["checks"][2]["status"] == "holds");
  CHECK(doc["checks"][3]["status"] == "holds");

  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"moments --d 1", "--d"},
           {"moments --d 4,4", "--d"},
           {"moments --max-k 0", "--max-k"},
           {"moments --alpha 0", "--alpha"},
           {"moments --tau-d-min 1", "--tau-d-min"},
           {"moments --tau-d-min 9 --tau-d-max 8", "--tau-d-max"},
           {"moments --tau-max-degree 2", "--tau-max-degree"},
           {"moments --tau-max-degree 500", "--tau-max-degree"}}) {
    const auto bad = run_cli(args + " --trials 100 --quiet --out bad.json", dir);
    INFO(args << "\nstderr: " << bad.err);
    CHECK(bad.status == 2);
    CHECK(bad.err.find(needle) != std::string::npos);
    CHECK(!std::filesystem::exists(dir / "bad.json"));
  }
  std::filesystem::remove_all(dir);
}
