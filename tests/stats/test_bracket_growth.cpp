// "The needed size grows by at most a factor f along a group" judged from Clopper–Pearson brackets
// (stats/sufficient_size.hpp, bounded_growth_check): the verdict rules on hand-made brackets, the draws that would
// close a bracket, and the level simulated on nested draws — success probabilities sitting exactly at the target on
// the decisive grid sizes, the hardest case — with the Bonferroni split over the grid, and without it (the
// simulation's power: the unsplit rule's false verdicts exceed α). A planted growth ∝ L must be found violated,
// no growth must hold.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "rng/philox_stream.hpp"
#include "stats/clopper_pearson.hpp"
#include "stats/normal_quantiles.hpp"
#include "stats/sufficient_size.hpp"

using namespace favorlab;

namespace {

const std::vector<int> kGrid{8, 16, 32, 64, 128, 256};

// P[success] at each grid size: 0 below `from`, `at` there, 1 above — a curve whose bracket is decided by one grid
// point; `at` exactly at (or a hair under) the target is the hardest case for that point's interval.
std::vector<double> success_curve(int from, double at) {
  std::vector<double> p;
  for (int m : kGrid) p.push_back(m < from ? 0.0 : m == from ? at : 1.0);
  return p;
}

// One replicate: `groups` groups of two sizes (first and last L), the last's curve at most the first's at every m
// (nested draws). Draw t has one uniform U_t for all of its group's cells (one W serves every L and m): success where
// U_t < P. Brackets at point_alpha.
std::vector<std::vector<SufficientSize>> replicate(const std::vector<std::vector<double>>& first,
                                                   const std::vector<std::vector<double>>& last, std::int64_t draws,
                                                   double target, double point_alpha, std::uint64_t stream) {
  std::vector<std::vector<SufficientSize>> groups;
  for (std::size_t g = 0; g < first.size(); ++g) {
    std::vector<std::int64_t> a(kGrid.size(), 0), b(kGrid.size(), 0);
    for (std::int64_t t = 0; t < draws; ++t) {
      PhiloxStream rng(11, stream * 64 + g, static_cast<std::uint64_t>(t));
      const double u = rng.uniform();
      for (std::size_t i = 0; i < kGrid.size(); ++i) {
        a[i] += u < first[g][i];
        b[i] += u < last[g][i];
      }
    }
    groups.push_back({sufficient_size(kGrid, a, draws, target, point_alpha),
                      sufficient_size(kGrid, b, draws, target, point_alpha)});
  }
  return groups;
}

struct Rates {
  int violated = 0, held = 0, replicates = 0;
};

// Replicates of the check over groups with these first and last curves (one pair per group), 80 draws, α = 0.05
// split over every grid point (bonferroni) or not at all.
Rates simulate(const std::vector<std::vector<double>>& first, const std::vector<std::vector<double>>& last,
               bool bonferroni, int replicates = 2000) {
  const double target = 0.9, alpha = 0.05;
  const std::int64_t draws = 80;
  const double point_alpha = bonferroni ? alpha / static_cast<double>(2 * first.size() * kGrid.size()) : alpha;
  Rates r;
  r.replicates = replicates;
  for (int rep = 0; rep < replicates; ++rep) {
    const Check c = bounded_growth_check(
        "c", "w", replicate(first, last, draws, target, point_alpha, static_cast<std::uint64_t>(rep)), 2);
    r.violated += c.status == Verdict::violated;
    r.held += c.status == Verdict::holds;
  }
  return r;
}

}  // namespace

