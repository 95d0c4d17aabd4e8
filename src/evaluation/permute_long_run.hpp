#pragma once
// PermuteFormer's property 2 (b), boundedness of the mechanism itself (docs/theory.md#permuteformer-properties): the
// causal float32 PermuteFormer with V = 1 and no renormalization returns the row sums s_i = Σ_{j≤i} sim(i, j), which
// must be finite and at most ‖φ(q_i)‖·max_{j≤i}‖φ(k_j)‖ / (1 − r) (P orthogonal, Σ r^{i−j} < 1/(1 − r)), up to the
// float32 rounding allowance (m' + 2·chunk + 8)·u_f of the chunked sums.
#include <Eigen/Core>

#include <cstdint>
#include <string>

#include "attention/attention_config.hpp"
#include "attention/permute_config.hpp"
#include "features/feature_maps.hpp"
#include "results/result.hpp"
#include "stats/counted_check.hpp"

namespace favorlab {

struct PermuteLongRun {
  std::int64_t L = 0;
  int columns = 0;  // m'
  bool finite = false;
  double max_row_sum = 0;
  double max_ratio_to_bound = 0;  // max_i s_i / bound_i
  double seconds = 0;             // the float32 forward alone
  double badness = 0;             // (max ratio − 1) / allowance, 1e300 when a sum is not finite: > 1 is a violation
};

// Runs the causal float32 mechanism on q, k (L × d, double, cast to float) with projection w, `config` (causal, no
// renormalization) and `head` (π and r = head.r), and compares its row sums with the bound from the double features.
PermuteLongRun permute_long_run(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                const AttentionConfig& config, const PermuteHead& head);

// max_i sums(i) / (q_norm(i) · max_{j≤i} k_norm(j) / (1 − r)): the running maximum makes it a causal bound.
double max_ratio_to_row_sum_bound(const Matrix<float>& sums, const Eigen::VectorXd& q_norm,
                                  const Eigen::VectorXd& k_norm, double r);

// (m' + 2·chunk + 8)·u_f, u_f = 2^−24.
double permute_long_run_allowance(int columns, int chunk);

// The first j at which float32 r^−j is infinite: where a direct implementation of k̃_j = r^−j P^j φ(k_j) overflows.
std::int64_t first_infinite_float_power(double r);

// The check of every run of one feature map (`tally` holds their badness), and the "naive_overflow" row that says where
// a direct implementation would overflow.
void report_permute_long_runs(const CountedCheck& tally, const std::string& features, int columns, double r, int chunk,
                              std::int64_t longest, Result& result);

// The row of one run ("kind": "long_run").
Json permute_long_run_row(const PermuteLongRun& run, const std::string& features, int d, double r, int chunk);

}  // namespace favorlab
