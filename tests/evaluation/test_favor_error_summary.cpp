// The grid and summaries of `favorlab attention-error` below the experiment (evaluation/favor_error_summary.hpp):
// the arm grid and its look-up, inputs from .npy heads, the baselines of exact outputs where the answer is known
// (keys that carry no information make exact attention uniform attention) and the summary of hand-made MSEs.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>

#include "evaluation/favor_error_summary.hpp"
#include "io/npy.hpp"

using namespace favorlab;
namespace fs = std::filesystem;

TEST_CASE("favor error summary: MSE moments over finite inputs, relative errors where the output varies",
          "[attention-error]") {
  const double inf = std::numeric_limits<double>::infinity();
  // Input 1's exact output has no variance, input 2's FAVOR output is not finite: both are left out of the
  // relative errors; the uniform MSE averages every input.
  const std::vector<double> mse{1, 2, inf, 3};
  const std::vector<OutputBaseline> base{{2, 4}, {0, 1}, {1, 2}, {4, 8}};
  const OutputErrorSummary s = summarize_output_error(mse, base);
  CHECK(s.inputs == 4);
  CHECK(s.nonfinite == 1);
  CHECK(s.mse_mean == 2);
  CHECK(s.mse_std == Approx(1).epsilon(1e-15));
  CHECK(s.mse_stderr == Approx(1 / std::sqrt(3.0)).epsilon(1e-15));
  CHECK(s.rel_error_mean == Approx(0.625).epsilon(1e-15));  // 1/2 and 3/4
  CHECK(s.rel_error_stderr == Approx(0.125).epsilon(1e-14));
  CHECK(s.uniform_mse_mean == Approx(3.75).epsilon(1e-15));
  CHECK(s.uniform_rel_error_mean == 2);  // 4/2 and 8/4

  const OutputErrorSummary lone = summarize_output_error({inf, 5}, {{1, 1}, {0, 1}});
  CHECK(lone.mse_mean == 5);
  CHECK(std::isnan(lone.mse_std));
  CHECK(std::isnan(lone.mse_stderr));
  CHECK(std::isnan(lone.rel_error_mean));
  CHECK(std::isnan(lone.uniform_rel_error_mean));
  CHECK_THROWS_AS(summarize_output_error({1, 2}, {{1, 1}}), std::invalid_argument);
}

TEST_CASE("favor error arms: modes outermost, the configuration of each arm, the last of equal arms",
          "[attention-error]") {
  const auto arms = favor_arm_grid({false, true}, {Coupling::iid, Coupling::orthogonal},
                                   {Family::trig, Family::positive}, {16, 64, 16});
  REQUIRE(arms.size() == 24);
  CHECK(arms[0] == FavorArm{false, Coupling::iid, Family::trig, 16});
  CHECK(arms[4] == FavorArm{false, Coupling::iid, Family::positive, 64});
  CHECK(arms[23] == FavorArm{true, Coupling::orthogonal, Family::positive, 16});
  const AttentionConfig c = arms[23].config();
  CHECK(c.mechanism == Mechanism::favor);
  CHECK(c.causal);
  CHECK(c.coupling == Coupling::orthogonal);
  CHECK(c.features == Family::positive);
  CHECK(c.m == 16);
  CHECK(c.renormalize);
  CHECK(find_favor_arm(arms, {false, Coupling::iid, Family::trig, 16}) == 2);  // m listed twice: the last
  CHECK(find_favor_arm(arms, {true, Coupling::iid, Family::positive, 64}) == 16);
  CHECK_THROWS_AS(find_favor_arm(arms, {true, Coupling::simplex, Family::trig, 16}), std::invalid_argument);
}

TEST_CASE("favor error baselines: keys without information make exact attention uniform attention",
          "[attention-error]") {
  // Zero queries give every key the same weight: exact attention is uniform attention, whatever V is.
  const int L = 12, d = 3, dv = 2;
  AttentionInput in{Eigen::MatrixXd::Zero(L, d), Eigen::MatrixXd::Random(L, d), Eigen::MatrixXd::Random(L, dv)};
  const std::vector<OutputBaseline> bidirectional = exact_output_baselines({in, in}, false, 1);
  REQUIRE(bidirectional.size() == 2);
  CHECK(bidirectional[0].uniform_mse < 1e-28);
  CHECK(bidirectional[0].variance == 0);  // every row is the mean of V
  const std::vector<OutputBaseline> causal = exact_output_baselines({in}, true, 2);
  CHECK(causal[0].uniform_mse < 1e-28);
  CHECK(causal[0].variance > 0);  // running means differ from row to row
}

TEST_CASE("favor error inputs: one input per head of the .npy files, shapes checked", "[attention-error][npy]") {
  const fs::path dir = fs::temp_directory_path() / "favorlab_test_favor_error_inputs";
  fs::create_directories(dir);
  const int H = 2, L = 5, d = 3, dv = 4;
  std::vector<double> qk(H * L * d), v(H * L * dv);
  for (std::size_t i = 0; i < qk.size(); ++i) qk[i] = 0.01 * static_cast<double>(i);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = -0.5 * static_cast<double>(i);
  write_npy(dir / "q.npy", {H, L, d}, qk, NpyDtype::float64);
  write_npy(dir / "k.npy", {H, L, d}, qk, NpyDtype::float64);
  write_npy(dir / "v.npy", {H, L, dv}, v, NpyDtype::float64);
  write_npy(dir / "short.npy", {H, L - 1, dv}, std::vector<double>(H * (L - 1) * dv, 1.0), NpyDtype::float64);
  const auto inputs = npy_attention_inputs((dir / "q.npy").string(), (dir / "k.npy").string(),
                                           (dir / "v.npy").string());
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[1].q.rows() == L);
  CHECK(inputs[1].q.cols() == d);
  CHECK(inputs[1].v.cols() == dv);
  CHECK(inputs[1].q(2, 1) == qk[L * d + 2 * d + 1]);  // C order: head, row, column
  CHECK(inputs[0].v(4, 3) == v[4 * dv + 3]);
  CHECK_THROWS_AS(npy_attention_inputs((dir / "q.npy").string(), (dir / "k.npy").string(),
                                       (dir / "short.npy").string()),
                  std::invalid_argument);
  fs::remove_all(dir);
}
