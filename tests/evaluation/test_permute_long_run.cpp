// evaluation/permute_long_run.hpp: PF property 2 on the float32 causal mechanism — its row sums agree with the same
// sums formed pair by pair in double (evaluation/permute_similarity.hpp) to the stated float32 allowance and lie under
// the bound; a bound that assumes a faster decay than the mechanism's (a wrong theory) must be exceeded.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/attention_projection.hpp"
#include "attention/permute_reference.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/permute_long_run.hpp"
#include "evaluation/permute_similarity.hpp"

using namespace favorlab;

namespace {

constexpr int kD = 4, kM = 12;

AttentionConfig causal_sums_config(int chunk) {
  AttentionConfig c;
  c.m = kM;
  c.causal = true;
  c.renormalize = false;
  c.chunk = chunk;
  return c;
}

}  // namespace

TEST_CASE("PF long run: float32 row sums match the pairwise double sums and stay under the bound", "[permute]") {
  const AttentionConfig config = causal_sums_config(16);
  const Eigen::Index L = 200;
  const Eigen::MatrixXd q = gaussian_input(L, kD, 1.0, 5, 1, 0), k = gaussian_input(L, kD, 1.0, 5, 2, 0);
  const Eigen::MatrixXd w = draw_attention_projection(config, kD, 5, 0);
  const PermuteHead head{random_permutation(kM, 5, 3, 0), std::nullopt, 0.9};
  const PermuteLongRun run = permute_long_run(q, k, w, config, head);
  CHECK(run.L == L);
  CHECK(run.columns == kM);
  CHECK(run.finite);
  CHECK(run.badness <= 1);
  CHECK(run.max_ratio_to_bound > 0.05);  // the bound is not vacuous here
  // The largest row sum against Σ_{j≤i} sim(i, j) formed in double from absolute positions.
  const Eigen::MatrixXd phi_q = explicit_permute_features(q, w, config),
                        phi_k = explicit_permute_features(k, w, config);
  double largest = 0;
  for (Eigen::Index i = 0; i < L; ++i) {
    double sum = 0;
    for (Eigen::Index j = 0; j <= i; ++j)
      sum += absolute_similarity(phi_q.row(i).transpose(), phi_k.row(j).transpose(), head, PermuteLayout::line(), i, j);
    largest = std::max(largest, sum);
  }
  CHECK(std::abs(run.max_row_sum - largest) <= permute_long_run_allowance(kM, config.chunk) * largest);
  const Json row = permute_long_run_row(run, "positive", kD, 0.9, 16);
  CHECK(row["kind"] == "long_run");
  CHECK(row["L"] == L);
  CHECK(row["max_row_sum"] == run.max_row_sum);
}

TEST_CASE("PF long run: the bound with a faster decay than the mechanism's is exceeded", "[permute]") {
  // Unit feature norms and sim(i, j) = r^{i−j}: the row sums approach 1/(1 − r). Judged with the mechanism's r they
  // stay under the bound; judged with r' < r (a theory that claims faster decay) they exceed it.
  const Eigen::Index L = 400;
  const double r = 0.95;
  Matrix<float> sums(L, 1);
  double s = 0;
  for (Eigen::Index i = 0; i < L; ++i) {
    s = s * r + 1;
    sums(i, 0) = static_cast<float>(s);
  }
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(L);
  CHECK(max_ratio_to_row_sum_bound(sums, ones, ones, r) <= 1 + permute_long_run_allowance(1, 1));
  CHECK(max_ratio_to_row_sum_bound(sums, ones, ones, r) > 0.99);
  // Rows far from the start: s_i → 1/(1 − 0.95) = 20 against the bound 1/(1 − 0.5) = 2 (0.95^400 ≈ 1e-9 is gone).
  CHECK(max_ratio_to_row_sum_bound(sums, ones, ones, 0.5) == Approx(10.0).epsilon(1e-5));
  // The running maximum of the key norms: a large key late in the sequence does not raise earlier rows' bounds.
  Eigen::VectorXd k_norm = ones;
  k_norm(L - 1) = 1e6;
  CHECK(max_ratio_to_row_sum_bound(sums, ones, k_norm, r) == max_ratio_to_row_sum_bound(sums.topRows(L - 1), ones,
                                                                                         ones, r));
}

TEST_CASE("PF long run: the allowance, the naive overflow point, and the check", "[permute]") {
  CHECK(permute_long_run_allowance(64, 128) == (64 + 256 + 8) * std::ldexp(1.0, -24));
  // float32's largest finite value is just under 2^128, so 0.5^−j first overflows at j = 128.
  CHECK(first_infinite_float_power(0.5) == 128);
  const std::int64_t j = first_infinite_float_power(0.88);
  CHECK(std::isfinite(std::pow(0.88f, -static_cast<float>(j - 1))));
  CHECK(std::isinf(std::pow(0.88f, -static_cast<float>(j))));

  CountedCheck held, broken;
  held.add(0.5, "L=10");
  broken.add(0.5, "L=10");
  broken.add(2, "L=100");
  Result result;
  report_permute_long_runs(held, "positive", kM, 0.88, 16, 100, result);
  report_permute_long_runs(broken, "relu", kM, 0.88, 16, 100, result);
  REQUIRE(result.checks.size() == 2);
  CHECK(result.checks[0].status == Verdict::holds);
  CHECK(result.checks[1].status == Verdict::violated);
  CHECK(result.checks[1].where.find("from j=" + std::to_string(j)) != std::string::npos);
  REQUIRE(result.rows.size() == 2);
  CHECK(result.rows[0]["kind"] == "naive_overflow");
  CHECK(result.rows[0]["first_infinite_j"] == j);
}
