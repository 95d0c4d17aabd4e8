// evaluation/order_points.hpp: a size's sample is the same however it is extended or threaded; the exact law of S_4
// is the one counted by hand; a sample judged against its own exact law holds and against S_{n+1}'s law (a wrong
// theory) is violated on both checks; the rows carry the figures, and PF's "over 3000" is decided at n = 64 only.
#include <catch2/catch.hpp>

#include "evaluation/order_points.hpp"

using namespace favorlab;

namespace {

OrderPoint sampled(int n, std::int64_t trials, int threads) {
  OrderPoint p;
  p.n = n;
  extend_orders(p, 5, threads, trials, {});
  return p;
}

}  // namespace

TEST_CASE("order points: the sample extends and threads without changing a count", "[perm]") {
  OrderPoint two_steps = sampled(10, 3000, 1);
  extend_orders(two_steps, 5, 2, 7000, {});
  const OrderPoint one_step = sampled(10, 7000, 2);
  CHECK(two_steps.trials == 7000);
  CHECK(two_steps.tally.counts == one_step.tally.counts);
  CHECK(two_steps.order.mean == one_step.order.mean);
  CHECK(two_steps.log.variance == one_step.log.variance);
  CHECK(two_steps.tally.total() == 7000);
}

TEST_CASE("order points: S_4's exact law, and a wrong law is refuted", "[perm]") {
  OrderPoint four;
  four.n = 4;
  add_exact_law(four);
  // S_4: order 1 (identity), 2 (6 transpositions + 3 double transpositions), 3 (8), 4 (6): E = 67/24.
  CHECK(four.exact);
  CHECK(four.summary.mean == Approx(67.0 / 24).epsilon(1e-14));
  CHECK(four.summary.median == 3);

  OrderPoint right = sampled(8, 20000, 2);
  add_exact_law(right);
  OrderJudges judges = order_judges("test", 1e-3, 1);
  const auto [mean, log] = judge_order_point(judges, right, -1);
  CHECK(mean.status == Verdict::holds);
  CHECK(log.status == Verdict::holds);

  // The same permutations of S_8 judged against the law of S_9: both means are off by far more than their power.
  OrderPoint wrong;
  wrong.n = 9;
  add_exact_law(wrong);
  wrong.tally = right.tally;
  wrong.order = right.order;
  wrong.log = right.log;
  wrong.trials = right.trials;
  OrderJudges against = order_judges("test", 1e-3, 1);
  const auto [wrong_mean, wrong_log] = judge_order_point(against, wrong, -1);
  CHECK(wrong_mean.status == Verdict::violated);
  CHECK(wrong_log.status == Verdict::violated);
}

TEST_CASE("order points: rows of exact and sampled sizes, PF's 3000 decided at n = 64 only", "[perm]") {
  OrderJudges judges = order_judges("test", 1e-3, 2);
  Result result;
  OrderPoint small = sampled(8, 20000, 2);
  add_exact_law(small);
  add_order_rows(small, -1, judges, result);
  CHECK(result.checks.empty());
  OrderPoint claim = sampled(kOrderClaimN, 2000, 1);
  add_exact_law(claim);
  add_order_rows(claim, -1, judges, result);
  REQUIRE(result.checks.size() == 1);
  CHECK(result.checks[0].status == Verdict::holds);  // E[order] of S_64 is 3075.03…
  CHECK(result.checks[0].statistic == Approx(claim.summary.mean));
  const OrderPoint large = sampled(150, 500, 1);  // past any exact limit: not tested
  add_order_rows(large, -1, judges, result);
  REQUIRE(result.rows.size() == 6);
  CHECK(result.rows[0]["kind"] == "order");
  CHECK(result.rows[1]["kind"] == "log_order_histogram");
  CHECK(result.rows[0]["exact_mean_order"] == small.summary.mean);
  CHECK(result.rows[0]["status"] == "holds");
  CHECK(result.rows[4]["status"] == "not_tested");
  CHECK(result.rows[4]["exact_mean_order"].is_null());
  CHECK(result.rows[4]["mc_mean_order"] == large.order.mean);
  std::int64_t counted = 0;
  for (const auto& c : result.rows[5]["mc_counts"]) counted += c.get<std::int64_t>();
  CHECK(counted == 500);
}
