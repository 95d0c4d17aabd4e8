#pragma once
// Error measures between an approximate and an exact attention output or matrix (docs/theory.md#error-measures):
//   output MSE  = mean over entries of (approx − exact)²          (Fig. 4)
//   max error   = max over entries of |approx − exact|             (‖Â − A‖_∞ of Theorem 4)
// Both return +∞ when approx has a NaN or Inf entry, so a broken approximation can never look accurate.
#include "features/feature_maps.hpp"

namespace favorlab {

double output_mse(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact);
double max_abs_error(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact);

}  // namespace favorlab
