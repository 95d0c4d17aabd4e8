// The permutation library (src/perm) against independent computations: brute-force orders (compose until the
// identity), dense permutation matrices, enumeration of all n! permutations (std::next_permutation), brute force over
// integer partitions, and OEIS values typed in (A000793 Landau's g(n), A060014 Σ of the orders over S_n).
// Statistical tests use ClaimCheck with a family-wise α of kAlpha, fixed seeds (deterministic), and REQUIRE every
// point to be conclusive; the power test feeds a wrong theory and requires a violation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "mc/parallel_trials.hpp"
#include "perm/heads_lcm.hpp"
#include "perm/landau.hpp"
#include "perm/max_heads_lcm.hpp"
#include "perm/order_asymptotics.hpp"
#include "perm/order_distribution.hpp"
#include "perm/permutation.hpp"
#include "stats/chernoff_interval.hpp"
#include "stats/claim_check.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/second_order_edgeworth.hpp"
#include "stats/value_counts.hpp"

using namespace favorlab;

namespace {

constexpr double kAlpha = 1e-6;

// Order by brute force: compose with π until the identity comes back.
std::uint64_t brute_order(const Permutation& p) {
  Permutation power = p;
  std::uint64_t k = 1;
  while (!power.is_identity()) {
    power = compose(p, power);
    ++k;
  }
  return k;
}

// Every integer partition of n (parts descending).
void partitions(int n, int max_part, std::vector<int>& current, std::vector<std::vector<int>>& out) {
  if (n == 0) {
    out.push_back(current);
    return;
  }
  for (int k = std::min(n, max_part); k >= 1; --k) {
    current.push_back(k);
    partitions(n - k, k, current, out);
    current.pop_back();
  }
}

std::vector<std::vector<int>> partitions(int n) {
  std::vector<std::vector<int>> out;
  std::vector<int> current;
  partitions(n, n, current, out);
  return out;
}

std::uint64_t lcm_u64(const std::vector<int>& parts) {
  std::uint64_t l = 1;
  for (int k : parts) l = std::lcm(l, static_cast<std::uint64_t>(k));
  return l;
}

ValueCounts<std::uint64_t> sample_orders(int n, std::int64_t trials, int threads, std::uint64_t seed) {
  using Tally = ValueCounts<std::uint64_t>;
  return run_parallel_trials(trials, threads, Tally{}, [&](std::int64_t t, Tally& acc) {
    ++acc.counts[random_permutation(n, seed, 7, static_cast<std::uint64_t>(t)).order_u64()];
  });
}

// Monte Carlo mean of the order at each n against `theory(n)`, with the exact SD; REQUIREs conclusive points.
Verdict mean_check(const std::vector<int>& ns, std::int64_t trials, const std::function<double(int)>& theory) {
  ClaimCheck check("E[order]", "test", kAlpha, ns.size());
  const double point_alpha = bonferroni_alpha(kAlpha, ns.size());
  for (int n : ns) {
    const double mean =
        sample_moments(sample_orders(n, trials, 2, 99), [](std::uint64_t k) { return static_cast<double>(k); }).mean;
    const OrderSummary s = summarize(order_distribution(n));
    const PointVerdict v = check.judge({mean, theory(n),
                                        s.sd / std::sqrt(static_cast<double>(trials)), 1e-12 * s.mean, s.skewness,
                                        trials, 0, "n",
                                        trials_for_second_order_z_test(s.skewness, s.excess_kurtosis,
                                                                        check.critical_z(), point_alpha)});
    INFO("n=" << n << " z=" << v.z << " needs " << v.trials_needed);
    REQUIRE(v.reliable);
  }
  return check.result().status;
}

}  // namespace

TEST_CASE("Permutation: composition, inverse, powers and cycles", "[perm]") {
  const Permutation p({2, 0, 1, 4, 3, 5});  // (0 2 1)(3 4)(5)
  CHECK(p.cycles() == std::vector<std::vector<int>>{{0, 2, 1}, {3, 4}, {5}});
  CHECK(p.cycle_type() == std::vector<int>{3, 2, 1});
  CHECK(p.order() == 6);
  CHECK(p.order_u64() == 6);
  CHECK(compose(p, p.inverse()).is_identity());
  CHECK(compose(p.inverse(), p).is_identity());
  CHECK(compose(p, p)(0) == p(p(0)));
  CHECK(p.power(0).is_identity());
  CHECK(p.power(6).is_identity());
  CHECK(p.power(-1) == p.inverse());
  Permutation repeated = Permutation::identity(6);
  for (int k = 1; k <= 13; ++k) {
    repeated = compose(p, repeated);
    CHECK(p.power(k) == repeated);
    CHECK(p.power(-k) == repeated.inverse());
  }
}

