#pragma once
// The softmax-kernel estimators: the families of feature_family.hpp whose target is SM or SMREG, as the estimator
// (Monte Carlo) engine evaluates them on pairs of inputs.
//   trig, positive, hyperbolic — Gaussian rows (chi norms): unbiased for SM(x, y)
//   smreg                      — positive features over rows of norm √d: unbiased for SMREG(x, y) (Theorem 1)
//   gerf, oprf, sderf          — generalized / dense exponential features: unbiased for SM(x, y); oprf and sderf
//                                choose their parameters from each pair (x_p, y_p) (features/gerf_projection.hpp)
#include <Eigen/Dense>

#include <string>
#include <string_view>
#include <vector>

#include "features/feature_family.hpp"
#include "features/projection.hpp"

namespace favorlab {


Family parse_estimator(std::string_view name);  // throws std::invalid_argument naming the bad value
std::vector<std::string> estimator_names();

RowNorms row_norms_for(Family e);

// φ(U) for the estimator's feature map, for the families whose features do not depend on the pair
// (smreg uses the positive map; its W must already have √d-norm rows). Throws std::invalid_argument for oprf, sderf.
Eigen::MatrixXd estimator_features(Family e, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w,
                                   const FeatureParameters& params = {});

// Estimates φ(x_p)ᵀφ(y_p) for every row p of X and Y (each L×d), one projection W for all rows.
Eigen::VectorXd estimate_kernel(Family e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                const Eigen::MatrixXd& w, const FeatureParameters& params = {});

// The buffers of the overload below. Kept from call to call with the same shapes, they make a call allocate nothing
// for the families with fixed features (the data-dependent ones, oprf and sderf, still allocate).
struct KernelWorkspace {
  Eigen::MatrixXd x_features, y_features;
  Eigen::VectorXd estimates;
};

// The same estimates, written to and returned as workspace.estimates; the numbers are those of the overload above.
const Eigen::VectorXd& estimate_kernel(Family e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                       const Eigen::MatrixXd& w, const FeatureParameters& params,
                                       KernelWorkspace& workspace);

}  // namespace favorlab
