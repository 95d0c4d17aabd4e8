#pragma once
// Theorem 3 (tail bounds for the regularized softmax-kernel estimator; docs/theory.md#tail-bounds-theorem-3).
// For a > SMREG(x, y) and m ≤ d, with X one regularized feature and L_X its Legendre transform:
//   P[SMREG^+_m(x, y) > a]    ≤ exp(−m L_X(a))             (iid rows of norm √d: a Chernoff bound)
//   P[SMREG^ort+_m(x, y) > a] ≤ d/(d+2) · exp(−m L_X(a))   (orthogonal rows of norm √d)
// Above the largest value the estimator can take (a ≥ max X, up to an atom for d = 1) both bounds are 0. Orthogonal
// rows reach less: their largest estimate (kernels/orthogonal_estimate_max.hpp) lies below max X once m ≥ 2, and
// above it the orthogonal tail is exactly 0 while the bounds are not.
#include "kernels/geometry.hpp"

namespace favorlab {

struct TailBound {
  double smreg = 0;        // SMREG(x, y) = E[X]
  double max_feature = 0;  // max X = Λ e^{√d‖z‖}: the largest estimate of iid rows (one feature's maximum)
  double max_orthogonal = 0;  // the largest estimate of m orthogonal rows, Λ/m · max Σ e^{κ t_i} over Σ t_i² ≤ 1:
                              // a certified upper bound, above the true value by at most (κ² + κ√m)·4e-8 relative
  double legendre = 0;     // L_X(a) (+∞ above the support)
  double theta = 0;        // the maximising θ of the Legendre transform
  double iid = 0;          // exp(−m L_X(a))
  double orthogonal = 0;   // d/(d+2) · exp(−m L_X(a))
};

// Throws std::invalid_argument (naming the problem) when m ≤ 0, m > d, a is not finite or a ≤ SMREG(x, y), or the
// geometry is invalid.
TailBound theorem3_bound(const Geometry& g, int d, int m, double a);

}  // namespace favorlab
