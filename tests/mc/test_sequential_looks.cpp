// Looks until conclusive (mc/sequential_looks.hpp, stats/look_spending.hpp): the α spending sums to α, the loop stops
// for the reasons it reports, its level holds over the looks on the distributions the checks meet (simulated), the
// naive design without spending does not (the simulation's power), a planted deviation is found, and a continued
// sweep equals a fixed run of its size.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "mc/estimator_sweep.hpp"
#include "mc/sequential_looks.hpp"
#include "mc/sweep_set.hpp"
#include "rng/philox_stream.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/look_spending.hpp"
#include "stats/running_moments.hpp"

using namespace favorlab;

namespace {

enum class Draw { normal, exponential, lognormal };

// One draw and its exact mean and skewness: normal N(1, 1); exponential(1), skewness 2; lognormal(0, 1), skewness
// (e + 2)·√(e − 1) ≈ 6.2 (the heavy-tailed case: a few large draws carry the mean).
double draw(Draw kind, PhiloxStream& rng) {
  switch (kind) {
    case Draw::normal: return 1 + rng.normal();
    case Draw::exponential: return -std::log(rng.uniform());
    case Draw::lognormal: return std::exp(rng.normal());
  }
  return 0;
}
double draw_mean(Draw kind) { return kind == Draw::lognormal ? std::exp(0.5) : 1.0; }
double draw_skewness(Draw kind) {
  const double e = std::numbers::e;
  return kind == Draw::normal ? 0 : kind == Draw::exponential ? 2 : (e + 2) * std::sqrt(e - 1);
}

struct Simulation {
  Draw kind = Draw::normal;
  double theory_factor = 1;  // theory = mean · factor: 1 is the null of "violated"
  double margin = 1e-9;      // the check's equivalence margin: tiny keeps every point open until a look rejects
  double alpha = 0.05;
  int points = 2, max_looks = 6, replicates = 1000;
  std::int64_t pilot = 400;  // the experiments' pilots are 20 000 trials and more
  bool spend = true;         // false: the naive design, every look at the whole α
};

struct Tally {
  std::int64_t violated = 0, held = 0;  // replicates where some point was violated / every point held
};

// Replicates of a check over `points` cells, each cell's draws from PhiloxStream(seed, replicate · points + cell, t).
Tally simulate(const Simulation& s, std::uint64_t seed) {
  Tally tally;
  const double mean = draw_mean(s.kind), theory = mean * s.theory_factor;
  for (int r = 0; r < s.replicates; ++r) {
    std::vector<RunningMoments> cells(static_cast<std::size_t>(s.points));
    const auto extend = [&](const std::vector<std::size_t>& which, std::int64_t to) {
      for (std::size_t c : which)
        for (std::int64_t t = cells[c].count(); t < to; ++t) {
          PhiloxStream rng(seed, static_cast<std::uint64_t>(r * s.points) + c, static_cast<std::uint64_t>(t));
          cells[c].add(draw(s.kind, rng));
        }
    };
    std::vector<std::size_t> all;
    for (std::size_t c = 0; c < cells.size(); ++c) all.push_back(c);
    extend(all, s.pilot);
    ClaimCheck scratch("sim", "sim", s.alpha, cells.size(), ClaimCheck::Sides::two, s.margin);
    const auto evidence = [&](std::size_t c, int look) {
      PointEvidence ev{cells[c].mean(), theory, cells[c].standard_error(), 0, draw_skewness(s.kind), cells[c].count(),
                       0, "cell " + std::to_string(c)};
      ev.look = s.spend ? look : -1;
      return ev;
    };
    LookPlan plan;
    plan.max_looks = s.max_looks;
    const LookRecord rec = run_looks(
        cells.size(), s.pilot, 0, plan, [&](std::size_t c, int look) { return scratch.judge(evidence(c, look)); },
        extend);
    ClaimCheck final_check("sim", "sim", s.alpha, cells.size(), ClaimCheck::Sides::two, s.margin);
    for (std::size_t c = 0; c < cells.size(); ++c) final_check.judge(evidence(c, rec.cell_look[c]));
    const Check result = final_check.result();
    tally.violated += result.points_violated > 0 ? 1 : 0;
    tally.held += result.status == Verdict::holds ? 1 : 0;
  }
  return tally;
}

// The simulated rate is consistent with at most α: the Clopper–Pearson interval at confidence 1 − 2e-6 does not lie
// wholly above α. A correct design fails this with probability at most 1e-6.
bool level_refuted(std::int64_t k, std::int64_t n, double alpha) { return clopper_pearson(k, n, 2e-6).lower > alpha; }

}  // namespace

