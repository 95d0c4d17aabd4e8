#include "evaluation/attention_error.hpp"

#include <limits>
#include <stdexcept>

namespace favorlab {

namespace {
void check_shapes(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact) {
  if (approx.rows() != exact.rows() || approx.cols() != exact.cols())
    throw std::invalid_argument("attention error: approximate and exact outputs have different shapes");
}
}  // namespace

double output_mse(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact) {
  check_shapes(approx, exact);
  if (!approx.allFinite()) return std::numeric_limits<double>::infinity();
  return (approx - exact).array().square().mean();
}

double max_abs_error(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact) {
  check_shapes(approx, exact);
  if (!approx.allFinite()) return std::numeric_limits<double>::infinity();
  return (approx - exact).cwiseAbs().maxCoeff();
}

}  // namespace favorlab
