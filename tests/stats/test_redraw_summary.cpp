// Feature redrawing (`favorlab redraw`) below the experiment: the sweep of projection draws
// (evaluation/redraw_sweep.hpp) against attend with the same draws, and its statistics (stats/redraw_summary.hpp)
// against hand computations; the bias-variance law's prediction against a known bias and variance (two-sided,
// alpha = 1e-3).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/favor_denominators.hpp"
#include "evaluation/attention_error.hpp"
#include "evaluation/redraw_sweep.hpp"
#include "rng/philox_stream.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/edgeworth.hpp"
#include "stats/redraw_summary.hpp"
#include "stats/skewness_bound.hpp"

using namespace favorlab;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("redraw summary of MSEs: finite values only, SE and skewness where defined", "[redraw][stats]") {
  const MseSummary s = summarize_mse({1, 2, 3, 4, kInf, NAN}, 20);
  CHECK(s.count == 4);
  CHECK(s.nonfinite == 2);
  CHECK(s.mean == 2.5);
  CHECK(s.stderr_ == Approx(std::sqrt(5.0 / 3) / 2).epsilon(1e-14));  // sample variance 5/3 over 4 values
  CHECK(s.skewness == Approx(0).margin(1e-15));                        // symmetric values
  CHECK(s.skewness_bound == kInf);                                     // fewer than 6 values: no usable bound
  // The gate's bound comes from the finite values only.
  const std::vector<double> skewed{1.0, 1.5, 1.2, 2.0, 1.1, 9.0, 1.3, 1.4, 3.0, 1.05, 1.6, 2.2};
  std::vector<double> with_inf = skewed;
  with_inf.push_back(kInf);
  const MseSummary r = summarize_mse(with_inf, 4);
  CHECK(r.skewness > 1);
  CHECK(std::isfinite(r.skewness_bound));
  CHECK(r.skewness_bound == skewness_upper_bound(skewed, 4));
  const MseSummary one = summarize_mse({5, kInf}, 20);
  CHECK(one.count == 1);
  CHECK(std::isnan(one.stderr_));
  CHECK(one.skewness == 0);
}

TEST_CASE("redraw distribution: quantiles of the finite draws, unlucky draws with a Clopper-Pearson interval",
          "[redraw][stats]") {
  std::vector<double> v{kInf};
  for (int i = 10; i >= 1; --i) v.push_back(i);
  const DrawDistribution d = draw_distribution(v, 1.5, 1e-3);
  CHECK(d.draws == 11);
  CHECK(d.nonfinite == 1);
  CHECK(d.median == 5.5);
  CHECK(d.q90 == Approx(9.1).epsilon(1e-14));  // NumPy's linear interpolation: 1 + 0.9 · 9
  CHECK(d.q99 == Approx(9.91).epsilon(1e-14));
  CHECK(d.best == 1);
  CHECK(d.worst == 10);
  CHECK(d.worst_over_median() == Approx(10 / 5.5).epsilon(1e-15));
  CHECK(d.unlucky_threshold == 8.25);
  CHECK(d.unlucky == 3);  // 9, 10 and the non-finite draw
  CHECK(d.unlucky_fraction == Approx(3.0 / 11).epsilon(1e-15));
  const ProportionInterval ci = clopper_pearson(3, 11, 1e-3);
  CHECK(d.unlucky_interval.lower == ci.lower);
  CHECK(d.unlucky_interval.upper == ci.upper);
  CHECK(d.unlucky_interval.lower < d.unlucky_fraction);
  CHECK(d.unlucky_fraction < d.unlucky_interval.upper);

  const DrawDistribution none = draw_distribution({kInf, NAN}, 2, 1e-3);
  CHECK(std::isnan(none.median));
  CHECK(std::isnan(none.worst_over_median()));
  CHECK(none.unlucky == 2);
  CHECK_THROWS_AS(draw_distribution({}, 2, 1e-3), std::invalid_argument);
}