TEST_CASE("Order and lcm over heads agree with repeated composition", "[perm]") {
  for (int n = 1; n <= 12; ++n)
    for (std::uint64_t i = 0; i < 40; ++i) {
      const Permutation p = random_permutation(n, 5, 1, i);
      INFO("n=" << n << " i=" << i);
      REQUIRE(p.order_u64() == brute_order(p));
      REQUIRE(p.order() == brute_order(p));
    }
  PhiloxStream rng(5, 2, 0);
  for (int trial = 0; trial < 30; ++trial) {
    const std::vector<Permutation> heads = random_heads(3, 9, rng);
    std::uint64_t l = 1;
    for (const Permutation& h : heads) l = std::lcm(l, brute_order(h));
    REQUIRE(lcm_of_orders(heads) == l);
    REQUIRE(log10_lcm_of_orders(heads) == Approx(std::log10(static_cast<double>(l))).margin(1e-12));
  }
}

TEST_CASE("Random permutations are deterministic and uniform on S_4", "[perm][statistical]") {
  CHECK(random_permutation(50, 1, 2, 3) == random_permutation(50, 1, 2, 3));
  CHECK_FALSE(random_permutation(50, 1, 2, 3) == random_permutation(50, 1, 2, 4));
  // Each of the 24 permutations has probability 1/24: binomial counts, normal approximation, Bonferroni over 24.
  const std::int64_t trials = 240000;
  std::map<std::vector<int>, std::int64_t> counts;
  for (std::int64_t t = 0; t < trials; ++t) ++counts[random_permutation(4, 11, 0, static_cast<std::uint64_t>(t)).image()];
  REQUIRE(counts.size() == 24);
  const double p = 1.0 / 24, sd = std::sqrt(static_cast<double>(trials) * p * (1 - p));
  const double z = two_sided_critical_z(bonferroni_alpha(kAlpha, 24));
  for (const auto& [image, c] : counts) CHECK(std::abs(static_cast<double>(c) - static_cast<double>(trials) * p) < z * sd);
  // Identical results for any thread count.
  CHECK(sample_orders(20, 3000, 1, 4).counts == sample_orders(20, 3000, 2, 4).counts);
}

TEST_CASE("Powers: the gather with the index map pi^i is P_pi^i with P_ab = 1 iff pi(a) = b", "[perm]") {
  const int m = 7, length = 30;
  const Permutation pi = random_permutation(m, 3, 0, 0);
  // out[a] = x[π^i(a)] (the gather of PermuteFormer's position permutations) and its transpose, the scatter.
  const auto gather = [&](int i, const std::vector<double>& in, std::vector<double>& out) {
    const Permutation p = pi.power(i);
    for (int a = 0; a < m; ++a) out[std::size_t(a)] = in[std::size_t(p(a))];
  };
  const auto scatter = [&](int i, const std::vector<double>& in, std::vector<double>& out) {
    const Permutation p = pi.power(i);
    for (int a = 0; a < m; ++a) out[std::size_t(p(a))] = in[std::size_t(a)];
  };
  // Dense P_π and its powers by matrix products.
  std::vector<std::vector<int>> P(m, std::vector<int>(m, 0)), Pi(m, std::vector<int>(m, 0));
  for (int a = 0; a < m; ++a) {
    P[static_cast<std::size_t>(a)][static_cast<std::size_t>(pi(a))] = 1;
    Pi[static_cast<std::size_t>(a)][static_cast<std::size_t>(a)] = 1;
  }
  const std::vector<double> x{0.5, -1.0, 2.0, 3.5, 4.25, -7.0, 1.5};
  Permutation repeated = Permutation::identity(m);
  for (int i = 0; i < length; ++i) {
    for (int a = 0; a < m; ++a) REQUIRE(pi.power(i)(a) == repeated(a));
    std::vector<double> gathered(m), scattered(m), dense(m, 0.0), dense_t(m, 0.0);
    gather(i, x, gathered);
    scatter(i, x, scattered);
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) {
        dense[static_cast<std::size_t>(a)] += Pi[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] * x[static_cast<std::size_t>(b)];
        dense_t[static_cast<std::size_t>(a)] += Pi[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] * x[static_cast<std::size_t>(b)];
      }
    REQUIRE(gathered == dense);
    REQUIRE(scattered == dense_t);
    // Next power: P^{i+1} = P^i P, and π^{i+1} = π ∘ π^i.
    std::vector<std::vector<int>> next(m, std::vector<int>(m, 0));
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b)
        for (int c = 0; c < m; ++c)
          next[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)] +=
              Pi[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] * P[static_cast<std::size_t>(b)][static_cast<std::size_t>(c)];
    Pi = next;
    repeated = compose(pi, repeated);
  }
  // PermuteFormer's relative-position property: (P^i x)·(P^j y) = x·(P^{j−i} y) for j ≥ i.
  const std::vector<double> y{1.0, 2.0, -3.0, 0.25, 5.0, 6.0, -0.5};
  for (int i = 0; i < 10; ++i)
    for (int j = i; j < 20; ++j) {
      std::vector<double> qi(m), kj(m), kd(m);
      gather(i, x, qi);
      gather(j, y, kj);
      gather(j - i, y, kd);
      double lhs = 0, rhs = 0;
      for (int a = 0; a < m; ++a) {
        lhs += qi[static_cast<std::size_t>(a)] * kj[static_cast<std::size_t>(a)];
        rhs += x[static_cast<std::size_t>(a)] * kd[static_cast<std::size_t>(a)];
      }
      REQUIRE(lhs == rhs);
    }
}

