#pragma once
// The closed forms Theorem 2 compares at one point (kernels/orthogonal_mse.hpp, chosen by family through
// features/family_theory.hpp), for the positive (K = SM) and regularized (K = SMREG) estimators with m ≤ d features: the exact MSEs with iid and with orthogonal rows, the
// bound the theorem claims for the orthogonal MSE, MSE(iid) − (1 − 1/m)·2/(d+2)·K², and the bound its proof does
// establish, with K² replaced by (K − Λ)². `favorlab orthogonal` tests the claim against all of them.
#include "features/feature_family.hpp"
#include "kernels/geometry.hpp"

namespace favorlab {

struct Theorem2Point {
  double iid_mse = 0;
  double orthogonal_mse = 0;
  double claimed_bound = 0;
  double corrected_bound = 0;
  // The improvement the theorem claims over iid features, (1 − 1/m)·2/(d+2)·K².
  double claimed_gap() const { return iid_mse - claimed_bound; }
};

// Throws std::invalid_argument for an estimator other than positive or smreg, m > d, or a bad geometry or size.
Theorem2Point theorem2_point(Family e, const Geometry& g, int d, int m);

}  // namespace favorlab
