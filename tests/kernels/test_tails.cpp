// Theorem 3 (tails): the MGF and Legendre transform of one regularized feature against closed forms, series and Monte
// Carlo; Clopper–Pearson intervals against known values; the tail-bound check on sampled estimators (stated α), with
// a power test; bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/expint.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

#include "cli_runner.hpp"
#include "features/estimator.hpp"
#include "kernels/legendre_transform.hpp"
#include "kernels/regularized_feature_mgf.hpp"
#include "kernels/regularized_tail_bound.hpp"
#include "kernels/smreg.hpp"
#include "mc/smreg_tail_sweep.hpp"
#include "rng/philox_stream.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/running_moments.hpp"
#include "stats/tail_bound_check.hpp"

using namespace favorlab;
using Catch::Matchers::WithinRel;

namespace {

constexpr double kAlpha = 1e-6;  // family-wise false-failure rate of every statistical test below

// Exact P[X > a] for one regularized feature (m = 1): (1 + u₁)/2 ~ Beta((d−1)/2, (d−1)/2), X > a ⇔ u₁ > s_a.
double exact_single_feature_tail(const RegularizedFeature& x, double a) {
  const double s = (std::log(a) - x.log_lambda()) / x.t();
  if (s >= 1) return 0;
  if (s <= -1) return 1;
  const double h = (x.d() - 1) / 2.0;
  return boost::math::ibetac(h, h, (1 + s) / 2);
}

// log M_X(θ) for d = 3, where u₁ is uniform on [−1, 1]: substituting y = θΛe^{ts} gives
// M_X(θ) = (Ei(θ max X) − Ei(θ min X)) / (2t), Ei the exponential integral.
double log_mgf_d3(const RegularizedFeature& x, double theta) {
  return std::log((boost::math::expint(theta * x.max_value()) - boost::math::expint(theta * x.min_value())) /
                  (2 * x.t()));
}

}  // namespace

TEST_CASE("regularized feature: mean is SMREG, support, atoms", "[tails][mgf]") {
  for (int d : {1, 2, 3, 7, 16}) {
    const Geometry g{0.4, 0.6, d == 1 ? -1.0 : 0.3};
    const RegularizedFeature x(g, d);
    INFO("d=" << d);
    CHECK_THAT(x.mean(), WithinRel(smreg_exact(g, d), 1e-14));
    CHECK_THAT(x.mean(), WithinRel(smreg_series(g, d), 1e-12));
    CHECK_THAT(x.tilted_mean(0), WithinRel(x.mean(), 1e-12));  // quadrature of E[X] against the Bessel form
    CHECK(x.min_value() < x.mean());
    CHECK(x.mean() < x.max_value());
    CHECK(x.top_atom() == (d == 1 ? 0.5 : 0.0));
  }
  CHECK_THROWS_AS(RegularizedFeature({0.5, 0.5, 0.5}, 0), std::invalid_argument);
  CHECK_THROWS_AS(RegularizedFeature({0.5, 0.5, 0.5}, 1), std::invalid_argument);  // d = 1 needs cos = ±1
}

TEST_CASE("MGF by quadrature matches closed forms (d = 1 two-point, d = 3 exponential integral)", "[tails][mgf]") {
  const RegularizedFeature one({0.5, 0.3, 1.0}, 1);
  for (double theta : {-2.0, -0.1, 0.05, 0.5, 3.0, 40.0}) {
    const double direct = std::log(0.5 * std::exp(theta * one.max_value()) + 0.5 * std::exp(theta * one.min_value()));
    CHECK_THAT(one.log_mgf(theta), WithinRel(direct, 1e-13));
  }
  for (double zn : {0.2, 0.9}) {
    const RegularizedFeature three({zn / 2, zn / 2, 1.0}, 3);
    for (double theta : {0.01, 0.3, 2.0, 10.0, 60.0}) {
      INFO("|z|=" << zn << " theta=" << theta);
      CHECK_THAT(three.log_mgf(theta), WithinRel(log_mgf_d3(three, theta), 1e-12));
    }
  }
}

