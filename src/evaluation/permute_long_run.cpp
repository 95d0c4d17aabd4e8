#include "evaluation/permute_long_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "attention/permute_attention.hpp"
#include "attention/permute_reference.hpp"
#include "attention/position_permutation.hpp"
#include "io/format_number.hpp"

namespace favorlab {

double max_ratio_to_row_sum_bound(const Matrix<float>& sums, const Eigen::VectorXd& q_norm,
                                  const Eigen::VectorXd& k_norm, double r) {
  double worst = 0, k_max = 0;
  for (Eigen::Index i = 0; i < sums.rows(); ++i) {
    k_max = std::max(k_max, k_norm(i));
    const double bound = q_norm(i) * k_max / (1 - r);
    worst = std::max(worst, static_cast<double>(sums(i, 0)) / bound);
  }
  return worst;
}

double permute_long_run_allowance(int columns, int chunk) {
  return (columns + 2.0 * chunk + 8) * std::numeric_limits<float>::epsilon() / 2;
}

std::int64_t first_infinite_float_power(double r) {
  std::int64_t j = 1;
  while (std::isfinite(std::pow(static_cast<float>(r), -static_cast<float>(j)))) ++j;
  return j;
}

PermuteLongRun permute_long_run(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                const AttentionConfig& config, const PermuteHead& head) {
  PermuteLongRun run;
  run.L = q.rows();
  run.columns = feature_columns(config, static_cast<int>(q.cols()));
  const Matrix<float> qf = q.cast<float>(), kf = k.cast<float>();
  const Matrix<float> wf = w.cast<float>();
  const Matrix<float> ones = Matrix<float>::Ones(run.L, 1);
  const PositionPermutation positions(head, PermuteLayout::line(), run.L);
  const auto start = std::chrono::steady_clock::now();
  const Matrix<float> sums = permute_attention(qf, kf, ones, wf, config, positions, head.r);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The exact features' norms in double, in blocks (L × m' doubles would not fit for L = 1e6).
  Eigen::VectorXd q_norm(run.L), k_norm(run.L);
  for (std::int64_t first = 0; first < run.L; first += 4096) {
    const std::int64_t rows = std::min<std::int64_t>(4096, run.L - first);
    q_norm.segment(first, rows) = explicit_permute_features(q.middleRows(first, rows), w, config).rowwise().norm();
    k_norm.segment(first, rows) = explicit_permute_features(k.middleRows(first, rows), w, config).rowwise().norm();
  }
  run.finite = sums.allFinite();
  run.max_ratio_to_bound = max_ratio_to_row_sum_bound(sums, q_norm, k_norm, head.r);
  for (Eigen::Index i = 0; i < sums.rows(); ++i) run.max_row_sum = std::max(run.max_row_sum, double(sums(i, 0)));
  run.badness = run.finite ? (run.max_ratio_to_bound - 1) / permute_long_run_allowance(run.columns, config.chunk)
                           : 1e300;
  return run;
}

void report_permute_long_runs(const CountedCheck& tally, const std::string& features, int columns, double r, int chunk,
                              std::int64_t longest, Result& result) {
  const std::int64_t naive = first_infinite_float_power(r);
  result.rows.push_back(
      Json{{"kind", "naive_overflow"}, {"features", features}, {"r", r}, {"first_infinite_j", naive}});
  result.checks.push_back(tally.check(
      "PF property 2: causal float32 output finite and sum_j sim(i, j) <= |phi(q_i)| max|phi(k)| / (1 - r)",
      features + " features, m'=" + std::to_string(columns) + ", r=" + format_number(r) + ", chunk " +
          std::to_string(chunk) + ", L up to " + std::to_string(longest) +
          " (a naive r^-j is infinite in float32 from j=" + std::to_string(naive) + ")",
      "(ratio to bound - 1)/allowance, allowance (m' + 2 chunk + 8) u_float"));
}

Json permute_long_run_row(const PermuteLongRun& run, const std::string& features, int d, double r, int chunk) {
  return Json{{"kind", "long_run"},
              {"features", features},
              {"L", run.L},
              {"m", run.columns},
              {"d", d},
              {"r", r},
              {"chunk", chunk},
              {"finite", run.finite},
              {"max_row_sum", run.max_row_sum},
              {"max_ratio_to_bound", run.max_ratio_to_bound},
              {"seconds", run.seconds}};
}

}  // namespace favorlab
