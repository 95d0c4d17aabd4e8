// The attention engine links and runs with nothing above its own layer: this program links favorlab_attention alone
// (no Monte Carlo, statistics or result files), so a call from the engine into an evaluation layer fails the build.
// Its checks need no statistics: exact attention equals softmax written out (to rounding), and FAVOR with positive
// features, renormalized, gives rows that are convex combinations of V's rows (each entry inside V's column range).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"

int main() {
  using namespace favorlab;
  const Eigen::MatrixXd q = gaussian_input(6, 4, 1.0, 7, 0, 0), k = gaussian_input(9, 4, 1.0, 7, 1, 0),
                        v = gaussian_input(9, 3, 1.0, 7, 2, 0);
  AttentionConfig exact;
  exact.mechanism = Mechanism::exact;
  const Eigen::MatrixXd got_exact = attend<double>({q}, {k}, {v}, Eigen::MatrixXd(0, 4), exact)[0];
  double exact_error = 0;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    Eigen::VectorXd weight(k.rows());
    for (Eigen::Index j = 0; j < k.rows(); ++j) weight[j] = std::exp(q.row(i).dot(k.row(j)) / 2.0);  // √d = 2
    const Eigen::RowVectorXd want = weight.transpose() * v / weight.sum();
    exact_error = std::max(exact_error, (got_exact.row(i) - want).cwiseAbs().maxCoeff());
  }
  AttentionConfig favor;  // positive features, renormalized: the defaults
  favor.m = 16;
  const Eigen::MatrixXd got_favor = attend<double>({q}, {k}, {v}, draw_attention_projection(favor, 4, 7, 3), favor)[0];
  bool inside = got_favor.allFinite();
  for (Eigen::Index c = 0; c < v.cols(); ++c)
    inside = inside && got_favor.col(c).minCoeff() >= v.col(c).minCoeff() - 1e-12 &&
             got_favor.col(c).maxCoeff() <= v.col(c).maxCoeff() + 1e-12;
  std::printf("engine alone: exact vs softmax written out, max |error| %.3g; FAVOR rows inside V's range: %s\n",
              exact_error, inside ? "yes" : "no");
  return exact_error < 1e-12 && inside ? 0 : 1;
}