TEST_CASE("bounded growth: holds within the margin, violated beyond it, open where brackets straddle it",
          "[stats][brackets]") {
  // {lower, point, upper, excluded, label}
  const SufficientSize first{32, 32, 64, 16, "L=256"}, last_in{64, 64, 64, 32, "L=4096"},
      last_out{256, 256, 256, 128, "L=4096"}, last_open{64, 64, 128, 32, "L=4096"};
  const Check in = bounded_growth_check("c", "w", {{first, last_in}}, 2);
  CHECK(in.status == Verdict::holds);  // 64 <= 2 x 32
  CHECK(in.margin == 2);
  const Check out = bounded_growth_check("c", "w", {{first, last_out}}, 2);
  CHECK(out.status == Verdict::violated);  // 256 > 2 x 64
  CHECK(out.statistic == Approx(2.0));
  const SufficientSize edge{128, 128, 128, 64, "L=4096"};  // 128 = 2 x 64: not beyond the margin, not within it
  CHECK(bounded_growth_check("c", "w", {{first, edge}}, 2).status == Verdict::inconclusive);
  CHECK(bounded_growth_check("c", "w", {{first, last_open}}, 2).status == Verdict::inconclusive);  // 128 > 64, 64 <= 128
  // Factor 1 is the strict "does not grow": the same brackets no longer hold.
  CHECK(bounded_growth_check("c", "w", {{first, last_in}}, 1).status == Verdict::inconclusive);
  // More than the grid needed at the last L (no lower end): violated once the grid's end is past the margin.
  const SufficientSize never{0, 0, 0, 256, "L=4096"};
  CHECK(bounded_growth_check("c", "w", {{first, never}}, 2).status == Verdict::violated);
  const SufficientSize never_small{0, 0, 0, 64, "L=4096"};
  CHECK(bounded_growth_check("c", "w", {{first, never_small}}, 2).status == Verdict::inconclusive);
  // Only the first and last entries of a group count: the needed size cannot fall along it by construction.
  const SufficientSize middle{8, 8, 8, 0, "L=1024"};
  CHECK(bounded_growth_check("c", "w", {{first, middle, last_in}}, 2).status == Verdict::holds);
  // Groups add their points; a lone size compares nothing.
  const Check two = bounded_growth_check("c", "w", {{first, last_in}, {first, last_out}, {first}}, 2);
  CHECK(two.points_total == 2);
  CHECK(two.status == Verdict::violated);
  CHECK(bounded_growth_check("c", "w", {{first}}, 2).points_total == 0);
  CHECK_THROWS_AS(bounded_growth_check("c", "w", {{first, last_in}}, 0.5), std::invalid_argument);
}

TEST_CASE("bounded growth: an open check says how many draws would likely close its brackets", "[stats][brackets]") {
  const double alpha = 0.05 / 12;
  // 80 draws: 20 % at 16, 95 % at 32 (its interval still reaches below 0.9), all at 64.
  const SufficientSize s = sufficient_size({16, 32, 64}, {16, 76, 80}, 80, 0.9, alpha);
  CHECK(s.point == 32);
  CHECK(s.upper == 64);
  REQUIRE(s.draws_to_close > 80);
  // At that many draws and the same frequencies the bracket is closed on 32.
  const std::int64_t n = s.draws_to_close;
  const auto at = [&](double f) { return static_cast<std::int64_t>(std::llround(f * static_cast<double>(n))); };
  const SufficientSize closed = sufficient_size({16, 32, 64}, {at(0.2), at(0.95), n}, n, 0.9, alpha);
  CHECK(closed.lower == 32);
  CHECK(closed.upper == 32);
  CHECK(closed.draws_to_close == 0);
  // A frequency exactly at the target never establishes either side.
  CHECK(sufficient_size({16, 32}, {72, 80}, 80, 0.9, alpha).draws_to_close == kOutOfReach);
  // No size reaches the target on the grid: nothing to close on.
  CHECK(sufficient_size({16, 32}, {1, 2}, 80, 0.9, alpha).draws_to_close == kOutOfReach);
  const Check open = bounded_growth_check("c", "w", {{s, SufficientSize{64, 64, 128, 32, "L=4096"}}}, 2);
  CHECK(open.status == Verdict::inconclusive);
  CHECK(open.trials_needed == s.draws_to_close);
}

