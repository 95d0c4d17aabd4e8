// Theorem 3 where counting cannot decide: the orthogonal estimator's largest value against brute force (and a wrong
// maximum refuted), the tilted estimate of the iid tail against exact probabilities (unbiased, its level and power
// simulated), Hoeffding's relative-entropy limits (coverage simulated, a normal interval caught failing the same
// simulation), the check's wording, and `favorlab tails` settling the points a count leaves open.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include "cli_runner.hpp"
#include "kernels/legendre_transform.hpp"
#include "kernels/orthogonal_estimate_max.hpp"
#include "kernels/regularized_feature_mgf.hpp"
#include "kernels/regularized_tail_bound.hpp"
#include "kernels/smreg.hpp"
#include "mc/smreg_tail_sweep.hpp"
#include "mc/tilted_tail.hpp"
#include "rng/philox_stream.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/tail_bound_check.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-6;  // family-wise false-failure rate of every statistical test below

// The largest count a Binomial(n, p) exceeds with probability ≤ α: a rate simulated n times passes when its count of
// misses is at most this (the simulated level is at most p, up to a false failure of α).
std::int64_t binomial_ceiling(std::int64_t n, double p, double alpha) {
  return static_cast<std::int64_t>(
      boost::math::quantile(boost::math::complement(boost::math::binomial_distribution<>(n, p), alpha)));
}

// P[t > s] for t = uᵀẑ, u uniform on S^{d−1}: (1 + t)/2 ~ Beta((d−1)/2, (d−1)/2).
double sphere_tail(int d, double s) {
  if (s >= 1) return 0;
  if (s <= -1) return 1;
  const double h = (d - 1) / 2.0;
  return boost::math::ibetac(h, h, (1 + s) / 2);
}

// Exact P[(X₁ + … + X_m)/m > a] for m = 1 (the incomplete beta) and m = 2 (one integral over t₁ of the incomplete
// beta in t₂), X = Λe^{κt}.
double exact_tail(const Geometry& g, int d, int m, double a) {
  const double kappa = std::sqrt(d * g.z_sq()), lambda = std::exp(g.log_lambda());
  if (m == 1) return sphere_tail(d, std::log(a / lambda) / kappa);
  REQUIRE(m == 2);
  const double h = (d - 1) / 2.0, norm = std::exp(-std::lgamma(h) * 2 + std::lgamma(2 * h)) * std::pow(2.0, 2 - 2 * h);
  // density of t: (1 − t²)^{h−1} / (2^{2h−1} B(h, h)) = norm/2 · (1 − t²)^{h−1} with norm = 2^{2−2h}/B(h, h)
  auto f = [&](double t1) {
    const double rest = 2 * a - lambda * std::exp(kappa * t1);
    const double tail = rest <= 0 ? 1.0 : sphere_tail(d, std::log(rest / lambda) / kappa);
    return norm / 2 * std::pow(1 - t1 * t1, h - 1) * tail;
  };
  // The inner tail is 0 until X(t₁) > 2a − max X and 1 once X(t₁) ≥ 2a − min X: integrate between those kinks.
  std::vector<double> cuts{-1.0, 1.0};
  for (double v : {2 * a - lambda * std::exp(kappa), 2 * a - lambda * std::exp(-kappa)})
    if (v > 0) {
      const double t = std::log(v / lambda) / kappa;
      if (t > -1 && t < 1) cuts.push_back(t);
    }
  std::sort(cuts.begin(), cuts.end());
  double total = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    total += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, cuts[i], cuts[i + 1], 15, 1e-13);
  return total;
}

double log_row_sum(int m, double kappa, const std::vector<double>& t) {
  double s = 0;
  for (int i = 0; i < m; ++i) s += std::exp(kappa * t[static_cast<std::size_t>(i)]);
  return std::log(s);
}

}  // namespace