TEST_CASE("look spending: look k spends 6 alpha/(pi^2 (k+1)^2), the shares sum to alpha", "[mc][looks]") {
  CHECK(look_alpha(0.05, 0) == Approx(0.05 * 6 / (std::numbers::pi * std::numbers::pi)).epsilon(1e-15));
  CHECK(look_alpha(0.05, 3) == Approx(look_alpha(0.05, 0) / 16).epsilon(1e-15));
  double sum = 0;
  for (int k = 0; k < 1'000'000; ++k) sum += look_alpha(0.05, k);
  CHECK(sum <= 0.05);
  CHECK(sum == Approx(0.05).epsilon(1e-5));  // the tail beyond 1e6 looks is 6α/(π²·1e6)
  CHECK_THROWS_AS(look_alpha(0.05, -1), std::invalid_argument);
  CHECK_THROWS_AS(look_alpha(0, 0), std::invalid_argument);
  CHECK(look_trials(100, 0) == 100);
  CHECK(look_trials(100, 5) == 3200);
  CHECK(look_trials(100, 70) == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("a point judged at a look uses that look's share: wider interval, more trials needed", "[mc][looks]") {
  ClaimCheck check("c", "w", 0.05, 10);
  PointEvidence ev{1.001, 1.0, 0.008, 0, 0, 1000, 0, "p"};
  const double fixed = check.critical_value(ev);
  ev.look = 0;
  const double pilot = check.critical_value(ev);
  ev.look = 9;
  const double late = check.critical_value(ev);
  CHECK(fixed < pilot);
  CHECK(pilot < late);
  CHECK(check.point_alpha(ev) == Approx(look_alpha(0.05, 9) / 10).epsilon(1e-15));
  ClaimCheck a("c", "w", 0.05, 10), b("c", "w", 0.05, 10);
  ev.look = -1;
  const PointVerdict v_fixed = a.judge(ev);
  ev.look = 9;
  const PointVerdict v_late = b.judge(ev);
  REQUIRE(v_fixed.status == Verdict::inconclusive);
  REQUIRE(v_late.status == Verdict::inconclusive);
  CHECK(v_late.trials_needed > v_fixed.trials_needed);
  CHECK_THAT(b.result().detail, Catch::Contains("sequential") && Catch::Contains("deepest look 9"));
  CHECK_THAT(a.result().detail, !Catch::Contains("sequential"));
}

TEST_CASE("run_looks: doubling looks, the stop reported, every cell's look recorded", "[mc][looks]") {
  // Cell c settles once it has 16·2^c trials; cell 5 never does; cell 6's z test is unreliable beyond the last look
  // (it stops after the pilot), cell 5's reliable but open (it draws on whatever it asks for).
  std::vector<std::int64_t> trials(7, 16);
  std::vector<std::int64_t> calls;
  const auto judge = [&](std::size_t c, int) {
    PointVerdict v;
    if (c < 5 && trials[c] >= (std::int64_t{16} << c)) v.status = Verdict::holds;
    else v.trials_needed = c >= 5 ? std::int64_t{1} << 40 : trials[c] + 1;
    v.reliable = c != 6;
    return v;
  };
  const auto extend = [&](const std::vector<std::size_t>& cells, std::int64_t to) {
    calls.push_back(to);
    for (std::size_t c : cells) {
      CHECK(trials[c] == to / 2);  // every look doubles
      trials[c] = to;
    }
  };
  LookPlan plan;
  plan.max_looks = 4;
  const LookRecord r = run_looks(7, 16, 0, plan, judge, extend);
  CHECK(calls == std::vector<std::int64_t>{32, 64, 128});
  CHECK(r.looks_reached == 4);
  CHECK(r.stopped_by == "max looks");
  CHECK(r.cell_look == std::vector<int>{0, 1, 2, 3, 3, 3, 0});
  CHECK(trials == std::vector<std::int64_t>{16, 32, 64, 128, 128, 128, 16});
  CHECK(r.extra_cell_trials == 5 * 16 + 4 * 32 + 3 * 64);  // look 1: cells 1–5; look 2: 2–5; look 3: 3–5

  // A budget too small for the next look stops before it; a fixed run (1 look) never extends.
  std::fill(trials.begin(), trials.end(), 16);
  calls.clear();
  plan.max_looks = 10;
  plan.budget_seconds = 1e-12;
  const LookRecord b = run_looks(7, 16, 1.0, plan, judge, extend);
  CHECK(calls.empty());
  CHECK(b.stopped_by == "budget");
  CHECK(b.looks_reached == 1);
  plan = LookPlan{};
  CHECK(run_looks(7, 16, 1.0, plan, judge, extend).stopped_by == "max looks");
  CHECK(calls.empty());
  // Only the skewed cell open: it stops at once, and says why.
  const auto only6 = [&](std::size_t c, int look) {
    PointVerdict v = judge(c, look);
    if (c != 6) v.status = Verdict::holds;
    return v;
  };
  plan.max_looks = 10;
  CHECK(run_looks(7, 16, 1.0, plan, only6, extend).stopped_by == "skewed beyond the last look");
  CHECK(calls.empty());
  // Open cells that no trial count settles (a non-finite figure; a difference at the margin) stop at once too.
  for (std::int64_t needed : {std::int64_t{0}, kOutOfReach}) {
    const auto stuck = [&](std::size_t, int) {
      PointVerdict v;
      v.trials_needed = needed;
      v.reliable = needed != 0;
      return v;
    };
    const LookRecord s = run_looks(3, 16, 1.0, plan, stuck, extend);
    CHECK(s.stopped_by == "no trial count helps");
    CHECK(calls.empty());
  }
}

TEST_CASE("the looks' cost model: a line through the latest two cell counts, never dearer per trial for fewer cells",
          "[mc][looks]") {
  CHECK(look_seconds_per_trial({}, 10) == 0);
  CHECK(look_seconds_per_trial({{40, 0.08}}, 20) == Approx(0.04));  // one count: proportional to the cells
  // A line with a positive intercept: 0.02 + 0.0015·cells, through (20, 0.05) and (40, 0.08).
  CHECK(look_seconds_per_trial({{40, 0.08}, {20, 0.05}}, 10) == Approx(0.035));
  // Timings of a real run (attention-error, L = 1024): 40 cells at 0.084 s per trial, then 39 at 0.0625. The line
  // through them has slope 0.0215 and an intercept below 0 clamped to 0, so it predicted 0.774 s per trial for 36
  // cells, twelve times the look just timed, and stopped the run by its budget at a quarter of it. Capped: 0.0625.
  CHECK(look_seconds_per_trial({{40, 0.084}, {39, 0.0625}}, 36) == Approx(0.0625));
  CHECK(look_seconds_per_trial({{40, 0.084}, {39, 0.0625}}, 39) == Approx(0.0625));
}

TEST_CASE("looks: the false-violation rate stays within alpha over 6 looks (normal, skewed, heavy-tailed draws), "
          "and exceeds it without spending",
          "[mc][looks][statistical]") {
  for (Draw kind : {Draw::normal, Draw::exponential, Draw::lognormal}) {
    Simulation s;
    s.kind = kind;
    const Tally spent = simulate(s, 71);
    INFO("draws " << static_cast<int>(kind) << ": " << spent.violated << " of " << s.replicates
                  << " replicates with a false violation");
    CHECK_FALSE(level_refuted(spent.violated, s.replicates, s.alpha));
    if (kind == Draw::normal) {
      // Power of the simulation: the same looks judged each at the whole α exceed it, and the simulation shows it.
      s.spend = false;
      const Tally naive = simulate(s, 71);
      INFO("naive: " << naive.violated << " of " << s.replicates);
      CHECK(level_refuted(naive.violated, s.replicates, s.alpha));
    }
  }
}

TEST_CASE("looks: a theory at the edge of the margin is held falsely at most alpha of the time, and a 5 % wrong "
          "theory is found",
          "[mc][looks][statistical]") {
  Simulation edge;  // the true mean lies exactly at the margin: "holds" is the false verdict
  edge.margin = 0.02;
  edge.theory_factor = 1 / 1.02;
  edge.points = 1;
  const Tally t = simulate(edge, 72);
  INFO(t.held << " of " << edge.replicates << " replicates held a theory 2 % off with margin 2 %");
  CHECK_FALSE(level_refuted(t.held, edge.replicates, edge.alpha));

  // Power: 5 % off with margin 2 %. At the last look (400·2^5 = 12 800 draws of SD 1) the SE is 0.884 % and look 5's
  // critical value 3.338 (α_5 = 8.44e-4, one point): a replicate misses every look only if it misses the last, where
  // |mean − theory| must fall 2.32 SE short of 5 %: probability 0.0102. Over 200 replicates more than 12 misses has
  // probability 1.9e-7 (binomial), so at least 188 must be violated.
  Simulation wrong;
  wrong.margin = 0.02;
  wrong.theory_factor = 1.05;
  wrong.points = 1;
  wrong.replicates = 200;
  const Tally w = simulate(wrong, 73);
  CHECK(w.violated >= wrong.replicates - 12);
}

TEST_CASE("a continued sweep equals a fixed run of its size, and extends only the cells named", "[mc][looks]") {
  SweepConfig c;
  c.d = 4;
  c.specs = {{Family::trig, 4}, {Family::positive, 4}};
  c.points = {{0.5, 0.5, 0.3}, {1.0, 0.5, -0.2}, {0.8, 1.2, 0.9}};
  c.trials = 64;
  c.threads = 2;
  for (Coupling coupling : {Coupling::iid, Coupling::orthogonal}) {
    c.coupling = coupling;
    SweepResult grown = run_estimator_sweep(c);
    extend_estimator_sweep(c, grown, {1, 4, 5}, 256);  // trig at point 1, positive at points 1 and 2
    extend_estimator_sweep(c, grown, {5}, 1024);
    SweepConfig big = c;
    big.trials = 256;
    const SweepResult fixed256 = run_estimator_sweep(big);
    big.trials = 1024;
    const SweepResult fixed1024 = run_estimator_sweep(big);
    const auto same = [](const RunningMoments& a, const RunningMoments& b) {
      return a.count() == b.count() && a.mean() == b.mean() && a.central_moment(2) == b.central_moment(2) &&
             a.central_moment(3) == b.central_moment(3) && a.central_moment(4) == b.central_moment(4);
    };
    for (std::size_t cell : {1, 4}) CHECK(same(grown.cells[cell].error, fixed256.cells[cell].error));
    CHECK(same(grown.cells[5].error, fixed1024.cells[5].error));
    CHECK(grown.cells[0].error.count() == 64);
    CHECK(grown.cells[3].error.count() == 64);
    CHECK_THROWS_AS(extend_estimator_sweep(c, grown, {5}, 1024), std::invalid_argument);  // not fewer
    CHECK_THROWS_AS(extend_estimator_sweep(c, grown, {6}, 2048), std::invalid_argument);  // no such cell
  }
}

TEST_CASE("a sweep set's looks give the same cells at 1 and 2 threads", "[mc][looks]") {
  std::vector<std::vector<double>> means;
  for (int threads : {1, 2}) {
    std::vector<SweepConfig> configs;
    for (Coupling coupling : {Coupling::iid, Coupling::orthogonal}) {
      SweepConfig c;
      c.d = 4;
      c.coupling = coupling;
      c.stream = static_cast<std::uint64_t>(coupling);
      c.specs = {{Family::trig, 4}};
      c.points = {{0.5, 0.5, 0.3}, {1.5, 1.5, -0.9}};
      c.trials = 32;
      c.threads = threads;
      configs.push_back(c);
    }
    SweepSet set(configs);
    LookPlan plan;
    plan.max_looks = 4;
    ClaimCheck scratch("c", "w", 0.05, 2);
    const LookRecord r = set.take_looks(plan, [&](std::size_t cell, int look) {
      PointEvidence ev{set.truth(cell) + set.cell(cell).error.mean(), set.truth(cell),
                       set.cell(cell).error.standard_error(), 0, 0, set.cell(cell).error.count(), 0, "p"};
      ev.look = look;
      return scratch.judge(ev);
    });
    CHECK(r.looks_reached >= 2);
    std::vector<double> m;
    for (std::size_t cell = 0; cell < set.cells(); ++cell) {
      m.push_back(set.cell(cell).error.mean());
      m.push_back(static_cast<double>(set.cell(cell).error.count()));
    }
    means.push_back(m);
  }
  CHECK(means[0] == means[1]);
}

namespace {

// Verdict shares of one check over replicates.
struct Shares {
  int holds = 0, violated = 0, open = 0;
};

// An equality check of one point (margin 2 %, α = 0.05) on N(1, 1) draws against a theory `off` above the mean,
// judged two ways on the same draws: with looks (pilot 1000, 10 looks: up to 512 000 draws) and by one fixed run of
// the final size (512 000 draws, the whole α). The sample mean after n draws is drawn exactly from its Gaussian
// increments (a random walk over the look sizes), its SE σ/√n with σ = 1 known: the looks' stopping rule and α
// spending are the product's (run_looks, ClaimCheck), the draws need not be materialized.
std::pair<Shares, Shares> looks_and_fixed_run(double off, int replicates, std::uint64_t seed) {
  constexpr std::int64_t kPilot = 1000;
  constexpr int kLooks = 10;
  const double theory = 1 + off;
  Shares looks, fixed;
  const auto tally = [](Shares& s, Verdict v) {
    (v == Verdict::holds ? s.holds : v == Verdict::violated ? s.violated : s.open) += 1;
  };
  for (int r = 0; r < replicates; ++r) {
    std::vector<double> mean(kLooks);
    double sum = 0;
    std::int64_t n = 0;
    for (int k = 0; k < kLooks; ++k) {
      const std::int64_t to = look_trials(kPilot, k);
      PhiloxStream rng(seed, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(k));
      sum += static_cast<double>(to - n) + std::sqrt(static_cast<double>(to - n)) * rng.normal();
      n = to;
      mean[k] = sum / static_cast<double>(n);
    }
    const auto evidence = [&](int look, int judged_at) {
      const std::int64_t trials = look_trials(kPilot, look);
      PointEvidence ev{mean[static_cast<std::size_t>(look)], theory, 1 / std::sqrt(static_cast<double>(trials)), 0, 0,
                       trials, 0, "p"};
      ev.look = judged_at;
      return ev;
    };
    ClaimCheck scratch("sim", "sim", 0.05, 1);
    LookPlan plan;
    plan.max_looks = kLooks;
    const LookRecord rec = run_looks(
        1, kPilot, 0, plan, [&](std::size_t, int look) { return scratch.judge(evidence(look, look)); },
        [](const std::vector<std::size_t>&, std::int64_t) {});
    ClaimCheck with_looks("sim", "sim", 0.05, 1), one_run("sim", "sim", 0.05, 1);
    tally(looks, with_looks.judge(evidence(rec.cell_look[0], rec.cell_look[0])).status);
    tally(fixed, one_run.judge(evidence(kLooks - 1, -1)).status);
  }
  return {looks, fixed};
}

}  // namespace

TEST_CASE("looks stop at the first verdict: a theory inside the margin holds with looks, is violated by one fixed run "
          "of the final size (docs/judging.md's table)",
          "[mc][looks][statistical]") {
  // "holds" at an equality says the difference lies within the margin at the precision reached; "violated" that the
  // theory is excluded. A theory off by less than the margin satisfies both at the final size, and the looks stop at
  // the first they reach. The counts are docs/judging.md's table (2000 replicates per row, seed 74).
  struct Row {
    double off;
    Shares looks, fixed;
  };
  const std::vector<Row> table{
      {0.000, {1918, 82, 0}, {1894, 106, 0}}, {0.005, {1817, 183, 0}, {111, 1889, 0}},
      {0.010, {903, 1097, 0}, {0, 2000, 0}},  {0.015, {95, 1905, 0}, {0, 2000, 0}},
      {0.020, {1, 1999, 0}, {0, 2000, 0}},    {0.030, {0, 2000, 0}, {0, 2000, 0}},
      {0.050, {0, 2000, 0}, {0, 2000, 0}},
  };
  constexpr int kReplicates = 2000;
  for (const Row& row : table) {
    const auto [looks, fixed] = looks_and_fixed_run(row.off, kReplicates, 74);
    INFO("theory off by " << row.off << ": looks " << looks.holds << "/" << looks.violated << "/" << looks.open
                          << ", fixed run " << fixed.holds << "/" << fixed.violated << "/" << fixed.open);
    CHECK(looks.holds == row.looks.holds);
    CHECK(looks.violated == row.looks.violated);
    CHECK(fixed.holds == row.fixed.holds);
    CHECK(fixed.violated == row.fixed.violated);
    if (row.off == 0) {
      // Level: the right theory is falsely violated at most α of the time either way.
      CHECK_FALSE(level_refuted(looks.violated, kReplicates, 0.05));
      CHECK_FALSE(level_refuted(fixed.violated, kReplicates, 0.05));
    }
    if (row.off == 0.005) {
      // What the table shows: with looks most runs stop at "holds"; the fixed run of the final size refutes.
      CHECK(looks.holds > 0.8 * kReplicates);
      CHECK(fixed.violated > 0.9 * kReplicates);
    }
    if (row.off == 0.05) {  // power: beyond the margin both designs refute
      CHECK(looks.violated > 0.95 * kReplicates);
      CHECK(fixed.violated > 0.95 * kReplicates);
    }
  }
}
