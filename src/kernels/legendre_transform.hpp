#pragma once
// The Legendre transform (rate function) of one regularized feature X (kernels/regularized_feature_mgf.hpp):
//   L_X(a) = sup_{θ>0} (θa − log M_X(θ)).
// log M_X is convex with slope E[X] at θ = 0 and slope → max X as θ → ∞, so:
//   a ≤ E[X]            L_X(a) = 0 (the supremum is approached as θ → 0)
//   E[X] < a < max X    the supremum is attained at the θ* where the tilted mean equals a; found by bracketing
//                       (doubling θ) and Brent minimisation of the convex log M_X(θ) − θa (Boost.Math)
//   a = max X           −log P[X = max X] (+∞ when X has a density, log 2 for d = 1)
//   a > max X           +∞
#include "kernels/regularized_feature_mgf.hpp"

namespace favorlab {

struct LegendreValue {
  double value = 0;  // L_X(a), possibly +∞
  double theta = 0;  // the maximising θ (0 for a ≤ E[X], +∞ for a ≥ max X)
};

LegendreValue legendre_transform(const RegularizedFeature& x, double a);  // throws std::invalid_argument for NaN a

}  // namespace favorlab