TEST_CASE("redraw bias-variance law: the prediction B + V/k covers the known MSE of the k-average (alpha = 1e-3)",
          "[redraw][stats]") {
  // Y = b + σZ entrywise, b = 0.2, σ = 1: B = 0.04, V = 1, and the average of k = 4 draws has MSE 0.04 + 1/4.
  const double z = 3.29;  // two-sided α = 1e-3
  std::vector<ErrorBlock> blocks(20, ErrorBlock(4, 4));
  for (int r = 0; r < 2000; ++r) {
    PhiloxStream rng(11, 4, static_cast<std::uint64_t>(r));
    Eigen::MatrixXd y(4, 4);
    for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = 0.2 + rng.normal();
    blocks[std::size_t(r / 100)].add(y);
  }
  const BiasVarianceFigures f = bias_variance_figures(blocks);
  const BiasVariance bv = bias_variance(blocks);
  CHECK(f.bias_sq == bv.bias_sq);
  CHECK(f.variance == bv.variance);
  CHECK(f.draws == 2000);
  CHECK(f.bias_sq_stderr == jackknife_standard_error(blocks, [](const BiasVariance& x) { return x.bias_sq; }));
  CHECK(f.variance_stderr == jackknife_standard_error(blocks, [](const BiasVariance& x) { return x.variance; }));
  CHECK(f.bias_share() == Approx(bv.bias_sq / (bv.bias_sq + bv.variance)).epsilon(1e-15));
  const MsePrediction p = averaged_mse_prediction(blocks, 4);
  CHECK(p.value == bv.bias_sq + bv.variance / 4);
  INFO("prediction " << p.value << " ± " << p.stderr_);
  CHECK(std::abs(p.value - 0.29) < z * p.stderr_);
  // Power: the 1/k law without the bias, V/k = 0.25, is far outside.
  CHECK((p.value - 0.25) / p.stderr_ > 5);
}

TEST_CASE("redraw: the sample size for a reliable difference grows both samples in proportion", "[redraw][stats]") {
  const double z = 3.29, alpha = 1e-3;
  MseSummary a, b;
  a.count = 32, b.count = 256;
  a.skewness_bound = 1.5, b.skewness_bound = 0;  // b needs only 2 values: a's own need decides
  CHECK(reliable_size_for_difference(a, b, z, alpha) == trials_for_reliable_z_test(1.5, z, alpha));
  a.skewness_bound = 0, b.skewness_bound = 1.5;  // b needs n_b of 256: a grows by the same factor, 32/256
  const auto need_b = static_cast<double>(trials_for_reliable_z_test(1.5, z, alpha));
  CHECK(reliable_size_for_difference(a, b, z, alpha) == static_cast<std::int64_t>(std::ceil(need_b / 8)));
  a.skewness_bound = kInf;  // no usable bound: out of reach
  CHECK(reliable_size_for_difference(a, b, z, alpha) == static_cast<std::int64_t>(9.0e18));
}

namespace {

// The inputs both redraw sweep tests share: L × d Gaussian attention, its exact output, positive features with m = 8.
struct RedrawSetup {
  AttentionInput in;
  Eigen::MatrixXd exact;
  AttentionConfig config;
};

RedrawSetup small_redraw_setup(int L, int d) {
  RedrawSetup s{gaussian_attention_input(L, d, 3, 0.8, 1.0, 7, 0), {}, {}};
  AttentionConfig exact_config;
  exact_config.mechanism = Mechanism::exact;
  s.exact = attend<double>({s.in.q}, {s.in.k}, {s.in.v}, Eigen::MatrixXd(0, d), exact_config).front();
  s.config.features = Family::positive;
  s.config.m = 8;
  return s;
}

}  // namespace