TEST_CASE("bounded growth: level on nested draws at the margin's edges, and the unsplit rule's excess",
          "[stats][brackets][statistical]") {
  // Eight groups (d values), 80 draws, α = 0.05, 2000 replicates. True at its edge in every group: needed 16 at the
  // first L, 32 at the last with P exactly at the target there — a false violation needs that point's interval to
  // exclude the target, in any group. False just past its edge in one group (needed 64 at the last L, P a hair under
  // the target at 32), the other seven clearly within: a false hold needs that one interval to clear the target.
  const std::vector<std::vector<double>> first(8, success_curve(16, 1.0)), edge_last(8, success_curve(32, 0.9));
  const Rates edge = simulate(first, edge_last, true);
  INFO("edge, split: violated " << edge.violated << ", held " << edge.held << " of " << edge.replicates);
  CHECK(clopper_pearson(edge.violated, edge.replicates, 2e-6).lower <= 0.05);
  CHECK(edge.violated <= 0.05 * edge.replicates);
  std::vector<std::vector<double>> beyond_last(8, success_curve(32, 1.0));
  beyond_last[0] = success_curve(64, 1.0);
  beyond_last[0][2] = 0.8999;  // m = 32
  const Rates beyond = simulate(first, beyond_last, true);
  INFO("beyond, split: violated " << beyond.violated << ", held " << beyond.held);
  CHECK(clopper_pearson(beyond.held, beyond.replicates, 2e-6).lower <= 0.05);
  CHECK(beyond.held <= 0.05 * beyond.replicates);
  // Not vacuous: with that group clearly within as well, the brackets close and the check holds.
  CHECK(simulate(first, std::vector<std::vector<double>>(8, success_curve(32, 1.0)), true, 200).held == 200);
  // The simulation can see a level failure: every grid point at the whole α (no split over the 96 points).
  const Rates naive = simulate(first, edge_last, false);
  INFO("edge, unsplit: violated " << naive.violated);
  CHECK(clopper_pearson(naive.violated, naive.replicates, 2e-6).lower > 0.05);
}

TEST_CASE("bounded growth: a planted growth with L is found, no growth holds", "[stats][brackets][power]") {
  // Clear success curves (0 below the needed size, 1 from it on), 80 draws, the full grid's split.
  const double alpha = 0.05 / 48;
  const auto brackets = [&](int first, int last) {
    std::vector<std::vector<SufficientSize>> groups;
    for (int g = 0; g < 4; ++g) {
      std::vector<std::int64_t> a, b;
      for (int m : kGrid) a.push_back(m >= first ? 80 : 0), b.push_back(m >= last ? 80 : 0);
      groups.push_back({sufficient_size(kGrid, a, 80, 0.9, alpha), sufficient_size(kGrid, b, 80, 0.9, alpha)});
    }
    return groups;
  };
  // Needed m ∝ L over L = 256..4096: 16 x; ∝ √L: 4 x.
  CHECK(bounded_growth_check("c", "w", brackets(8, 128), 2).status == Verdict::violated);
  CHECK(bounded_growth_check("c", "w", brackets(16, 64), 2).status == Verdict::violated);
  CHECK(bounded_growth_check("c", "w", brackets(32, 64), 2).status == Verdict::holds);
  CHECK(bounded_growth_check("c", "w", brackets(32, 32), 2).status == Verdict::holds);
}

TEST_CASE("no fall with d: refuted by a bracket entirely below an earlier one, held by separated rises",
          "[stats][brackets][power]") {
  // F.6 as printed ("with a larger d we need more random projections"): brackets ordered by growing d, fields
  // {lower, point, upper, excluded}.
  const SufficientSize d8{64, 128, 128, 32, "d=8"}, d16{16, 32, 32, 8, "d=16"}, d32{8, 16, 16, 4, "d=32"},
      d64{128, 128, 128, 64, "d=64"}, overlap{32, 64, 128, 16, "d=16"};
  const Check falls = size_nondecreasing_check("c", "w", {{d8, d16}}, "d");
  CHECK(falls.status == Verdict::violated);  // [16, 32] at d = 16 lies below [64, 128] at d = 8
  CHECK(falls.detail.find("needed m falls as d grows") != std::string::npos);
  // Rising brackets, each at or above every earlier one: established.
  const Check rises = size_nondecreasing_check("c", "w", {{d32, d16, d64}}, "d");
  CHECK(rises.status == Verdict::holds);
  CHECK(rises.points_total == 3);
  // Power: the mirror check (no growth) on the same rising brackets is refuted, on falling ones it holds.
  CHECK(size_independence_check("c", "w", {{d32, d16, d64}}).status == Verdict::violated);
  CHECK(size_independence_check("c", "w", {{d8, d16}}).status == Verdict::holds);
  // Overlapping brackets neither refute nor establish it; one size per group judges nothing.
  CHECK(size_nondecreasing_check("c", "w", {{d8, overlap}}, "d").status == Verdict::inconclusive);
  CHECK(size_nondecreasing_check("c", "w", {{d8}, {d16}}, "d").points_total == 0);
}
