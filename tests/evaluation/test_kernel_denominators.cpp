// evaluation/kernel_denominators.hpp: the figures of one draw on hand-made denominators and outputs; the sweep over
// draws equals the merge of its draws computed one by one (same W draws), does not depend on the thread count, finds
// no non-positive denominator for positive features and finds some for trig features at a large input scale (the
// paper's warning — the case the check must catch); exact_softmax's row sums against a direct sum of exponentials.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/favor_denominators.hpp"
#include "evaluation/kernel_denominators.hpp"

using namespace favorlab;

namespace {

AttentionConfig features(Family kind, int m) {
  AttentionConfig c;
  c.features = kind;
  c.m = m;
  c.coupling = Coupling::orthogonal;
  return c;
}

}  // namespace

TEST_CASE("denominator_stats counts non-positive and NaN/Inf denominators and skips a non-finite output's MSE",
          "[attention][kernels]") {
  ExactSoftmax exact{Eigen::MatrixXd::Constant(2, 2, 1.0), Eigen::Vector4d(4, 1, 1, 0.25)};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Eigen::MatrixXd bad_out = exact.output;
  bad_out(1, 0) = std::numeric_limits<double>::infinity();
  const DenominatorStats a = denominator_stats(Eigen::Vector4d(2, -1, nan, 0.5), bad_out, exact);
  CHECK(a.denominators == 3);  // the finite ones
  CHECK(a.nonfinite_denominators == 1);
  CHECK(a.nonpositive == 1);
  CHECK(a.min_denominator == -1);
  CHECK(a.min_denominator_ratio == -1);  // ratios 0.5, −1, 2
  CHECK(a.nonfinite_outputs == 1);
  CHECK(a.nonfinite_draws == 1);
  CHECK(a.mse.count() == 0);

  Eigen::MatrixXd off = exact.output;
  off(0, 1) += 2;  // one of 4 entries off by 2: output MSE 2²/4 = 1
  const DenominatorStats b = denominator_stats(Eigen::Vector4d(8, 1, 1, 1), off, exact);
  CHECK(b.nonpositive == 0);
  CHECK(b.min_denominator == 1);
  CHECK(b.min_denominator_ratio == 1);  // ratios 2, 1, 1, 4
  CHECK(b.mse.count() == 1);
  CHECK(b.mse.mean() == 1);

  DenominatorStats both = a;
  both.merge(b);
  CHECK(both.denominators == 7);
  CHECK(both.nonpositive == 1);
  CHECK(both.min_denominator == -1);
  CHECK(both.nonfinite_draws == 1);
  CHECK(both.mse.count() == 1);

  CHECK_THROWS_AS(denominator_stats(Eigen::Vector3d(1, 1, 1), exact.output, exact), std::invalid_argument);
  CHECK_THROWS_AS(denominator_stats(Eigen::Vector4d(1, 1, 1, 1), Eigen::MatrixXd::Ones(3, 2), exact),
                  std::invalid_argument);
}

TEST_CASE("favor_denominator_draws merges its draws in order, on any thread count", "[attention][kernels]") {
  const int L = 24, d = 4;
  const AttentionInput input = gaussian_attention_input(L, d, d, 1.0, 1.0, 17, 0);
  const ExactSoftmax exact = exact_softmax(input);
  const AttentionConfig config = features(Family::positive, 16);
  const std::uint64_t first = 1000;
  const DenominatorStats one = favor_denominator_draws(input, exact, config, 5, first, 4, 1);
  const DenominatorStats two = favor_denominator_draws(input, exact, config, 5, first, 4, 2);

  // The same four draws computed here, one by one.
  DenominatorStats by_hand;
  for (std::uint64_t t = 0; t < 4; ++t) {
    const Eigen::MatrixXd w = draw_attention_projection(config, d, 5, first + t);
    by_hand.merge(denominator_stats(favor_denominators(input.q, input.k, w, config),
                                    attend<double>({input.q}, {input.k}, {input.v}, w, config).front(), exact));
  }
  for (const DenominatorStats* s : {&one, &two}) {
    CHECK(s->denominators == 4 * L);
    CHECK(s->min_denominator == by_hand.min_denominator);
    CHECK(s->min_denominator_ratio == by_hand.min_denominator_ratio);
    CHECK(s->mse.count() == 4);
    CHECK(s->mse.mean() == by_hand.mse.mean());
    CHECK(s->mse.variance() == by_hand.mse.variance());
  }
  // Positive features: every denominator > 0 (a sum of exponentials).
  CHECK(one.nonpositive == 0);
  CHECK(one.min_denominator_ratio > 0);
  CHECK(favor_denominator_draws(input, exact, config, 5, first, 0, 1).mse.count() == 0);
  CHECK_THROWS_AS(favor_denominator_draws(input, exact, config, 5, first, -1, 1), std::invalid_argument);
}

TEST_CASE("Trig features give non-positive denominators at a large input scale, positive features never",
          "[attention][kernels]") {
  // Trig's estimate of exp(xᵀy) is e^{(|x|²+|y|²)/2} times a mean of m cosines whose expectation is e^{−|x−y|²/2}.
  // At s = 2 that expectation is tiny against the cosines' O(1/√m) noise, so some row sums come out ≤ 0 (the
  // kernels experiment reports the same). Positive features estimate it by a mean of exponentials: always > 0.
  const AttentionInput input = gaussian_attention_input(64, 4, 4, 2.0, 1.0, 23, 0);
  const ExactSoftmax exact = exact_softmax(input);
  const DenominatorStats trig = favor_denominator_draws(input, exact, features(Family::trig, 16), 9, 0, 8, 2);
  const DenominatorStats positive =
      favor_denominator_draws(input, exact, features(Family::positive, 16), 9, 0, 8, 2);
  CHECK(trig.nonpositive > 0);
  CHECK(trig.min_denominator <= 0);
  CHECK(positive.nonpositive == 0);
  CHECK(positive.min_denominator > 0);
}

TEST_CASE("exact_softmax: the row sums of exp(q k / sqrt d)", "[attention][kernels]") {
  const AttentionInput input = gaussian_attention_input(16, 4, 3, 1.0, 1.0, 31, 0);
  const ExactSoftmax exact = exact_softmax(input);
  const Eigen::MatrixXd a = (input.q * input.k.transpose() / 2.0).array().exp();  // √d = 2
  const Eigen::VectorXd d = a.rowwise().sum();
  // 16 positive terms of size ≲ e^4: the engine's stabilized sum and this one differ by a few ulps per term, far below
  // 1e-12 relative.
  CHECK((exact.denominators - d).cwiseAbs().maxCoeff() <= 1e-12 * d.maxCoeff());
  const Eigen::MatrixXd out = (a.array().colwise() / d.array()).matrix() * input.v;
  CHECK((exact.output - out).cwiseAbs().maxCoeff() <= 1e-12 * out.cwiseAbs().maxCoeff());
}