TEST_CASE("redraw sweep: every draw's MSE, the averages of fresh draws and the blocks equal attend with those draws",
          "[redraw][attention]") {
  const int L = 16, d = 4;
  const RedrawSetup setup = small_redraw_setup(L, d);
  const AttentionInput& in = setup.in;
  const Eigen::MatrixXd& exact = setup.exact;
  const AttentionConfig& config = setup.config;
  const RedrawPlan plan{8, {1, 2, 3}, 2, 4};
  CHECK(redraw_forwards(plan) == 8 + 2 * 2 + 3 * 2);
  std::int64_t last_done = 0, last_total = 0;
  const RedrawSweep one = run_redraw_sweep(in, exact, config, plan, 31, Backend::cpu, 1,
                                           [&](std::int64_t done, std::int64_t total) {
                                             last_done = done;
                                             last_total = total;
                                           });
  CHECK(last_done == 18);
  CHECK(last_total == 18);
  auto output = [&](std::int64_t draw) {
    return attend<double>({in.q}, {in.k}, {in.v}, draw_attention_projection(config, d, 31, std::uint64_t(draw)),
                          config)
        .front();
  };
  REQUIRE(one.draw_mse.size() == 8);
  Eigen::MatrixXd error_sum = Eigen::MatrixXd::Zero(L, 3);
  for (int r = 0; r < 8; ++r) {
    CHECK(one.draw_mse[std::size_t(r)] == output_mse(output(r), exact));
    error_sum += output(r) - exact;
  }
  REQUIRE(one.blocks.size() == 4);
  Eigen::MatrixXd block_sum = Eigen::MatrixXd::Zero(L, 3);
  for (const ErrorBlock& b : one.blocks) {
    CHECK(b.draws == 2);  // consecutive draws, 8 over 4 blocks
    block_sum += b.sum;
  }
  CHECK((block_sum - error_sum).cwiseAbs().maxCoeff() < 1e-12);
  CHECK(one.nonfinite_draws == 0);
  // k = 2 uses draws 8..11, k = 3 draws 12..17: group 1 of k = 3 averages draws 15, 16, 17.
  REQUIRE(one.group_mse.size() == 3);
  CHECK(one.group_mse[0].empty());
  REQUIRE(one.group_mse[1].size() == 2);
  REQUIRE(one.group_mse[2].size() == 2);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(L, 3);
  for (int j = 15; j < 18; ++j) sum += output(j);
  CHECK(one.group_mse[2][1] == output_mse(sum / 3, exact));
  sum.setZero();
  for (int j = 8; j < 10; ++j) sum += output(j);
  CHECK(one.group_mse[1][0] == output_mse(sum / 2, exact));

  const RedrawSweep three = run_redraw_sweep(in, exact, config, plan, 31, Backend::cpu, 3);
  CHECK(three.draw_mse == one.draw_mse);
  CHECK(three.group_mse == one.group_mse);
  for (std::size_t b = 0; b < 4; ++b) CHECK(three.blocks[b].sum_sq == one.blocks[b].sum_sq);

  CHECK_THROWS_AS(run_redraw_sweep(in, exact, config, {3, {1}, 2, 4}, 31, Backend::cpu, 1), std::invalid_argument);
  CHECK_THROWS_AS(run_redraw_sweep(in, exact, config, {8, {1, 0}, 2, 4}, 31, Backend::cpu, 1), std::invalid_argument);
  CHECK_THROWS_AS(run_redraw_sweep(in, exact, config, {8, {1, 2}, 0, 4}, 31, Backend::cpu, 1), std::invalid_argument);
  CHECK_THROWS_AS(run_redraw_sweep(in, exact.topRows(4), config, plan, 31, Backend::cpu, 1), std::invalid_argument);
}

TEST_CASE("redraw sweep: each group's cross product is the mean of its draws' pairwise products, and A = S/k + "
          "(k - 1)U/k exactly",
          "[redraw][attention]") {
  const int L = 16, d = 4;
  const RedrawSetup setup = small_redraw_setup(L, d);
  const AttentionInput& in = setup.in;
  const Eigen::MatrixXd& exact = setup.exact;
  const AttentionConfig& config = setup.config;
  const RedrawSweep sweep = run_redraw_sweep(in, exact, config, {8, {1, 3}, 2, 4}, 31, Backend::cpu, 2);
  // k = 3 uses draws 8..13: group 1 is draws 11, 12, 13.
  std::vector<Eigen::MatrixXd> e;
  for (int j = 11; j < 14; ++j)
    e.push_back(attend<double>({in.q}, {in.k}, {in.v}, draw_attention_projection(config, d, 31, std::uint64_t(j)),
                               config)
                    .front() -
                exact);
  const double n = static_cast<double>(exact.size());
  double pairs = 0, own = 0;
  for (int j = 0; j < 3; ++j) {
    own += e[std::size_t(j)].squaredNorm() / n / 3;
    for (int l = 0; l < 3; ++l)
      if (l != j) pairs += e[std::size_t(j)].cwiseProduct(e[std::size_t(l)]).sum() / n / 6;
  }
  REQUIRE(sweep.group_cross[1].size() == 2);
  CHECK(sweep.group_cross[1][1] == Approx(pairs).epsilon(1e-12));
  CHECK(sweep.group_mse[1][1] == Approx(own / 3 + 2 * pairs / 3).epsilon(1e-12));
  CHECK(sweep.group_cross[0].empty());
  CHECK_FALSE(sweep.negative.found());  // positive features: D̂ > 0 on every draw, nothing scanned
}

