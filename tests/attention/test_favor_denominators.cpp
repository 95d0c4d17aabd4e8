// FAVOR's row normalizers (attention/favor_denominators.hpp) against Q'K'ᵀ1 with the features written out, for
// every feature family with and without the projection, and the exact row sums.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "attention/attention_projection.hpp"
#include "attention/favor_denominators.hpp"
#include "attention/random_inputs.hpp"

using namespace favorlab;

TEST_CASE("FAVOR denominators equal the explicit Q'K'^T 1", "[attention][kernels]") {
  const Eigen::MatrixXd q = gaussian_input(9, 4, 1.0, 99, 4, 0), k = gaussian_input(13, 4, 1.0, 99, 5, 0);
  const double scale = std::pow(4.0, -0.25);
  for (Family kind : {Family::trig, Family::positive, Family::relu, Family::identity,
                           Family::tanh}) {
    for (bool project : {true, false}) {
      if (estimates_softmax(kind) && !project) continue;
      AttentionConfig config;
      config.features = kind;
      config.project = project;
      config.m = 6;
      config.coupling = Coupling::iid;
      const Eigen::MatrixXd w = draw_attention_projection(config, 4, 3, 2);
      // φ written out: the formulas of docs/theory.md#estimators-of-the-softmax-kernel, entry by entry.
      auto phi = [&](const Eigen::MatrixXd& x) {
        const Eigen::MatrixXd u = x * scale;
        const Eigen::MatrixXd pre = w.rows() ? Eigen::MatrixXd(u * w.transpose()) : u;
        const int cols = kind == Family::trig ? 2 * config.m : int(pre.cols());
        Eigen::MatrixXd f(x.rows(), cols);
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
          const double half = u.row(i).squaredNorm() / 2;
          for (Eigen::Index r = 0; r < pre.cols(); ++r) {
            const double t = pre(i, r);
            switch (kind) {
              case Family::trig:
                f(i, r) = std::exp(half) * std::sin(t) / std::sqrt(double(config.m));
                f(i, r + config.m) = std::exp(half) * std::cos(t) / std::sqrt(double(config.m));
                break;
              case Family::positive: f(i, r) = std::exp(t - half) / std::sqrt(double(config.m)); break;
              case Family::relu: f(i, r) = std::max(t, 0.0) + 1e-3; break;
              case Family::identity: f(i, r) = t + 1e-3; break;
              default: f(i, r) = std::tanh(t) + 1e-3; break;
            }
          }
        }
        return f;
      };
      const Eigen::VectorXd want = phi(q) * (phi(k).transpose() * Eigen::VectorXd::Ones(k.rows()));
      const Eigen::VectorXd got = favor_denominators(q, k, w, config);
      INFO(feature_kind_name(kind) << (project ? "" : " no projection"));
      CHECK((got - want).cwiseAbs().maxCoeff() <= 1e-12 * want.cwiseAbs().maxCoeff());
    }
  }
  AttentionConfig exact;
  exact.mechanism = Mechanism::exact;
  const Eigen::VectorXd d = favor_denominators(q, k, Eigen::MatrixXd(0, 4), exact);
  CHECK(d[0] == Approx(((q.row(0) * k.transpose()) / 2.0).array().exp().sum()).epsilon(1e-12));
}
