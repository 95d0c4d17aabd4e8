#pragma once
// Generalized and dense exponential random features in softmax-kernel form, as a prepared projection for the positive
// map: f(ω_i, u) = exp(ω'_iᵀu + c_i − ‖u‖²/2) with ω'_i = Bω_i, c_i = ω_iᵀAω_i + ¼ log det(I − 4A), B = (I − 4A)^{1/2};
// a ShiftedProjection holds W' (rows ω'_i) and c. gerf: A = a·I; oprf: gerf at a* (oprf_a_star) of the mean ‖q + k‖²;
// sderf: A = Q diag(a_l) Qᵀ from M = Q diag(λ) Qᵀ, the mean (q + k)(q + k)ᵀ. For attention the statistics are means
// over all query–key pairs (never an L×L matrix); for the estimator experiments they are the pair's own.
// Derivation: docs/theory.md#gerf-as-a-shifted-positive-map
#include <Eigen/Dense>

#include "features/feature_family.hpp"
#include "features/shifted_projection.hpp"

namespace favorlab {

// The table's functions of the families on the shifted positive map (feature_family.cpp):
//   prepare:    gerf from W and params.gerf_a; oprf from W and the mean ‖q + k‖²; sderf from W and the mean outer
//               product.
//   pair_gerf:  positive (0, d); gerf (params.gerf_a, d); oprf (a*(φ, d), d); sderf (a*(φ, 1), 1) — for one pair
//               M = zzᵀ makes A = a vvᵀ along v = z/‖z‖ and 0 elsewhere, where the features are positive ones, so
//               f(ω, x) f(ω, y) is the one-dimensional gerf of t = vᵀω ~ N(0, 1) at the scalar pair sum ‖z‖: every
//               moment of sderf at a pair is gerf's with d = 1 and φ unchanged.
ShiftedProjection gerf_prepare(const Eigen::MatrixXd& w, const PairStatistics& stats, const FeatureParameters& params);
ShiftedProjection oprf_prepare(const Eigen::MatrixXd& w, const PairStatistics& stats, const FeatureParameters& params);
ShiftedProjection sderf_prepare(const Eigen::MatrixXd& w, const PairStatistics& stats, const FeatureParameters& params);
PairGerf positive_pair_gerf(double phi, int d, const FeatureParameters& params);
PairGerf gerf_pair_gerf(double phi, int d, const FeatureParameters& params);
PairGerf oprf_pair_gerf(double phi, int d, const FeatureParameters& params);
PairGerf sderf_pair_gerf(double phi, int d, const FeatureParameters& params);

// Throws std::invalid_argument unless a < 1/8 and finite.
ShiftedProjection gerf_projection(const Eigen::MatrixXd& w, double a);
// M: d×d symmetric positive semi-definite (it is a mean of outer products); throws std::invalid_argument otherwise.
ShiftedProjection sderf_projection(const Eigen::MatrixXd& w, const Eigen::MatrixXd& m);

// [W' | c], m×(d+1): the form the feature maps take (shifted_positive_features, features/feature_maps.hpp).
Eigen::MatrixXd packed(const ShiftedProjection& s);

// The estimator experiments' oprf and sderf: φ(x_p)ᵀφ(y_p) for every row p, each pair with its own a* (oprf) or its
// own M = (x_p + y_p)(x_p + y_p)ᵀ (sderf: a rank-one A along x_p + y_p, computed without a d×d eigensolver).
Eigen::VectorXd oprf_pair_estimates(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::MatrixXd& w);
Eigen::VectorXd sderf_pair_estimates(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::MatrixXd& w);

}  // namespace favorlab
