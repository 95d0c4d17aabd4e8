#include "attention/favor_denominators.hpp"

#include "attention/attend.hpp"
#include "attention/backend.hpp"

namespace favorlab {

Eigen::VectorXd favor_denominators(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                   AttentionConfig config, Backend backend) {
  config.renormalize = false;
  const Heads<double> ones{Eigen::MatrixXd::Ones(k.rows(), 1)};
  return attend_double_on_backend(backend, {q}, {k}, ones, w, config).front().col(0);
}

}  // namespace favorlab
