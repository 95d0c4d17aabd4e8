#pragma once
// The softmax-kernel estimators of Lemma 1 and their projection laws.
//   trig, positive, hyperbolic — Gaussian rows (chi norms): unbiased for SM(x, y)
//   smreg                      — positive features over rows of norm √d: unbiased for SMREG(x, y) (Theorem 1)
#include <Eigen/Dense>

#include <string>
#include <string_view>
#include <vector>

#include "features/projection.hpp"

namespace favorlab {

enum class Estimator { trig, positive, hyperbolic, smreg };

std::string_view estimator_name(Estimator e);
Estimator parse_estimator(std::string_view name);  // throws std::invalid_argument naming the bad value
std::vector<std::string> estimator_names();

RowNorms row_norms_for(Estimator e);

// φ(U) for the estimator's feature map (smreg uses the positive map; its W must already have √d-norm rows).
Eigen::MatrixXd estimator_features(Estimator e, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w);

// Estimates φ(x_p)ᵀφ(y_p) for every row p of X and Y (each L×d), one projection W for all rows.
Eigen::VectorXd estimate_kernel(Estimator e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                const Eigen::MatrixXd& w);

}  // namespace favorlab
