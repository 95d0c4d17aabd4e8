// Sign tests with looks (mc/paired_looks.hpp): each look's exact test at its share of α keeps the family-wise level
// over the looks (simulated at the null that is hardest for it, P(A above B) = ½, both false verdicts), the same
// looks each judged at the whole α do not (the simulation's power), a true difference is found, a point's verdict is
// the verdict of a fixed run of its size at its look, and a run without looks is the fixed-size check.
#include <catch2/catch.hpp>

#include <cmath>

#include "mc/paired_looks.hpp"
#include "rng/philox_stream.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/look_spending.hpp"

using namespace favorlab;

namespace {

// Pair i of point p in replicate r: A = exp(Z₁), B = exp(Z₂ + shift) from PhiloxStream(seed, r·points + p, i), so
// P(A > B) = Φ(−shift/√2): ½ at shift 0. The same (seed, r, p, i) always gives the same pair.
struct PairSource {
  std::uint64_t seed = 0;
  int points = 2;
  double shift = 0;
  std::pair<double, double> pair(int replicate, std::size_t point, std::int64_t i) const {
    PhiloxStream rng(seed, static_cast<std::uint64_t>(replicate * points) + point, static_cast<std::uint64_t>(i));
    const double a = std::exp(rng.normal());
    return {a, std::exp(rng.normal() + shift)};
  }
};

struct Replicate {
  PairedLookOutcome outcome;
};

// One replicate of a check over `points` points: pilot pairs, then looks up to max_looks.
PairedLookOutcome replicate(const PairSource& src, int r, double alpha, std::int64_t pilot, int max_looks,
                            bool spend, double share) {
  std::vector<PairedLookPoint> points;
  for (int p = 0; p < src.points; ++p) points.push_back({0, "p" + std::to_string(p)});
  std::vector<std::int64_t> have(points.size(), pilot);
  LookPlan plan;
  plan.max_looks = max_looks;
  const auto pairs = [&](std::size_t p, std::int64_t n, std::vector<double>& a, std::vector<double>& b) {
    REQUIRE(n <= have[p]);
    a.clear();
    b.clear();
    for (std::int64_t i = 0; i < n; ++i) {
      const auto [x, y] = src.pair(r, p, i);
      a.push_back(x);
      b.push_back(y);
    }
  };
  const auto extend = [&](const std::vector<std::size_t>& which, std::int64_t n) {
    for (std::size_t p : which) have[p] = n;
  };
  // spend = false: the naive design, every look judged at the whole α (a check whose α is not split by look).
  const auto make = [&](std::size_t) {
    return PairedClaimCheck("a below b", "sim", alpha, points.size(), PairedClaimCheck::Ties::excluded, "inputs",
                            share);
  };
  if (spend) return run_paired_looks(1, points, pilot, 0, plan, make, pairs, extend);
  // The naive design: judge every look at the whole α with the same driver (look −1 in each judgement).
  PairedLookOutcome out;
  PairedClaimCheck judge = make(0);
  std::vector<double> a, b;
  std::int64_t violated = 0, held = 0;
  for (std::size_t p = 0; p < points.size(); ++p) {
    PairedVerdict v;
    for (int look = 0; look < max_looks; ++look) {
      have[p] = look_trials(pilot, look);
      pairs(p, have[p], a, b);
      v = judge.judge(a, b, "p", -1);
      if (v.status != Verdict::inconclusive) break;
    }
    out.verdicts.push_back(v);
    violated += v.status == Verdict::violated;
    held += v.status == Verdict::holds;
  }
  Check c;
  set_point_counts(c, held, violated, static_cast<std::int64_t>(points.size()) - held - violated);
  out.checks.push_back(c);
  return out;
}

struct Rates {
  int violated = 0, held = 0;  // replicates with some point violated / some point held
};

Rates simulate(const PairSource& src, int replicates, double alpha, std::int64_t pilot, int max_looks, bool spend,
               double share = 0.5) {
  Rates rates;
  for (int r = 0; r < replicates; ++r) {
    const PairedLookOutcome o = replicate(src, r, alpha, pilot, max_looks, spend, share);
    rates.violated += o.checks[0].points_violated > 0;
    rates.held += o.checks[0].points_held > 0;
  }
  return rates;
}

// The simulated rate is consistent with at most α unless its Clopper–Pearson interval at confidence 1 − 2e-6 lies
// wholly above α: a correct design fails this with probability at most 1e-6.
bool level_refuted(int k, int n, double alpha) { return clopper_pearson(k, n, 2e-6).lower > alpha; }

}  // namespace

TEST_CASE("paired looks: the false-verdict rate of sign tests over 7 looks stays within alpha, and exceeds it "
          "without spending",
          "[mc][looks][statistical]") {
  // Two points, 15 pairs in the pilot (attention-error's), looks to 960 pairs, α = 0.05; the null P(A above B) = ½
  // is the boundary of both verdicts. A point violated (A above B significantly often) and a point held are each a
  // false verdict there; each kind's rate over the replicates must be consistent with α.
  const PairSource null{81, 2, 0.0};
  const Rates spent = simulate(null, 1000, 0.05, 15, 7, true);
  INFO("spent: " << spent.violated << " violated, " << spent.held << " held of 1000");
  CHECK_FALSE(level_refuted(spent.violated, 1000, 0.05));
  CHECK_FALSE(level_refuted(spent.held, 1000, 0.05));
  // The simulation's power: judging every look at the whole α crosses a boundary far more often than α.
  const Rates naive = simulate(null, 1000, 0.05, 15, 7, false);
  INFO("naive: " << naive.violated << " violated, " << naive.held << " held of 1000");
  CHECK(level_refuted(naive.violated, 1000, 0.05));
  CHECK(level_refuted(naive.held, 1000, 0.05));
}