TEST_CASE("Exact E[order] equals enumeration of S_n and OEIS A060014", "[perm]") {
  // OEIS A060014: Σ_{π ∈ S_n} order(π), n = 1..21.
  const std::vector<std::string> a060014{"1", "3", "13", "67", "471", "3271", "31333", "299223", "3291487",
                                         "39020911", "543960561", "7466726983", "118551513523", "1917378505407",
                                         "32405299019941", "608246253790591", "12219834139189263",
                                         "253767339725277823", "5591088918313739017", "126036990829657056711",
                                         "2956563745611392385211"};
  for (int n = 1; n <= static_cast<int>(a060014.size()); ++n) {
    INFO("n=" << n);
    REQUIRE(expected_order(n) * order_distribution(n).permutations ==
            BigRational(BigInt(a060014[static_cast<std::size_t>(n - 1)])));
  }
  for (int n = 1; n <= 9; ++n) {  // 9! = 362880 permutations; A060014 covers larger n
    std::vector<int> image(static_cast<std::size_t>(n));
    std::iota(image.begin(), image.end(), 0);
    BigInt sum = 0, sum_sq = 0, count = 0;
    do {
      const std::uint64_t o = Permutation(image).order_u64();
      sum += o;
      sum_sq += BigInt(o) * o;
      ++count;
    } while (std::next_permutation(image.begin(), image.end()));
    const OrderDistribution d = order_distribution(n);
    INFO("n=" << n);
    REQUIRE(d.permutations == count);
    REQUIRE(d.moment(1) == BigRational(sum, count));
    REQUIRE(d.moment(2) == BigRational(sum_sq, count));
  }
}

TEST_CASE("Exact order distribution equals the sum over cycle types for n <= 30", "[perm]") {
  for (int n : {12, 20, 30}) {
    // Σ_λ lcm(λ)/z_λ with z_λ = Π k^{c_k} c_k!, exact rationals.
    BigRational expected = 0;
    std::map<std::uint64_t, BigRational> pmf;
    for (const auto& lambda : partitions(n)) {
      BigInt z = 1;
      std::map<int, int> multiplicity;
      for (int k : lambda) ++multiplicity[k];
      for (const auto& [k, c] : multiplicity)
        for (int j = 1; j <= c; ++j) z *= k * j;
      expected += BigRational(lcm_u64(lambda), z);
      pmf[lcm_u64(lambda)] += BigRational(1, z);
    }
    const OrderDistribution d = order_distribution(n);
    INFO("n=" << n);
    REQUIRE(d.moment(1) == expected);
    REQUIRE(d.orders.size() == pmf.size());
    for (std::size_t j = 0; j < d.orders.size(); ++j) REQUIRE(d.probability(j) == pmf.at(d.orders[j]));
  }
}