TEST_CASE("MGF by quadrature matches the power series, including where M_X overflows double", "[tails][mgf]") {
  for (int d : {2, 5, 16, 64}) {
    const RegularizedFeature x({0.5, 0.7, 0.4}, d);
    for (double scale : {0.01, 0.5, 4.0, 50.0, 2000.0}) {  // θ · max X
      const double theta = scale / x.max_value();
      INFO("d=" << d << " theta*max=" << scale);
      CHECK_THAT(x.log_mgf(theta), WithinRel(x.log_mgf_series(theta), 1e-12));
    }
  }
  const RegularizedFeature x({0.5, 0.7, 0.4}, 16);
  const double theta = 1000 / x.max_value() * 1.0;  // M_X ≈ e^{1000}: beyond double, its log is fine
  CHECK(std::isfinite(x.log_mgf(theta)));
  CHECK(x.log_mgf(theta) > 700);
}

TEST_CASE("MGF matches direct Monte Carlo of exp(theta X) with Gaussian omega", "[tails][mgf][statistical]") {
  const int d = 6;
  const Geometry g{0.5, 0.4, 0.2};
  const RegularizedFeature x(g, d);
  const Eigen::VectorXd z = geometry_x(g, d) + geometry_y(g, d);
  const std::vector<double> thetas{0.2, 0.6, 1.2};
  std::vector<RunningMoments> mc(thetas.size());
  for (std::int64_t t = 0; t < 200000; ++t) {
    PhiloxStream rng(11, 0, static_cast<std::uint64_t>(t));
    Eigen::VectorXd w(d);
    for (int i = 0; i < d; ++i) w(i) = rng.normal();
    const double feature = std::exp(x.log_lambda() + std::sqrt(double(d)) * w.dot(z) / w.norm());
    for (std::size_t k = 0; k < thetas.size(); ++k) mc[k].add(std::exp(thetas[k] * feature));
  }
  // X is bounded, so exp(θX) is too: a z test with its sample SE is reliable at this sample size.
  const double z_crit = two_sided_critical_z(bonferroni_alpha(kAlpha, thetas.size()));
  for (std::size_t k = 0; k < thetas.size(); ++k) {
    const double theory = std::exp(x.log_mgf(thetas[k]));
    INFO("theta=" << thetas[k] << " mc=" << mc[k].mean() << " +- " << mc[k].standard_error() << " theory=" << theory);
    CHECK(std::abs(mc[k].mean() - theory) <= z_crit * mc[k].standard_error());
    // power: a 5% error in M_X is far outside the noise
    CHECK(std::abs(mc[k].mean() - 1.05 * theory) > z_crit * mc[k].standard_error());
  }
}

TEST_CASE("tilted mean is the derivative of log M_X", "[tails][mgf]") {
  for (int d : {1, 2, 16}) {
    const RegularizedFeature x({0.5, 0.5, 1.0}, d);
    for (double scale : {0.1, 2.0, 30.0}) {
      const double theta = scale / x.max_value(), h = 1e-4 * theta;
      const double derivative = (x.log_mgf(theta + h) - x.log_mgf(theta - h)) / (2 * h);
      INFO("d=" << d << " theta=" << theta);
      CHECK_THAT(x.tilted_mean(theta), WithinRel(derivative, 1e-6));
      CHECK(x.tilted_mean(theta) < x.max_value());
    }
  }
}

TEST_CASE("Legendre transform for d = 1 equals the Bernoulli relative entropy", "[tails][legendre]") {
  // X = c + (b − c)B, B ~ Bernoulli(½): L_X(a) = KL(Bern(p) ‖ Bern(½)) with p = (a − c)/(b − c).
  for (double zn : {0.3, 1.0, 2.5}) {
    const RegularizedFeature x({zn / 2, zn / 2, 1.0}, 1);
    const double b = x.max_value(), c = x.min_value();
    for (double frac : {0.51, 0.6, 0.75, 0.9, 0.99, 0.999}) {
      const double a = c + frac * (b - c);
      const double kl = frac * std::log(2 * frac) + (1 - frac) * std::log(2 * (1 - frac));
      INFO("|z|=" << zn << " p=" << frac);
      CHECK_THAT(legendre_transform(x, a).value, WithinRel(kl, 1e-9));
    }
    CHECK_THAT(legendre_transform(x, b).value, WithinRel(std::log(2.0), 1e-15));  // a = max X: −log P[X = max X]
    CHECK(std::isinf(legendre_transform(x, b * 1.001).value));
    CHECK(legendre_transform(x, x.mean()).value == 0);
    CHECK(legendre_transform(x, 0.5 * x.mean()).value == 0);
  }
}