TEST_CASE("paired looks: a claim with a margin (A below B on more than 60 % of pairs) keeps its level at its boundary",
          "[mc][looks][statistical]") {
  // shift 0.358284: P(A above B) = Φ(−0.253347) = 0.4, the boundary of the 60 % claim (attention-report's "error
  // falls as m grows"), where both false verdicts are likeliest. Pilot 20 (attention-report's), looks to 1280 pairs.
  const PairSource boundary{84, 2, 0.358284};
  const Rates spent = simulate(boundary, 1000, 0.05, 20, 7, true, 0.6);
  INFO("boundary of 60 %: " << spent.violated << " violated, " << spent.held << " held of 1000");
  CHECK_FALSE(level_refuted(spent.violated, 1000, 0.05));
  CHECK_FALSE(level_refuted(spent.held, 1000, 0.05));
  // Power: a flat head (P(A above B) = ½) is refuted, in every one of 200 replicates: at 2560 pairs (look 7) the
  // boundary's one-point critical count is 1024 + 3.30·24.8 = 1106 pairs above, the flat head's 1280 lie 6.9 SD (of
  // 25.3) beyond: a replicate misses it with probability below 1e-11.
  const Rates flat = simulate(PairSource{85, 1, 0.0}, 200, 0.05, 20, 8, true, 0.6);
  CHECK(flat.violated == 200);
}

TEST_CASE("paired looks: a true difference is found, on the side it lies", "[mc][looks][statistical]") {
  // shift ±0.55: P(A above B) = Φ(∓0.389) = 0.349 / 0.651. At the last look (960 pairs) the split's SD is 0.0154,
  // so the observed share lies 9.8 SD from ½; look 6's one-point critical share (α₆ = 0.05·6/(49π²) = 6.2e-4,
  // z = 3.23) is 0.5 ± 0.052, 6.4 SD from the truth: a replicate misses it with probability below 1e-9. Every one
  // of 200 replicates must settle the right way.
  for (double shift : {0.55, -0.55}) {
    const PairSource src{82, 1, shift};
    const Rates r = simulate(src, 200, 0.05, 15, 7, true);
    INFO("shift " << shift << ": " << r.held << " held, " << r.violated << " violated of 200");
    if (shift > 0) CHECK(r.held == 200);
    else CHECK(r.violated == 200);
  }
}

TEST_CASE("paired looks: a point's verdict is a fixed run of its size judged at its look, and no looks is the fixed check",
          "[mc][looks]") {
  const PairSource src{83, 3, 0.3};
  std::vector<PairedLookPoint> points{{0, "p0"}, {0, "p1"}, {1, "p2"}};
  std::vector<std::int64_t> have(3, 15);
  const auto pairs = [&](std::size_t p, std::int64_t n, std::vector<double>& a, std::vector<double>& b) {
    REQUIRE(n <= have[p]);
    a.clear();
    b.clear();
    for (std::int64_t i = 0; i < n; ++i) {
      const auto [x, y] = src.pair(0, p, i);
      a.push_back(x);
      b.push_back(y);
    }
  };
  const auto extend = [&](const std::vector<std::size_t>& which, std::int64_t n) {
    for (std::size_t p : which) {
      CHECK(have[p] == n / 2);
      have[p] = n;
    }
  };
  const auto make = [](std::size_t c) { return PairedClaimCheck("a below b", "c" + std::to_string(c), 0.01, 2); };
  LookPlan plan;
  plan.max_looks = 8;
  const PairedLookOutcome o = run_paired_looks(2, points, 15, 0, plan, make, pairs, extend);
  REQUIRE(o.checks.size() == 2);
  CHECK(o.checks[0].points_total == 2);
  CHECK(o.checks[1].points_total == 1);
  bool later = false;
  for (std::size_t p = 0; p < points.size(); ++p) {
    CHECK(o.pairs[p] == look_trials(15, o.look[p]));
    later = later || o.look[p] > 0;
    std::vector<double> a, b;
    pairs(p, o.pairs[p], a, b);
    PairedClaimCheck fixed = make(points[p].check);
    const PairedVerdict v = fixed.judge(a, b, points[p].label, o.look[p]);
    CHECK(v.status == o.verdicts[p].status);
    CHECK(v.above == o.verdicts[p].above);
    CHECK(v.n == o.verdicts[p].n);
  }
  CHECK(later);  // 15 pairs settle nothing at α = 0.005 per point with P(A above B) = 0.42
  CHECK_THAT(o.checks[0].detail, Catch::Contains("sequential") && Catch::Contains("deepest look"));

  // Without looks: the points judged once, at the whole α, on the pilot; nothing extended.
  std::fill(have.begin(), have.end(), 15);
  const PairedLookOutcome fixed = run_paired_looks(2, points, 15, 0, LookPlan{}, make, pairs, extend);
  PairedClaimCheck c0 = make(0), c1 = make(1);
  std::vector<double> a, b;
  for (std::size_t p = 0; p < 3; ++p) {
    pairs(p, 15, a, b);
    (points[p].check == 0 ? c0 : c1).judge(a, b, points[p].label);
    CHECK(fixed.look[p] == -1);
  }
  CHECK(fixed.checks[0].detail == c0.result().detail);
  CHECK(fixed.checks[1].detail == c1.result().detail);
  CHECK_THAT(fixed.checks[0].detail, !Catch::Contains("sequential"));
  CHECK_THROWS_AS(run_paired_looks(1, points, 15, 0, plan, make, pairs, extend), std::invalid_argument);
}