TEST_CASE("orthogonal support maximum: brute force over the ball, and the one-spike and all-equal maxima refuted",
          "[tails][support]") {
  for (double kappa : {0.3, 1.0, 2.4, 4.0, 9.0}) {
    // m = 2: the whole unit circle, 2·10⁵ angles.
    double brute2 = -1e300;
    for (int i = 0; i < 200000; ++i) {
      const double psi = 2 * M_PI * i / 200000;
      brute2 = std::max(brute2, log_row_sum(2, kappa, {std::cos(psi), std::sin(psi)}));
    }
    const RowSumMax two = orthogonal_row_sum_max(2, kappa);
    INFO("kappa=" << kappa << " m=2 brute " << brute2 << " attained " << two.log_attained << " upper "
                  << two.log_upper);
    CHECK(brute2 <= two.log_upper);
    CHECK(std::abs(brute2 - two.log_attained) < 1e-6);  // both grids resolve the maximum to ~κ²·1e-10
    CHECK(two.log_upper - two.log_attained < 1e-5);
    // m = 3: the unit sphere on a 1000 × 2000 grid of (polar, azimuth), steps h = π/1000. Between nodes log F falls
    // short of its maximum by at most its curvature bound (2κ² + 3κ, as for g) times 2h²/8.
    double brute3 = -1e300;
    const double h = M_PI / 1000, grid_error = (2 * kappa * kappa + 3 * kappa) * 2 * h * h / 8;
    for (int i = 0; i <= 1000; ++i)
      for (int j = 0; j < 2000; ++j) {
        const double th = M_PI * i / 1000, ph = 2 * M_PI * j / 2000;
        brute3 = std::max(brute3, log_row_sum(3, kappa, {std::cos(th), std::sin(th) * std::cos(ph),
                                                         std::sin(th) * std::sin(ph)}));
      }
    const RowSumMax three = orthogonal_row_sum_max(3, kappa);
    INFO("m=3 brute " << brute3 << " attained " << three.log_attained << " upper " << three.log_upper);
    CHECK(brute3 <= three.log_upper);
    CHECK(brute3 >= three.log_attained - grid_error);
  }
  // Random starts and projected gradient ascent for m = 4 … 16: never above the upper bound, and reaching the value.
  for (int m : {4, 7, 16})
    for (double kappa : {1.0, 2.4, 4.0}) {
      const RowSumMax r = orthogonal_row_sum_max(m, kappa);
      double best = -1e300;
      for (int start = 0; start < 50; ++start) {
        PhiloxStream rng(5, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(start));
        std::vector<double> t(static_cast<std::size_t>(m));
        for (double& v : t) v = std::abs(rng.normal());
        for (int it = 0; it < 2000; ++it) {
          double norm = 0;
          for (double& v : t) norm += v * v;
          for (double& v : t) v /= std::sqrt(norm);
          for (double& v : t) v += 0.01 * std::exp(kappa * (v - 1));  // the gradient of Σe^{κt}, scaled
        }
        double norm = 0;
        for (double v : t) norm += v * v;
        for (double& v : t) v /= std::sqrt(norm);
        best = std::max(best, log_row_sum(m, kappa, t));
      }
      INFO("m=" << m << " kappa=" << kappa << " ascent " << best << " attained " << r.log_attained);
      CHECK(best <= r.log_upper);
      CHECK(best >= r.log_attained - 1e-6);
    }
  // A wrong maximum fails: the one-spike value e^κ + m − 1 is exceeded at m = 2 (κ = 2.4), the all-equal value
  // m e^{κ/√m} at m = 2 too, and the spike at m = 16 (where the equal split is best).
  const double spike2 = std::log(std::exp(2.4) + 1), equal2 = std::log(2 * std::exp(2.4 / std::sqrt(2.0)));
  CHECK(orthogonal_row_sum_max(2, 2.4).log_attained > spike2 + 1e-4);
  CHECK(orthogonal_row_sum_max(2, 2.4).log_attained > equal2 + 1e-2);
  CHECK(orthogonal_row_sum_max(16, 2.4).log_attained > std::log(std::exp(2.4) + 15) + 1e-2);
  CHECK_THROWS_AS(orthogonal_row_sum_max(0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(orthogonal_row_sum_max(2, -1.0), std::invalid_argument);
  CHECK(orthogonal_row_sum_max(1, 3.0).log_upper == 3.0);
}

TEST_CASE("orthogonal rows never exceed their largest estimate and come close to it, and the naive maximum is exceeded",
          "[tails][support][mc]") {
  // d = 4, m = 2: (t₁, t₂) is uniform on the unit disk, so 10⁵ draws reach within 1e-3 of the maximum.
  const int d = 4, m = 2;
  const Geometry g{0.5, 0.5, 1.0};
  const double kappa = std::sqrt(d * g.z_sq()), lambda = std::exp(g.log_lambda());
  const TailBound b = theorem3_bound(g, d, m, 1.5 * smreg_exact(g, d));
  const double spike = lambda * (std::exp(kappa) + m - 1) / m;
  REQUIRE(b.max_orthogonal < b.max_feature);
  const TailSweepResult r = run_smreg_tail_sweep(
      {d, Coupling::orthogonal, {m}, {g}, {{b.max_orthogonal, b.max_orthogonal * (1 - 1e-3), spike}}, 3, 0, 100000, 2});
  CHECK(r.exceed_count(0, 0, 0) == 0);
  CHECK(r.exceed_count(0, 0, 1) > 0);
  CHECK(r.exceed_count(0, 0, 2) > 0);  // the one-spike value is not the maximum
  // m = 1 is one row: the same maximum as iid rows.
  CHECK(theorem3_bound(g, d, 1, 1.5 * smreg_exact(g, d)).max_orthogonal == Approx(b.max_feature).epsilon(1e-12));
}

TEST_CASE("tilted law: its mixture's M_X matches the quadrature, its draws the tilted mean and distribution",
          "[tails][tilted][statistical]") {
  const int d = 16;
  const Geometry g{0.1, 0.5, 1.0};
  const RegularizedFeature x(g, d);
  const double theta = legendre_transform(x, 6 * x.mean()).theta;
  const TiltedFeature law(g, d, theta);
  CHECK(std::abs(law.log_mgf() - x.log_mgf(theta)) < 1e-11 * std::abs(law.log_mgf()));
  INFO("term error " << law.term_error());
  CHECK(law.term_error() <= 1e-11);  // twice the Bessel form's largest disagreement with the moment series
  CHECK(law.truncation() < 1e-16);
  CHECK(law.draw_error() < 1e-11);
  // The tilted density of t, ∝ (1 − t²)^{(d−3)/2} e^{θX(t)}, by Simpson: its distribution function at a few points.
  const int n_nodes = 200000;
  std::vector<double> cdf(n_nodes + 1, 0.0);
  double mass = 0;
  for (int i = 0; i <= n_nodes; ++i) {
    const double t = -1 + 2.0 * i / n_nodes, w = (i == 0 || i == n_nodes) ? 1 : (i % 2 ? 4 : 2);
    const double tilt = theta * (std::exp(x.log_lambda() + x.t() * t) - x.max_value());
    mass += w * std::pow(1 - t * t, (d - 3) / 2.0) * std::exp(tilt);
    cdf[static_cast<std::size_t>(i)] = mass;
  }
  const std::vector<double> ts{0.5, 0.8, 0.9, 0.95};
  std::vector<std::int64_t> below(ts.size(), 0);
  const std::int64_t n = 100000;
  double sum = 0, sum_sq = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    PhiloxStream rng(17, 2, static_cast<std::uint64_t>(i));
    const double v = law.draw(rng);
    sum += v;
    sum_sq += v * v;
    const double t = (std::log(v) - x.log_lambda()) / x.t();
    for (std::size_t k = 0; k < ts.size(); ++k) below[k] += t <= ts[k];
  }
  const double mean = sum / n, se = std::sqrt((sum_sq / n - mean * mean) / n);
  const double z = two_sided_critical_z(bonferroni_alpha(kAlpha, ts.size() + 1));
  INFO("mean " << mean << " +- " << se << " tilted mean " << x.tilted_mean(theta));
  CHECK(std::abs(mean - x.tilted_mean(theta)) <= z * se);
  CHECK(std::abs(mean - 1.01 * x.tilted_mean(theta)) > z * se);  // power: 1 % off is far outside the noise
  for (std::size_t k = 0; k < ts.size(); ++k) {
    const auto node = static_cast<std::size_t>(std::lround((ts[k] + 1) / 2 * n_nodes));  // even nodes: Simpson ends
    const double exact = cdf[node - (node % 2)] / mass;
    const ProportionInterval ci = clopper_pearson(below[k], n, bonferroni_alpha(kAlpha, ts.size() + 1));
    INFO("P[t <= " << ts[k] << "] exact " << exact << " sampled [" << ci.lower << ", " << ci.upper << "]");
    CHECK(ci.lower <= exact);
    CHECK(exact <= ci.upper);
  }
  CHECK_THROWS_AS(TiltedFeature(g, 1, theta), std::invalid_argument);
  CHECK_THROWS_AS(TiltedFeature(g, d, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(TiltedFeature(g, d, 1e6), std::invalid_argument);  // θ·max X far past the mixture's terms
  CHECK_FALSE(tilted_feature_available(g, d, 1e6));
}

TEST_CASE("tilted estimate is unbiased for the exact tail (m = 1, 2) and a bound 1e-3 times too small is violated",
          "[tails][tilted][statistical][power]") {
  const int d = 16;
  const Geometry g{0.1, 0.5, 1.0};
  const double smreg = smreg_exact(g, d);
  std::vector<TiltedTailPoint> points;
  std::vector<double> exact;
  for (int m : {1, 2})
    for (double delta : {1.0, 3.0, 5.0}) {
      const double a = smreg * (1 + delta);
      points.push_back({g, m, a, theorem3_bound(g, d, m, a).theta, points.size()});
      exact.push_back(exact_tail(g, d, m, a));
    }
  const std::vector<TiltedTailEstimate> e = run_tilted_tails(d, points, 2021, 9, 200000, 2);
  const double z = two_sided_critical_z(bonferroni_alpha(kAlpha, 2 * points.size()));
  for (std::size_t j = 0; j < points.size(); ++j) {
    const double range = std::exp(e[j].log_range), p = range * e[j].mean_ratio;
    const double se = range * e[j].sd_ratio / std::sqrt(static_cast<double>(e[j].trials));
    const double bound = theorem3_bound(g, d, points[j].m, points[j].a).iid;
    INFO("m=" << points[j].m << " a=" << points[j].a << " tilted " << p << " +- " << se << " exact " << exact[j]
              << " bound " << bound);
    CHECK(std::abs(p - exact[j]) <= z * se);
    CHECK(std::abs(p - 1.05 * exact[j]) > z * se);  // power: a 5 % bias would be seen (the SE is at most 0.6 %)
    CHECK(range == Approx(bound).epsilon(1e-9));     // every draw lies in [0, the Chernoff bound]
    TailBoundCheck right("P <= bound", "test", kAlpha, 1), small("P <= bound / 1000", "test", kAlpha, 1);
    const TiltedTailEvidence ev{e[j].mean_ratio, e[j].trials, range, e[j].low_factor, e[j].high_factor, e[j].shift,
                                bound, "p"};
    CHECK(right.judge_tilted(ev).status == Verdict::holds);
    TiltedTailEvidence too_small = ev;
    too_small.bound = exact[j] * 1e-3;
    CHECK(small.judge_tilted(too_small).status == Verdict::violated);
  }
  // Where the bound is 4e-59 (m = 16, a = 6 SMREG) a bound 1e-3 times smaller is caught from 512 draws.
  const double a = 6 * smreg;
  const TailBound b = theorem3_bound(g, d, 16, a);
  const TiltedTailEstimate tiny = run_tilted_tails(d, {{g, 16, a, b.theta, 0}}, 2021, 10, 512, 2)[0];
  TailBoundCheck holds("P <= bound", "test", kAlpha, 1), caught("P <= bound / 1000", "test", kAlpha, 1);
  TiltedTailEvidence ev{tiny.mean_ratio, tiny.trials, std::exp(tiny.log_range), tiny.low_factor, tiny.high_factor,
                        tiny.shift, b.iid, "m=16"};
  CHECK(holds.judge_tilted(ev).status == Verdict::holds);
  ev.bound = b.iid * 1e-3;
  CHECK(caught.judge_tilted(ev).status == Verdict::violated);
}

TEST_CASE("tilted check level: a bound just below P is held, and the true P called violated, at most at alpha/2",
          "[tails][tilted][statistical]") {
  // m = 1, where P is exact: 2000 runs of 400 draws at α = 0.1. "holds" against 0.98·P and "violated" against P are
  // each a false verdict with probability ≤ α/2 = 0.05; the interval misses P with probability ≤ α.
  const int d = 16, runs = 2000;
  const Geometry g{0.5, 0.5, 1.0};
  const double a = 4 * smreg_exact(g, d), p = exact_tail(g, d, 1, a), theta = theorem3_bound(g, d, 1, a).theta;
  std::vector<TiltedTailPoint> copies;  // the same point under different keys: independent runs
  for (int r = 0; r < runs; ++r) copies.push_back({g, 1, a, theta, static_cast<std::uint64_t>(r)});
  const std::vector<TiltedTailEstimate> estimates = run_tilted_tails(d, copies, 100, 0, 400, 2);
  std::int64_t false_holds = 0, false_violations = 0, misses = 0;
  for (const TiltedTailEstimate& e : estimates) {
    TiltedTailEvidence ev{e.mean_ratio, e.trials, std::exp(e.log_range), e.low_factor, e.high_factor, e.shift, p, "p"};
    TailBoundCheck at_p("P <= P", "level", 0.1, 1), below("P <= 0.98 P", "level", 0.1, 1);
    const TailPointVerdict v = at_p.judge_tilted(ev);
    false_violations += v.status == Verdict::violated;
    misses += !(v.interval.lower <= p && p <= v.interval.upper);
    ev.bound = 0.98 * p;
    false_holds += below.judge_tilted(ev).status == Verdict::holds;
  }
  INFO("false holds " << false_holds << ", false violations " << false_violations << ", misses " << misses << " of "
                      << runs);
  CHECK(false_holds <= binomial_ceiling(runs, 0.05, kAlpha / 3));
  CHECK(false_violations <= binomial_ceiling(runs, 0.05, kAlpha / 3));
  CHECK(misses <= binomial_ceiling(runs, 0.1, kAlpha / 3));
}

TEST_CASE("Hoeffding relative-entropy limits: closed forms, coverage on skewed laws, and a normal interval fails it",
          "[tails][stats][statistical]") {
  for (std::int64_t n : {1, 10, 1000}) {  // x̄ = 0: the upper limit solves n·(−log(1 − q)) = log(2/α)
    const MeanLimits l = bounded_mean_limits(0, n, 0.05);
    CHECK(l.lower == 0);
    CHECK(l.upper == Approx(-std::expm1(std::log(0.05 / 2) / static_cast<double>(n))).epsilon(1e-12));
    CHECK(l.upper >= -std::expm1(std::log(0.05 / 2) / static_cast<double>(n)));  // on the conservative side
    const MeanLimits mirror = bounded_mean_limits(1, n, 0.05);
    CHECK(mirror.lower == Approx(1 - l.upper).epsilon(1e-12));
  }
  const MeanLimits mid = bounded_mean_limits(0.3, 50, 0.01);
  CHECK(mid.lower < 0.3);
  CHECK(mid.upper > 0.3);
  CHECK(bounded_mean_draws(0.3, mid.upper, 0.01) == Approx(50).margin(1));
  CHECK_THROWS_AS(bounded_mean_limits(1.5, 10, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(bounded_mean_limits(0.5, 0, 0.05), std::invalid_argument);

  // Each side misses with probability ≤ α/2 = 0.1 for any law on [0, 1]: Bernoulli(0.05) at n = 40, U⁵ (mean 1/6,
  // skewed) at n = 10, and a law with an atom of 0.9 at 0 and the rest uniform, at n = 25.
  struct Law {
    const char* name;
    int n;
    double mean;
    double (*draw)(PhiloxStream&);
  };
  const std::vector<Law> laws{
      {"Bernoulli(0.05)", 40, 0.05, [](PhiloxStream& r) { return r.uniform() < 0.05 ? 1.0 : 0.0; }},
      {"U^5", 10, 1.0 / 6, [](PhiloxStream& r) { return std::pow(r.uniform(), 5); }},
      {"0.9 at 0, else uniform", 25, 0.05, [](PhiloxStream& r) { return r.uniform() < 0.9 ? 0.0 : r.uniform(); }}};
  const int reps = 20000;
  const std::int64_t ceiling = binomial_ceiling(reps, 0.1, kAlpha / 8);
  for (std::size_t k = 0; k < laws.size(); ++k) {
    std::int64_t above = 0, below = 0, normal_above = 0;
    for (int r = 0; r < reps; ++r) {
      PhiloxStream rng(31, k, static_cast<std::uint64_t>(r));
      double sum = 0, sum_sq = 0;
      for (int i = 0; i < laws[k].n; ++i) {
        const double v = laws[k].draw(rng);
        sum += v;
        sum_sq += v * v;
      }
      const double mean = sum / laws[k].n;
      const MeanLimits l = bounded_mean_limits(mean, laws[k].n, 0.2);
      above += laws[k].mean > l.upper;
      below += laws[k].mean < l.lower;
      const double sd = std::sqrt(std::max(0.0, (sum_sq - laws[k].n * mean * mean) / (laws[k].n - 1)));
      normal_above += laws[k].mean > mean + 1.2816 * sd / std::sqrt(static_cast<double>(laws[k].n));
    }
    INFO(laws[k].name << ": upper misses " << above << ", lower misses " << below << ", normal upper misses "
                      << normal_above << " of " << reps << " (ceiling " << ceiling << ")");
    CHECK(above <= ceiling);
    CHECK(below <= ceiling);
    CHECK(normal_above > ceiling);  // power: the simulation sees a wrong level (measured 0.13, 0.21, 0.24)
  }
}

TEST_CASE("tilted draws: the same sums for 1 and 2 threads, bad configurations refused",
          "[tails][tilted][determinism]") {
  const int d = 8;
  const Geometry g{0.4, 0.5, 0.3};
  const double a = 3 * smreg_exact(g, d);
  const std::vector<TiltedTailPoint> points{{g, 1, a, theorem3_bound(g, d, 1, a).theta, 0},
                                            {g, 4, a, theorem3_bound(g, d, 4, a).theta, 7}};
  const auto one = run_tilted_tails(d, points, 4, 5, 1000, 1), two = run_tilted_tails(d, points, 4, 5, 1000, 2);
  for (std::size_t j = 0; j < points.size(); ++j) {
    CHECK(one[j].mean_ratio == two[j].mean_ratio);
    CHECK(one[j].sd_ratio == two[j].sd_ratio);
    CHECK(one[j].hits == two[j].hits);
  }
  // A point's draws depend on its key, not on the other points.
  CHECK(run_tilted_tails(d, {points[1]}, 4, 5, 1000, 1)[0].mean_ratio == one[1].mean_ratio);
  CHECK_THROWS_AS(run_tilted_tails(d, points, 4, 5, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(run_tilted_tails(d, points, 4, 5, 10, 0), std::invalid_argument);
  CHECK_THROWS_AS(run_tilted_tails(d, {{g, 0, a, 1.0, 0}}, 4, 5, 10, 1), std::invalid_argument);
  CHECK_THROWS_AS(run_tilted_tails(d, {{g, 1, a, 1.0, std::uint64_t{1} << 24}}, 4, 5, 10, 1), std::invalid_argument);
}

TEST_CASE("tail check wording: a zero count under a tiny bound says what it needs, exact points claim no room",
          "[tails][stats]") {
  TailBoundCheck tiny("P <= bound", "here", 1e-3, 1);
  CHECK(tiny.judge({0, 2000000, 0, 6.51e-30, "m=8"}).status == Verdict::inconclusive);
  const Check t = tiny.result();
  INFO(t.detail);
  CHECK(t.trials_needed == kOutOfReach);
  CHECK(t.out_of_reach.find("needs ~1.") != std::string::npos);
  CHECK(t.out_of_reach.find("e+30 draws (p_hat = 0, bound 6.51e-30)") != std::string::npos);
  CHECK(t.detail.find("sits on the bound") == std::string::npos);

  TailBoundCheck exact("P <= bound", "here", 1e-3, 2);
  CHECK(exact.judge_support({0, 1000, 0, 0.0, "beyond the support"}).status == Verdict::holds);
  CHECK(exact.judge_support({0, 1000, 0, 4e-8, "beyond the orthogonal maximum"}).status == Verdict::holds);
  const Check e = exact.result();
  CHECK(e.status == Verdict::holds);
  CHECK(std::isnan(e.margin));
  CHECK(std::isnan(e.power));
  CHECK(e.detail.find("% room") == std::string::npos);
  CHECK(e.detail.find("every held point is exact") != std::string::npos);
  TailBoundCheck contradicted("P <= bound", "here", 1e-3, 1);
  CHECK(contradicted.judge_support({1, 1000, 0, 4e-8, "an estimate above its maximum"}).status == Verdict::violated);
}

TEST_CASE("favorlab tails settles the points a count leaves open: tilted (iid) and exact (orthogonal)",
          "[tails][cli][experiment]") {
  // The d = 16 grid whose 26 points stayed open with 2e6 counted draws, at 2000 draws and 512 tilted draws.
  using namespace favorlab::testing;
  const auto dir = scratch_dir("tails-methods");
  const auto run = run_cli("tails --d 16 --m 2,4,8,16 --x-norm 0.1,0.5 --y-norm 0.5 --delta 1.5,2,3,5 --trials 2000 "
                           "--tilted-trials 512 --quiet --out t.json",
                           dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "t.json"));
  const std::set<std::tuple<int, double, double>> open{
      {2, 0.1, 5}, {4, 0.1, 3}, {4, 0.1, 5}, {8, 0.1, 2}, {8, 0.1, 3}, {8, 0.1, 5}, {8, 0.5, 5},
      {16, 0.1, 1.5}, {16, 0.1, 2}, {16, 0.1, 3}, {16, 0.1, 5}, {16, 0.5, 3}, {16, 0.5, 5}};
  int seen = 0;
  for (const auto& row : doc["rows"]) {
    const bool iid = row["coupling"] == "iid";
    if (!open.count({row["m"].get<int>(), row["x_norm"].get<double>(), row["delta"].get<double>()})) {
      // The rest of this small grid: only orthogonal rows with m >= 2 below their maximum are counted, and 2000
      // draws leave some of those open (they hold at the paper's 2e6).
      INFO(row.dump());
      if (iid || row["m"] == 1) CHECK(row["status"] == "holds");
      else if (row["status"] != "holds") CHECK(row["method"] == "count");
      continue;
    }
    ++seen;
    INFO(row.dump());
    CHECK(row["status"] == "holds");
    CHECK(row["method"] == (iid ? "tilted" : "support"));
    if (iid) {
      CHECK(row["tilted_upper"].get<double>() <= row["bound"].get<double>());
      CHECK(row["tilted_lower"].get<double>() > 0);
    } else {
      CHECK(row["chernoff_status"] == "holds");
      CHECK(row["a"].get<double>() >= row["max_estimate_orthogonal"].get<double>());
      CHECK(row["above_support"] == false);  // above the orthogonal maximum, not one feature's
    }
  }
  CHECK(seen == 26);
  for (const auto& check : doc["checks"]) {
    INFO(check.dump());
    CHECK(check["status"] != "violated");
    if (check["where"].get<std::string>().rfind("iid", 0) == 0) CHECK(check["status"] == "holds");
    else if (check["status"] == "inconclusive")  // the one reason no method settles those points
      CHECK(check["detail"].get<std::string>().find("orthogonal rows with m >= 2 have no tilted estimate") !=
            std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