TEST_CASE("Landau's g(n) against OEIS A000793 and brute force over partitions", "[perm]") {
  // A000793, n = 1..42.
  const std::vector<long long> a000793{1,    2,    3,    4,    6,    6,    12,   15,    20,    30,    30,
                                       60,   60,   84,   105,  140,  210,  210,  420,   420,   420,   420,
                                       840,  840,  1260, 1260, 1540, 2310, 2520, 4620,  4620,  5460,  5460,
                                       9240, 9240, 13860, 13860, 16380, 16380, 27720, 30030, 32760};
  for (int n = 1; n <= static_cast<int>(a000793.size()); ++n) {
    const LandauResult g = landau(n);
    INFO("n=" << n);
    REQUIRE(g.value == a000793[static_cast<std::size_t>(n - 1)]);
    REQUIRE(std::accumulate(g.cycle_type.begin(), g.cycle_type.end(), 0) == n);
    REQUIRE(lcm_of_lengths(g.cycle_type) == g.value);
  }
  for (int n = 1; n <= 30; ++n) {
    std::uint64_t best = 0;
    for (const auto& lambda : partitions(n)) best = std::max(best, lcm_u64(lambda));
    REQUIRE(landau(n).value == best);
    REQUIRE(order_distribution(n).orders.back() == best);
  }
}

TEST_CASE("Max lcm over heads against brute force over pairs and triples of cycle types", "[perm]") {
  for (int n = 1; n <= 12; ++n) {
    const auto parts = partitions(n);
    std::uint64_t best2 = 0, best3 = 0;
    for (const auto& a : parts)
      for (const auto& b : parts) {
        std::vector<int> ab = a;
        ab.insert(ab.end(), b.begin(), b.end());
        const std::uint64_t l = lcm_u64(ab);
        best2 = std::max(best2, l);
        if (n <= 7)
          for (const auto& c : parts) {
            std::vector<int> abc = ab;
            abc.insert(abc.end(), c.begin(), c.end());
            best3 = std::max(best3, lcm_u64(abc));
          }
      }
    INFO("n=" << n);
    const HeadsLcmMaximum one = max_heads_lcm(n, 1), two = max_heads_lcm(n, 2);
    REQUIRE(one.exact);
    REQUIRE(one.value == landau(n).value);
    REQUIRE(two.exact);
    REQUIRE(two.value == best2);
    REQUIRE(two.upper_bound >= two.value);
    for (const auto& head : two.heads) REQUIRE(std::accumulate(head.begin(), head.end(), 0) <= n);
    if (n <= 7) REQUIRE(max_heads_lcm(n, 3).value == best3);
  }
  // Size 64: H = 1 is Landau; 12 heads already reach lcm(1..64), the largest lcm of any numbers ≤ 64.
  std::vector<int> one_to_64(64);
  std::iota(one_to_64.begin(), one_to_64.end(), 1);
  CHECK(max_heads_lcm(64, 1).value == landau(64).value);
  const HeadsLcmMaximum twelve = max_heads_lcm(64, 12);
  CHECK(twelve.exact);
  CHECK(twelve.value == lcm_of_lengths(one_to_64));
  const HeadsLcmMaximum eight = max_heads_lcm(64, 8);
  CHECK(eight.exact);
  CHECK(eight.value < eight.upper_bound);
}

TEST_CASE("Monte Carlo mean order matches the exact E[order], and a wrong theory is caught", "[perm][statistical]") {
  const std::vector<int> ns{8, 16, 32};
  const auto exact = [](int n) { return summarize(order_distribution(n)).mean; };
  CHECK(mean_check(ns, 100000, exact) != Verdict::violated);
  // Power: 3% too high an expectation must be detected at the same trial count.
  CHECK(mean_check(ns, 100000, [&](int n) { return 1.03 * exact(n); }) == Verdict::violated);
}

