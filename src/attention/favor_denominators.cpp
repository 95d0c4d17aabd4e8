#include "attention/favor_denominators.hpp"

#include "attention/attend.hpp"

namespace favorlab {

Eigen::VectorXd favor_denominators(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                   AttentionConfig config) {
  config.renormalize = false;
  const Heads<double> ones{Eigen::MatrixXd::Ones(k.rows(), 1)};
  return attend<double>({q}, {k}, ones, w, config).front().col(0);
}

}  // namespace favorlab