TEST_CASE("Legendre transform for d = 3 matches a brute-force supremum over the Ei closed form", "[tails][legendre]") {
  const RegularizedFeature x({0.4, 0.4, 1.0}, 3);
  for (double frac : {1.05, 1.3, 2.0, 2.8}) {
    const double a = frac * x.mean();
    REQUIRE(a < x.max_value());
    const LegendreValue l = legendre_transform(x, a);
    // Scan θ on a grid around the optimum with the closed-form MGF, then take the best value.
    double best = 0;
    for (int i = 1; i <= 20000; ++i) {
      const double theta = l.theta * 2 * i / 20000.0;
      best = std::max(best, theta * a - log_mgf_d3(x, theta));
    }
    INFO("a/mean=" << frac);
    CHECK_THAT(l.value, WithinRel(best, 1e-7));
    CHECK_THAT(x.tilted_mean(l.theta), WithinRel(a, 1e-6));  // first-order condition at θ*
  }
}

TEST_CASE("Legendre transform is positive above the mean, increasing and convex", "[tails][legendre]") {
  for (int d : {2, 16}) {
    const RegularizedFeature x({0.5, 0.5, 0.6}, d);
    std::vector<double> as, ls;
    const double top = std::min(x.max_value(), 6 * x.mean());
    for (int i = 1; i <= 40; ++i) {
      as.push_back(x.mean() + (top - x.mean()) * i / 41.0);
      ls.push_back(legendre_transform(x, as.back()).value);
    }
    for (std::size_t i = 0; i < ls.size(); ++i) {
      INFO("d=" << d << " a=" << as[i]);
      CHECK(ls[i] > 0);
      if (i > 0) CHECK(ls[i] > ls[i - 1]);
      if (i > 1) CHECK(ls[i] - 2 * ls[i - 1] + ls[i - 2] >= -1e-9 * ls[i]);  // equal spacing: second difference
    }
    // Near the mean L_X(a) ≈ (a − E X)²/(2 Var X).
    const double var = std::exp(2 * x.log_lambda() + log_sphere_mgf(d, 2 * x.t())) - x.mean() * x.mean();
    const double eps = 1e-3 * std::sqrt(var);
    CHECK_THAT(legendre_transform(x, x.mean() + eps).value, WithinRel(eps * eps / (2 * var), 1e-2));
  }
}

TEST_CASE("Legendre transform stays finite next to the top of the support in high dimension", "[tails][legendre]") {
  // d = 128: log M_X − θ·max X ≈ −L_X reaches −1000 and more; the integrand must be rescaled, not underflow to 0.
  const RegularizedFeature x({0.5, 0.5, 1.0}, 128);
  double previous = 0;
  for (double gap : {1e-2, 1e-4, 1e-6, 1e-8}) {
    const double l = legendre_transform(x, x.max_value() * (1 - gap)).value;
    INFO("gap=" << gap << " L=" << l);
    CHECK(std::isfinite(l));
    CHECK(l > previous);
    previous = l;
  }
  CHECK(previous > 700);  // exp(−L) far below the smallest double: the bound is 0 in double, rightly
}

