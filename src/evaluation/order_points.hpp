#pragma once
// The sizes n of `favorlab perm-order` (docs/theory.md#order-of-a-random-permutation): a Monte Carlo sample of the
// orders of uniform permutations of S_n and, where n is small enough, the exact law of the order; the two checks of an
// exact size, E[order] by the Chernoff interval from its exact law (no normal approximation: at n = 128 the order's
// skewness is 335) and E[ln order] by a z test gated by its exact skewness and kurtosis; and the order and histogram
// rows of each size, with PermuteFormer's "average order over 3000" decided exactly at n = 64.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "mc/parallel_trials.hpp"
#include "perm/order_distribution.hpp"
#include "results/result.hpp"
#include "stats/chernoff_interval.hpp"
#include "stats/claim_check.hpp"
#include "stats/value_counts.hpp"

namespace favorlab {

inline constexpr int kOrderClaimN = 64;           // PF: "head size 64 ... average order of over 3000"
inline constexpr double kOrderClaimMean = 3000;
inline constexpr double kOrderLogBin = 0.25;      // histogram bin width of ln(order) and of log10(lcm)

struct OrderPoint {
  int n = 0;
  ValueCounts<std::uint64_t> tally;  // order → count
  SampleMoments order, log;          // of the order and of ln(order)
  std::int64_t trials = 0;
  bool exact = false;                // the exact law below was computed
  OrderDistribution dist;
  OrderSummary summary;
  std::optional<ChernoffDeviation> law;  // the law of one draw, for the Chernoff interval of the mean
  double exact_seconds = 0;
};

// Brings the sample to `to_trials`: trial t is Fisher–Yates on PhiloxStream(seed, 1000 + n, t), merged onto the
// tally. Counts add exactly, so the tally (and every figure from it) equals a fixed run of to_trials trials at any
// thread and rank count.
void extend_orders(OrderPoint& p, std::uint64_t seed, int threads, std::int64_t to_trials, const ProgressFn& progress);

// Computes the exact law of the order of S_n (perm/order_distribution.hpp), its summary and the Chernoff law; sets
// p.exact.
void add_exact_law(OrderPoint& p);

struct OrderJudges {
  ChernoffMeanCheck mean;
  ClaimCheck log;
};
OrderJudges order_judges(const std::string& where, double alpha, std::size_t exact_points);

// The verdicts of an exact point on E[order] and E[ln order] at `look` (−1: a fixed run).
std::pair<PointVerdict, PointVerdict> judge_order_point(OrderJudges& judges, const OrderPoint& p, int look);

// The "order" and "log_order_histogram" rows of one size, its exact points judged by `judges` at `look`, and at
// n = kOrderClaimN the exact check of PF's "over 3000".
void add_order_rows(const OrderPoint& p, int look, OrderJudges& judges, Result& result);

}  // namespace favorlab