TEST_CASE("redraw gaps: unbiased for k MSE_k - MSE_1 and MSE_k - B - V/k on errors with a known bias, and a wrong "
          "law is refuted",
          "[redraw][stats]") {
  // Errors Y = b + σZ entrywise (b = 0.2, σ = 1, 16 entries): B = 0.04, V = 1. Independent draws: E[(k − 1)U] =
  // (k − 1)B and E[(k − 1)(U − B̂)/k] = 0. Groups of k = 4 from their own draws, B̂ from 2000 other draws.
  const int k = 4, groups = 4000;
  std::vector<double> cross;
  for (int g = 0; g < groups; ++g) {
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(4, 4);
    double own = 0;
    for (int j = 0; j < k; ++j) {
      PhiloxStream rng(12, 5, static_cast<std::uint64_t>(g * k + j));
      Eigen::MatrixXd y(4, 4);
      for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = 0.2 + rng.normal();
      sum += y;
      own += y.squaredNorm();
    }
    cross.push_back((sum.squaredNorm() - own) / (k * (k - 1.0) * 16));
  }
  std::vector<ErrorBlock> blocks(20, ErrorBlock(4, 4));
  for (int r = 0; r < 2000; ++r) {
    PhiloxStream rng(12, 6, static_cast<std::uint64_t>(r));
    Eigen::MatrixXd y(4, 4);
    for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = 0.2 + rng.normal();
    blocks[std::size_t(r / 100)].add(y);
  }
  const BiasVarianceFigures singles = bias_variance_figures(blocks);
  const double z = 3.29;  // two-sided α = 1e-3 for each interval below
  const RedrawGap a = one_over_k_gap(cross, k, 20);
  CHECK(a.count == groups);
  INFO("(k-1)U: " << a.value << " ± " << a.stderr_ << "; law gap");
  CHECK(std::abs(a.value - 3 * 0.04) < z * a.stderr_);
  CHECK(a.value / a.stderr_ > 5);  // power: "k MSE_k = MSE_1" is refuted by the bias
  const RedrawGap b = law_gap(cross, k, 20, singles, 20);
  INFO("law gap " << b.value << " ± " << b.stderr_ << ", " << b.degrees_of_freedom << " degrees of freedom");
  CHECK(std::abs(b.value) < z * b.stderr_);
  CHECK(b.degrees_of_freedom > 19);
  CHECK(b.stderr_ == Approx(std::hypot(a.stderr_ / k, 0.75 * singles.bias_sq_stderr)).epsilon(1e-12));
  // Power: against a B twice the truth the law is refuted (its gap 0.75·0.04 = 0.03 is far past z SE).
  BiasVarianceFigures wrong = singles;
  wrong.bias_sq *= 2;
  const RedrawGap w = law_gap(cross, k, 20, wrong, 20);
  CHECK(std::abs(w.value) > 5 * w.stderr_);
  // A group with a non-finite cross product is left out and counted.
  cross.push_back(NAN);
  CHECK(one_over_k_gap(cross, k, 20).nonfinite == 1);
}

TEST_CASE("redraw with trig features: a draw with a negative normalizer is found, and the mean claims are out of reach",
          "[redraw][attention]") {
  const AttentionInput in = gaussian_attention_input(64, 8, 4, 1.0, 1.0, 2021, 0);
  AttentionConfig config;
  config.features = Family::trig;
  config.m = 16;
  const NegativeNormalizer found = first_negative_normalizer(in, config, 2021, 200, Backend::cpu);
  REQUIRE(found.found());
  const Eigen::VectorXd den = favor_denominators(
      in.q, in.k, draw_attention_projection(config, 8, 2021, std::uint64_t(found.draw)), config, Backend::cpu);
  CHECK(den(found.row) == found.value);
  CHECK(found.value < 0);
  for (std::int64_t r = 0; r < found.draw; ++r)  // the first such draw
    CHECK(favor_denominators(in.q, in.k, draw_attention_projection(config, 8, 2021, std::uint64_t(r)), config,
                             Backend::cpu)
              .minCoeff() >= 0);
  config.features = Family::positive;
  CHECK_FALSE(first_negative_normalizer(in, config, 2021, 200, Backend::cpu).found());
  config.features = Family::trig;
  config.renormalize = false;  // no division: nothing to certify
  CHECK_FALSE(first_negative_normalizer(in, config, 2021, 200, Backend::cpu).found());
  const Check c = unreachable_check("claim", "where", 4, "the output has no mean");
  CHECK(c.status == Verdict::inconclusive);
  CHECK(c.points_inconclusive == 4);
  CHECK(c.trials_needed == kOutOfReach);
  CHECK(c.out_of_reach == "the output has no mean");
}