TEST_CASE("Monte Carlo mean order against the exact law's Chernoff interval, and a wrong theory is caught",
          "[perm][statistical]") {
  // perm-order's route for E[order]: the sampler's mean against the exact mean, with the interval from the exact law.
  const std::vector<int> ns{8, 16, 32, 64};
  const std::int64_t trials = 200000;
  const auto verdict = [&](double factor) {
    ChernoffMeanCheck check("E[order]", "test", kAlpha, ns.size());
    for (int n : ns) {
      const OrderDistribution d = order_distribution(n);
      std::vector<double> values, probabilities;
      for (std::size_t j = 0; j < d.orders.size(); ++j) {
        values.push_back(static_cast<double>(d.orders[j]));
        probabilities.push_back(d.probability(j).convert_to<double>());
      }
      const ChernoffDeviation law(values, probabilities, d.moment(1).convert_to<double>());
      const double mean =
          sample_moments(sample_orders(n, trials, 2, 99), [](std::uint64_t k) { return static_cast<double>(k); }).mean;
      check.judge(law, {mean, factor * law.mean(), 1e-12 * law.mean(), trials, "n=" + std::to_string(n)});
    }
    return check.result().status;
  };
  CHECK(verdict(1) != Verdict::violated);
  // Power: 5 % too high or too low an expectation is refuted at some n (n = 64 alone needs 10⁶ draws to hold).
  CHECK(verdict(1.05) == Verdict::violated);
  CHECK(verdict(0.95) == Verdict::violated);
}

TEST_CASE("Asymptotic laws and known constants", "[perm]") {
  CHECK(goh_schmutz_constant() == Approx(2.9904).margin(2e-4));
  CHECK(erdos_turan_mean_log(64) == Approx(0.5 * std::pow(std::log(64.0), 2)));
  CHECK(erdos_turan_variance_log(64) == Approx(std::pow(std::log(64.0), 3) / 3));
  const OrderSummary s = summarize(order_distribution(64));
  CHECK(s.mean > 3000);  // PermuteFormer's "over 3000"
  CHECK(s.median < s.mean);
}

TEST_CASE("Bad input is rejected", "[perm]") {
  CHECK_THROWS_AS(Permutation::identity(0), std::invalid_argument);
  CHECK_THROWS_AS(Permutation(std::vector<int>{}), std::invalid_argument);
  CHECK_THROWS_AS(Permutation(std::vector<int>{0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(Permutation(std::vector<int>{0, 2}), std::invalid_argument);
  CHECK_THROWS_AS(random_permutation(0, 1, 2, 3), std::invalid_argument);
  CHECK_THROWS_AS(random_permutation(-3, 1, 2, 3), std::invalid_argument);
  CHECK_THROWS_AS(order_distribution(0), std::invalid_argument);
  CHECK_THROWS_AS(landau(0), std::invalid_argument);
  CHECK_THROWS_AS(max_heads_lcm(0, 3), std::invalid_argument);
  CHECK_THROWS_AS(max_heads_lcm(64, 0), std::invalid_argument);
  CHECK_THROWS_AS(max_heads_lcm(64, -1), std::invalid_argument);
  PhiloxStream rng(1, 1, 1);
  CHECK_THROWS_AS(random_heads(0, 64, rng), std::invalid_argument);
  CHECK_THROWS_AS(lcm_of_orders({}), std::invalid_argument);
  CHECK_THROWS_AS(compose(Permutation::identity(2), Permutation::identity(3)), std::invalid_argument);
}

TEST_CASE("perm-order on the command line: bad input exits 2, threads do not change the numbers", "[perm][cli]") {
  using namespace favorlab::testing;
  const auto dir = scratch_dir("perm-order");
  for (const std::string args : {"--n 0", "--n 8,300", "--heads 0", "--heads -2", "--head-size 1", "--alpha 0",
                                 "--exact-max-n 500", "--head-trials -1"}) {
    const auto run = run_cli("perm-order " + args + " --trials 50 --quiet --out r.json", dir);
    INFO("favorlab perm-order " << args << "\nstderr: " << run.err);
    CHECK(run.status == 2);
    CHECK(run.err.find(args.substr(0, args.find(' '))) != std::string::npos);
  }
  const std::string small = "perm-order --n 8,16,64 --heads 1,3 --trials 400 --quiet";
  REQUIRE(run_cli(small + " --threads 1 --out a.json", dir).status == 0);
  REQUIRE(run_cli(small + " --threads 2 --out b.json", dir).status == 0);
  const auto a = nlohmann::json::parse(read_text(dir / "a.json")), b = nlohmann::json::parse(read_text(dir / "b.json"));
  auto strip_seconds = [](nlohmann::json rows) {
    for (auto& row : rows) row.erase("exact_seconds");
    return rows;
  };
  CHECK(strip_seconds(a["rows"]) == strip_seconds(b["rows"]));
  CHECK(a["checks"] == b["checks"]);
  std::filesystem::remove_all(dir);
}
