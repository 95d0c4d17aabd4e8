#pragma once
// SMREG/SM as a function of ‖z‖ and d alone (Theorem 1, eq. 30):
//   SMREG/SM = E[f(N, d)],  N ~ Poisson(w),  w = ‖z‖²/2,  f(k, d) = Π_{j<k} d/(d + 2j).
// x and y enter only through z = x + y, so every pair with the same ‖z‖ has the same ratio. Where a concrete pair is
// needed favorlab uses x = y = z/2 (x_norm = y_norm = ‖z‖/2, cos 1), for which SM = exp(‖z‖²/4) and
// SMREG = exp(−‖z‖²/4) E[exp(ωᵀz)] both stay finite over the whole domain below.
// Domain: 0 ≤ ‖z‖ ≤ max_ratio_z_norm() = √(2 ln DBL_MAX) ≈ 37.677, where exp(w) = SM/Λ still fits a double.
#include <string>

#include "kernels/geometry.hpp"
#include "kernels/smreg.hpp"  // the Geometry overloads of the same computations

namespace favorlab {

double max_ratio_z_norm();

// Throws std::invalid_argument naming `option` when z_norm is negative, not finite or beyond max_ratio_z_norm().
void validate_ratio_z_norm(double z_norm, const std::string& option);

// The pair x = y = z/2 with this ‖z‖.
Geometry smreg_ratio_geometry(double z_norm);

// log(SMREG/SM) from the Bessel closed form (kernels/smreg.hpp): log E[e^{t u₁}] − w, t = √d ‖z‖.
// Its I_{d/2−1}(t) is evaluated in long double, which underflows once d reaches a few thousand at moderate t: the
// result is then −inf (not a wrong finite number) and callers must treat it as unavailable.
double log_smreg_ratio_exact(double z_norm, int d);

// log(SMREG/SM) from the Poisson series (eq. 30), via log_smreg_ratio_series of kernels/smreg.hpp.
double log_smreg_ratio_series(double z_norm, int d);

// 1 − SMREG/SM = E[1 − f(N, d)], a sum of non-negative terms: accurate to a few ulps relative even where the gap is
// far below double's resolution of the ratio itself (large d, small ‖z‖), and ≥ 0 by construction.
double smreg_ratio_gap(double z_norm, int d);

}  // namespace favorlab
