// The blocked max-error computation (evaluation/attention_max_error.hpp) against the attention matrices extracted
// and compared entry by entry, at every number of features, and its refusals.
#include <catch2/catch.hpp>

#include <vector>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/attention_max_error.hpp"

using namespace favorlab;

TEST_CASE("blocked max error equals the extracted attention matrices at every m", "[evaluation][uniform]") {
  const Eigen::MatrixXd q = gaussian_input(19, 4, 0.8, 99, 2, 0), k = gaussian_input(23, 4, 0.8, 99, 3, 0);
  for (Family kind : {Family::trig, Family::positive, Family::hyperbolic}) {
    AttentionConfig config;
    config.features = kind;
    config.coupling = Coupling::orthogonal;
    config.m = 10;
    const Eigen::MatrixXd w = draw_attention_projection(config, 4, 7, 1);
    const std::vector<int> ms{3, 4, 10};
    const auto errors = attention_max_errors(q, k, w, config, ms, 7);
    REQUIRE(errors.size() == 3);
    AttentionConfig exact;
    exact.mechanism = Mechanism::exact;
    exact.renormalize = false;
    const Eigen::MatrixXd a = attention_matrix<double>(q, k, Eigen::MatrixXd(0, 4), exact);
    exact.renormalize = true;
    const Eigen::MatrixXd a_normalized = attention_matrix<double>(q, k, Eigen::MatrixXd(0, 4), exact);
    for (std::size_t i = 0; i < ms.size(); ++i) {
      AttentionConfig c = config;
      c.m = ms[i];
      c.renormalize = false;
      const Eigen::MatrixXd w_m = w.topRows(ms[i]);
      const double want = (attention_matrix<double>(q, k, w_m, c) - a).cwiseAbs().maxCoeff();
      c.renormalize = true;
      const double want_normalized = (attention_matrix<double>(q, k, w_m, c) - a_normalized).cwiseAbs().maxCoeff();
      INFO(feature_kind_name(kind) << " m=" << ms[i]);
      CHECK(errors[i].m == ms[i]);
      CHECK(errors[i].unnormalized == Approx(want).epsilon(1e-10));
      CHECK(errors[i].normalized == Approx(want_normalized).epsilon(1e-10));
    }
  }
  AttentionConfig relu;
  relu.features = Family::relu;
  CHECK_THROWS_AS(attention_max_errors(q, k, Eigen::MatrixXd::Ones(3, 4), relu, {3}), std::invalid_argument);
  AttentionConfig trig;
  trig.features = Family::trig;
  CHECK_THROWS_AS(attention_max_errors(q, k, Eigen::MatrixXd::Ones(3, 4), trig, {4}), std::invalid_argument);
  CHECK_THROWS_AS(attention_max_errors(q, k, Eigen::MatrixXd::Ones(3, 4), trig, {2, 2}), std::invalid_argument);
}
