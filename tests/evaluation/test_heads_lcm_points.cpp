// evaluation/heads_lcm_points.hpp: the lcm sample is the same at any thread count; a row's figures come from its
// tally (fraction = count / trials, histogram counts sum to the trials); PF's "up to 1e27" holds on the exact maximum
// for 12 heads of 64, is violated when that maximum falls short, and is undecided when the search was not exact.
#include <catch2/catch.hpp>

#include "evaluation/heads_lcm_points.hpp"

using namespace favorlab;

TEST_CASE("heads lcm: the sample and its row", "[perm]") {
  const ValueCounts<double> one = sample_heads_lcm(12, 64, 3000, 9, 1, {});
  const ValueCounts<double> two = sample_heads_lcm(12, 64, 3000, 9, 2, {});
  CHECK(one.counts == two.counts);
  CHECK(one.total() == 3000);
  const HeadsLcmMaximum mx = max_heads_lcm(64, 12);
  const Json row = heads_lcm_row(12, 64, one, mx, 1e-3);
  CHECK(row["kind"] == "heads_lcm");
  CHECK(row["trials"] == 3000);
  const std::int64_t reach = row["mc_count_at_least_1e27"];
  CHECK(reach == one.count_at_least(27 - 1e-9));
  CHECK(row["mc_fraction_at_least_1e27"] == static_cast<double>(reach) / 3000);
  CHECK(row["mc_fraction_at_least_1e27_upper"].get<double>() > row["mc_fraction_at_least_1e27"].get<double>());
  CHECK(row["max_log10_lcm"] == mx.log10_value);
  CHECK(row["mc_max_log10_lcm"].get<double>() <= mx.log10_value + 1e-9);  // no draw beats the exact maximum
  std::int64_t counted = 0;
  for (const auto& c : row["mc_counts"]) counted += c.get<std::int64_t>();
  CHECK(counted == 3000);
}

TEST_CASE("heads lcm: up to 1e27 holds on the exact maximum, fails on a short one, is open on an inexact one",
          "[perm]") {
  std::map<int, HeadsLcmMaximum> maxima{{12, max_heads_lcm(64, 12)}};
  const std::map<int, ValueCounts<double>> tallies{{12, sample_heads_lcm(12, 64, 500, 9, 1, {})}};
  const Check right = heads_lcm_claim(64, maxima, tallies);
  CHECK(right.status == Verdict::holds);
  CHECK(right.detail.find("of 500 Monte Carlo draws reach 1e27") != std::string::npos);

  // A maximum of 1e26 (what a wrong search would report): the claim is refuted.
  HeadsLcmMaximum short_of = maxima[12];
  short_of.value = 1;
  for (int i = 0; i < 26; ++i) short_of.value *= 10;
  short_of.log10_value = 26;
  maxima[12] = short_of;
  CHECK(heads_lcm_claim(64, maxima, tallies).status == Verdict::violated);
  maxima[12].exact = false;
  CHECK(heads_lcm_claim(64, maxima, tallies).status == Verdict::inconclusive);
  // Another head size: the claim is still decided at 64, from its own search.
  CHECK(heads_lcm_claim(32, maxima, {}).status == Verdict::holds);
}
