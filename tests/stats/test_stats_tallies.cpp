// The stats layer's tallies: CountedCheck (a claim decided point by point against an allowance, badness > 1 violates)
// and ValueCounts (a mergeable empirical distribution with quantiles, moments, histograms), on hand-made samples whose
// figures are worked out in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "mc/block_codec.hpp"
#include "stats/counted_check.hpp"
#include "stats/value_counts.hpp"

using namespace favorlab;

TEST_CASE("CountedCheck: badness 1 holds, above 1 violates, the first worst point is named", "[stats]") {
  CountedCheck t;
  CHECK(t.check("c", "s", "r").status == Verdict::inconclusive);  // nothing judged
  t.add(0.5, "a");
  t.add(1.0, "b");  // exactly at the allowance: holds
  t.add(0.7, "c");
  t.add(1.0, "d");  // ties the worst: the first point keeps the name
  CHECK(t.points == 4);
  CHECK(t.failed == 0);
  CHECK(t.worst == 1.0);
  CHECK(t.where == "b");
  const Check held = t.check("claim", "scope", "ratio");
  CHECK(held.status == Verdict::holds);
  CHECK(held.points_held == 4);
  CHECK(held.statistic == 1.0);
  CHECK(held.detail == "4 of 4 points hold, 0 violated; worst ratio = 1 at b");

  // One point past its allowance makes the claim violated, and becomes the worst.
  t.add(1.5, "e");
  const Check violated = t.check("claim", "scope", "ratio");
  CHECK(violated.status == Verdict::violated);
  CHECK(violated.points_held == 4);
  CHECK(violated.points_violated == 1);
  CHECK(violated.statistic == 1.5);
  CHECK(violated.detail == "4 of 5 points hold, 1 violated; worst ratio = 1.5 at e");
}

TEST_CASE("CountedCheck: worst never drops below 0 and names the first point until raised", "[stats]") {
  CountedCheck t;
  t.add(-2, "x");
  t.add(-1, "y");
  CHECK(t.worst == 0);
  CHECK(t.where == "x");
  t.add(std::numeric_limits<double>::infinity(), "z");  // e.g. a tolerance over a zero gap
  CHECK(t.failed == 1);
  CHECK(t.where == "z");
}

TEST_CASE("ValueCounts: merge, quantiles, moments, threshold counts and histograms", "[stats]") {
  // The sample 1, 1, 3, 7 built in two parts and merged.
  ValueCounts<std::uint64_t> a, b;
  a.counts[1] = 1;
  a.counts[7] = 1;
  b.counts[1] = 1;
  b.counts[3] = 1;
  a.merge(b);
  CHECK(a.counts == std::map<std::uint64_t, std::int64_t>{{1, 2}, {3, 1}, {7, 1}});
  CHECK(a.total() == 4);
  // Smallest value with CDF ≥ q: the CDF is 1/2 at 1, 3/4 at 3, 1 at 7.
  CHECK(a.quantile(0.5) == 1);
  CHECK(a.quantile(0.51) == 3);
  CHECK(a.quantile(0.75) == 3);
  CHECK(a.quantile(0.76) == 7);
  CHECK(a.quantile(1.0) == 7);
  CHECK(a.count_at_least(3) == 2);
  CHECK(a.count_at_least(8) == 0);
  // Mean 3; squared deviations 4, 4, 0, 16 over n − 1 = 3: variance 8.
  const SampleMoments m = sample_moments(a, [](std::uint64_t v) { return static_cast<double>(v); });
  CHECK(m.mean == 3);
  CHECK(m.variance == 8);
  // Of v²: 1, 1, 9, 49 → mean 15, deviations² 196, 196, 36, 1156 → variance 528.
  const SampleMoments sq = sample_moments(a, [](std::uint64_t v) { return static_cast<double>(v * v); });
  CHECK(sq.mean == 15);
  CHECK(sq.variance == 528);
  // Width 2: 1 → bin 0, 3 → bin 1, 7 → bin 3, clamped into the last of 3 bins.
  CHECK(binned_counts(a, [](std::uint64_t v) { return static_cast<double>(v); }, 2.0, 3) ==
        std::vector<std::int64_t>{2, 1, 1});
  CHECK(binned_counts(a, [](std::uint64_t v) { return static_cast<double>(v); }, 2.0, 5) ==
        std::vector<std::int64_t>{2, 1, 0, 1, 0});
  // A transform below 0 or NaN lands in the first bin: −1 for 3, NaN for 7, 1 for the two 1s.
  const auto odd = [](std::uint64_t v) { return v == 3 ? -1.0 : v == 7 ? std::nan("") : 1.0; };
  CHECK(binned_counts(a, odd, 1.0, 2) == std::vector<std::int64_t>{2, 2});
}

TEST_CASE("ValueCounts round trips through the block codec bit for bit", "[stats][distribution]") {
  ValueCounts<double> t;
  t.counts[0.25] = 3;
  t.counts[27.5] = 1;
  std::string bytes;
  encode_block(t, bytes);
  ValueCounts<double> back;
  std::string_view in = bytes;
  decode_block(in, back);
  CHECK(back.counts == t.counts);
  CHECK(in.empty());
}