TEST_CASE("Theorem 3 bounds: values, factor d/(d+2), bad input", "[tails][bound]") {
  const Geometry g{0.5, 0.5, 0.5};
  const int d = 16;
  const double smreg = smreg_exact(g, d);
  const TailBound b4 = theorem3_bound(g, d, 4, 1.5 * smreg), b8 = theorem3_bound(g, d, 8, 1.5 * smreg);
  CHECK_THAT(b4.smreg, WithinRel(smreg, 1e-14));
  CHECK_THAT(b4.iid, WithinRel(std::exp(-4 * b4.legendre), 1e-14));
  CHECK_THAT(b4.orthogonal, WithinRel(16.0 / 18.0 * b4.iid, 1e-14));
  CHECK_THAT(b8.iid, WithinRel(b4.iid * b4.iid, 1e-12));  // exp(−mL) is a power in m
  CHECK(b4.iid < 1);
  // above the support: nothing can exceed a
  const TailBound above = theorem3_bound(g, d, 1, 1.01 * b4.max_feature);
  CHECK(above.iid == 0);
  CHECK(above.orthogonal == 0);

  CHECK_THROWS_AS(theorem3_bound(g, d, 4, smreg), std::invalid_argument);        // a = SMREG
  CHECK_THROWS_AS(theorem3_bound(g, d, 4, 0.9 * smreg), std::invalid_argument);  // a < SMREG
  CHECK_THROWS_AS(theorem3_bound(g, d, 4, std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(theorem3_bound(g, d, 17, 1.5 * smreg), std::invalid_argument);  // m > d
  CHECK_THROWS_AS(theorem3_bound(g, d, 0, 1.5 * smreg), std::invalid_argument);   // m ≤ 0
  CHECK_THROWS_AS(theorem3_bound(g, d, -2, 1.5 * smreg), std::invalid_argument);
  CHECK_THROWS_WITH(theorem3_bound(g, d, 4, smreg), Catch::Contains("SMREG"));
  CHECK_THROWS_WITH(theorem3_bound(g, d, 17, 1.5 * smreg), Catch::Contains("m <= d"));
}

TEST_CASE("Clopper-Pearson intervals against known values", "[tails][stats]") {
  const double alpha = 0.05;
  for (std::int64_t n : {1, 10, 1000, 1000000}) {
    const ProportionInterval zero = clopper_pearson(0, n, alpha), all = clopper_pearson(n, n, alpha);
    CHECK(zero.lower == 0);
    CHECK_THAT(zero.upper, WithinRel(1 - std::pow(alpha / 2, 1.0 / n), 1e-10));
    CHECK_THAT(all.lower, WithinRel(std::pow(alpha / 2, 1.0 / n), 1e-10));
    CHECK(all.upper == 1);
  }
  // Tabulated: 5 of 10 at 95% is [0.187086, 0.812914].
  const ProportionInterval half = clopper_pearson(5, 10, alpha);
  CHECK_THAT(half.lower, WithinRel(0.1870860, 1e-6));
  CHECK_THAT(half.upper, WithinRel(0.8129140, 1e-6));
  // Defining property: P[Bin(n, lower) ≥ k] = α/2 and P[Bin(n, upper) ≤ k] = α/2.
  for (auto [k, n, a] : {std::tuple{7, 50, 0.05}, std::tuple{3, 100000, 1e-6}, std::tuple{9000, 10000, 1e-3}}) {
    const ProportionInterval ci = clopper_pearson(k, n, a);
    using boost::math::binomial_distribution;
    CHECK_THAT(boost::math::cdf(boost::math::complement(binomial_distribution<>(n, ci.lower), k - 1)),
               WithinRel(a / 2, 1e-8));
    CHECK_THAT(boost::math::cdf(binomial_distribution<>(n, ci.upper), k), WithinRel(a / 2, 1e-8));
  }
  CHECK_THROWS_AS(clopper_pearson(-1, 10, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(clopper_pearson(11, 10, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(clopper_pearson(0, 0, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(clopper_pearson(1, 10, 0), std::invalid_argument);
  CHECK_THROWS_AS(clopper_pearson(1, 10, 1), std::invalid_argument);
}

TEST_CASE("sampled single-feature tail matches the exact incomplete-beta probability", "[tails][statistical]") {
  const int d = 8;
  const Geometry g{0.4, 0.5, 0.3};
  const RegularizedFeature x(g, d);
  const std::vector<double> deltas{0.1, 0.5, 1.5};
  std::vector<double> thresholds;
  for (double delta : deltas) thresholds.push_back(x.mean() * (1 + delta));
  for (Coupling c : {Coupling::iid, Coupling::orthogonal}) {
    const TailSweepResult r = run_smreg_tail_sweep({d, c, {1, 4}, {g}, {thresholds}, 5, 0, 40000, 2});
    for (std::size_t k = 0; k < deltas.size(); ++k) {
      const double exact = exact_single_feature_tail(x, thresholds[k]);
      const ProportionInterval ci = clopper_pearson(r.exceed_count(0, 0, k), r.trials, kAlpha / deltas.size());
      INFO(coupling_name(c) << " delta=" << deltas[k] << " exact=" << exact << " ci=[" << ci.lower << ", " << ci.upper
                            << "]");
      CHECK(ci.lower <= exact);
      CHECK(exact <= ci.upper);
      if (k > 0) CHECK(r.exceed_count(0, 0, k) <= r.exceed_count(0, 0, k - 1));
    }
    // Far above the mean, 4 features concentrate more than 1. (Just above it they need not: X is skewed right, so
    // P[X > E X] < ½ while the mean of 4 features is closer to symmetric.)
    CHECK(r.exceed_count(1, 0, 2) < r.exceed_count(0, 0, 2));
  }
}

TEST_CASE("Theorem 3 holds at d = 8 for both couplings, a bound divided by 1000 is flagged violated",
          "[tails][statistical]") {
  const int d = 8;
  const Geometry g{0.5, 0.5, 0.5};
  const std::vector<int> ms{1, 2, 8};
  const double smreg = smreg_exact(g, d);
  const std::vector<double> thresholds{1.1 * smreg, 1.5 * smreg};
  for (Coupling c : {Coupling::iid, Coupling::orthogonal}) {
    const TailSweepResult r = run_smreg_tail_sweep({d, c, ms, {g}, {thresholds}, 2021, 0, 20000, 2});
    for (double divisor : {1.0, 1000.0}) {
      TailBoundCheck check("Theorem 3", "test", kAlpha, ms.size() * thresholds.size());
      for (std::size_t mi = 0; mi < ms.size(); ++mi)
        for (std::size_t k = 0; k < thresholds.size(); ++k) {
          const TailBound b = theorem3_bound(g, d, ms[mi], thresholds[k]);
          const double bound = (c == Coupling::iid ? b.iid : b.orthogonal) / divisor;
          const TailPointVerdict v = check.judge({r.exceed_count(mi, 0, k), r.trials, 0, bound, "p"});
          CHECK(v.margin == bound - v.interval.lower);
        }
      const Check result = check.result();
      INFO(coupling_name(c) << " divisor " << divisor << ": " << result.detail);
      CHECK((((divisor == 1.0)) ? (result.status) != Verdict::violated : (result.status) == Verdict::violated));
    }
  }
}

TEST_CASE("tail check power: the d/(d+2) factor applied twice, and a bound tightened by the reported power, are caught",
          "[tails][statistical][power]") {
  // The tightest committed point: orthogonal, d = 2, m = 2, x = y = 0.5 (cos 1), a = 1.02·SMREG, where p_hat ≈ 0.49
  // against the bound 0.4997. A plausible bug applies d/(d+2) twice (bound 0.25 at d = 2); the check must see it at
  // 4000 draws (CP lower end ≈ 0.46). The right bound must not be violated (α = 1e-6), and on the same data a bound
  // tightened by the reported power (and a hair more) must be.
  const int d = 2;
  const Geometry g{0.5, 0.5, 1.0};
  const double a = 1.02 * smreg_exact(g, d);
  const TailSweepResult r = run_smreg_tail_sweep({d, Coupling::orthogonal, {2}, {g}, {{a}}, 2021, 0, 4000, 2});
  const double bound = theorem3_bound(g, d, 2, a).orthogonal;
  const std::int64_t exceed = r.exceed_count(0, 0, 0);
  TailBoundCheck right("Theorem 3", "power", kAlpha, 1);
  CHECK(right.judge({exceed, r.trials, 0, bound, "p"}).status != Verdict::violated);
  const double power = right.result().power;
  REQUIRE(std::isfinite(power));
  TailBoundCheck doubled("Theorem 3, factor twice", "power", kAlpha, 1);
  CHECK(doubled.judge({exceed, r.trials, 0, bound * d / (d + 2.0), "p"}).status == Verdict::violated);
  TailBoundCheck tightened("Theorem 3, tightened by its power", "power", kAlpha, 1);
  CHECK(tightened.judge({exceed, r.trials, 0, bound * (1 - power * (1 + 1e-9)), "p"}).status == Verdict::violated);
}

TEST_CASE("tail check power is the weakest point's: every bound tightened by it is caught at every point",
          "[tails][stats][power]") {
  // Two points: 500 of 1000 draws against 0.6 (close) and 10 of 1000 against 0.5 (far). The far point decides the
  // power; tightening both bounds by it violates both, and by the close point's own power only the close one.
  const std::vector<TailPointEvidence> points{{500, 1000, 0, 0.6, "close"}, {10, 1000, 0, 0.5, "far"}};
  TailBoundCheck both("bound", "test", 1e-3, 2), close_only("bound", "test", 1e-3, 2);  // the same point alpha
  for (const auto& p : points) both.judge(p);
  close_only.judge(points[0]);
  const double weakest = both.result().power, strongest = close_only.result().power;
  REQUIRE(weakest > strongest);
  CHECK(both.result().detail.find("weakest point far") != std::string::npos);
  TailBoundCheck tightened("bound", "test", 1e-3, 2), partly("bound", "test", 1e-3, 2);
  for (const auto& p : points) {
    TailPointEvidence t = p, u = p;
    t.bound *= 1 - weakest * (1 + 1e-9);
    u.bound *= 1 - strongest * (1 + 1e-9);
    tightened.judge(t);
    partly.judge(u);
  }
  CHECK(tightened.result().points_violated == 2);
  CHECK(partly.result().points_violated == 1);
}

TEST_CASE("d = 1: the orthogonal bound d/(d+2) exp(-L) fails (P = 1/2), the Chernoff bound holds",
          "[tails][statistical]") {
  // With d = 1 the one feature is Λe^{±t} with probability ½ each; for E[X] < a < max X, P[X > a] = ½, while
  // d/(d+2)·exp(−L_X(a)) ≤ 1/3. (m ≤ d forces m = 1, where orthogonal and iid rows coincide.)
  const Geometry g{0.5, 0.5, 1.0};
  const double smreg = smreg_exact(g, 1);
  const TailSweepResult r = run_smreg_tail_sweep({1, Coupling::orthogonal, {1}, {g}, {{1.3 * smreg}}, 3, 0, 4000, 2});
  const TailBound b = theorem3_bound(g, 1, 1, 1.3 * smreg);
  TailBoundCheck ort("ort", "test", kAlpha, 1), chernoff("chernoff", "test", kAlpha, 1);
  CHECK(ort.judge({r.exceed_count(0, 0, 0), r.trials, 0, b.orthogonal, "p"}).status == Verdict::violated);
  CHECK(chernoff.judge({r.exceed_count(0, 0, 0), r.trials, 0, b.iid, "p"}).status == Verdict::holds);
}

TEST_CASE("tail check: nonfinite draws are inconclusive, above the support zero counts hold, one exceedance refutes",
          "[tails][stats]") {
  TailBoundCheck check("c", "w", 1e-3, 4);
  CHECK(check.judge_support({0, 1000, 0, 0.0, "above support"}).status == Verdict::holds);
  CHECK(check.judge({5, 995, 5, 0.5, "nan"}).status == Verdict::inconclusive);
  CHECK(check.judge_support({1, 1000, 0, 0.0, "impossible"}).status == Verdict::violated);
  // Counted, a bound of 0 never holds: only the caller knows the event is impossible.
  CHECK(check.judge({0, 1000, 0, 0.0, "counted"}).status == Verdict::inconclusive);
  CHECK(check.result().status == Verdict::violated);
}

TEST_CASE("tail sweep: same counts for 1 and 2 threads, bad configurations rejected", "[tails][mc][determinism]") {
  const Geometry g{0.5, 0.5, 0.5};
  TailSweepConfig c{8, Coupling::orthogonal, {8, 1, 3}, {g, {0.2, 0.3, -0.5}}, {{1.2, 1.5}, {1.0}}, 9, 1, 1234, 1};
  const TailSweepResult one = run_smreg_tail_sweep(c);
  c.threads = 2;
  const TailSweepResult two = run_smreg_tail_sweep(c);
  CHECK(one.exceed == two.exceed);
  CHECK(one.nonfinite == two.nonfinite);

  auto bad = c;
  bad.ms = {9};
  CHECK_THROWS_AS(run_smreg_tail_sweep(bad), std::invalid_argument);  // m > d
  bad.ms = {0};
  CHECK_THROWS_AS(run_smreg_tail_sweep(bad), std::invalid_argument);
  bad.ms.clear();
  CHECK_THROWS_AS(run_smreg_tail_sweep(bad), std::invalid_argument);
  bad = c;
  bad.thresholds.pop_back();
  CHECK_THROWS_AS(run_smreg_tail_sweep(bad), std::invalid_argument);
  bad = c;
  bad.trials = 0;
  CHECK_THROWS_AS(run_smreg_tail_sweep(bad), std::invalid_argument);
}

TEST_CASE("the sweep's estimate is the positive-feature estimate phi(x)^T phi(y)", "[tails][mc]") {
  // One threshold just below and one just above the estimate computed through estimate_kernel must split the count.
  const int d = 5, m = 3;
  const Geometry g{0.6, 0.4, -0.2};
  PhiloxStream rng(77, 4, 0);
  const Eigen::MatrixXd w = draw_projection(Coupling::iid, RowNorms::sqrt_d, m, d, rng);
  const Eigen::MatrixXd x = geometry_x(g, d).transpose(), y = geometry_y(g, d).transpose();
  const double est = estimate_kernel(Family::smreg, x, y, w)(0);
  const TailSweepResult r =
      run_smreg_tail_sweep({d, Coupling::iid, {m}, {g}, {{est * (1 - 1e-12), est * (1 + 1e-12)}}, 77, 4, 1, 1});
  CHECK(r.exceed_count(0, 0, 0) == 1);
  CHECK(r.exceed_count(0, 0, 1) == 0);
}

TEST_CASE("favorlab tails: result rows and checks, bad input exits 2 with one line naming the option", "[tails][cli]") {
  using namespace favorlab::testing;
  const auto dir = scratch_dir("tails");
  const auto run = run_cli("tails --d 1,4 --m 1,2,4 --delta 0.1,1 --trials 300 --quiet --out t.json", dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "t.json"));
  CHECK(doc["experiment"] == "tails");
  // d = 1 uses m = 1 only, d = 4 uses 1, 2, 4: (1 + 3) × 2 geometries × 2 thresholds × 2 couplings
  REQUIRE(doc["rows"].size() == 32);
  for (const char* key : {"coupling", "d", "m", "x_norm", "y_norm", "cos_angle", "smreg", "truth", "a", "exceed_count",
                          "trials", "p_hat", "p_lower", "p_upper", "bound", "status", "margin", "legendre", "method"})
    CHECK(doc["rows"][0].contains(key));
  CHECK(doc["checks"].size() == 6);  // per d: iid, orthogonal, orthogonal without d/(d+2)
  std::filesystem::remove(dir / "t.json");

  const std::vector<std::pair<std::string, std::string>> cases{
      {"tails --delta 0", "--delta"},     {"tails --delta -0.5", "--delta"}, {"tails --m 0", "--m"},
      {"tails --m 32", "--m"},            {"tails --d 0", "--d"},           {"tails --d 1 --cos 0.5", "cos"},
      {"tails --alpha 0", "--alpha"},     {"tails --couplings haar", "haar"},
      {"tails --x-norm 40 --y-norm 40", "out of range"}, {"tails --d 2,4 --m 1,8", "--m 8"},
      {"tails --tilted-trials -1", "--tilted-trials"},
  };
  for (const auto& [args, needle] : cases)
    check_bad_input(args + " --trials 50 --quiet --out r.json", needle, dir, "r.json");
  std::filesystem::remove_all(dir);
}
