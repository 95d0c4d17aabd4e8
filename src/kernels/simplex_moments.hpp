#pragma once
// Simplex random features (Reid et al., "Simplex Random Features", ICML 2023) for positive (a = 0) and GERF features
// (kernels/gerf_moments.hpp), softmax-kernel form, φ = ‖x + y‖². Blocks of d rows w_i = r_i Rᵀ s_i (regular-simplex
// directions, one Haar R per block, iid chi_d norms); m = k·d + r rows use k full blocks and r rows of one more.
// MSE = MSE_iid + (P/m²)·SM²(e^{−φ}ρ − 1), ρ the coupled-pair moment at c = −1/(d−1), independent of a; simplex rows
// beat orthogonal rows for every φ > 0. d must be ≥ 2 (std::invalid_argument naming d otherwise).
// Derivation: docs/theory.md#simplex-random-features
#include "kernels/geometry.hpp"

namespace favorlab {

// The cosine between two simplex directions, −1/(d − 1), d ≥ 2.
double simplex_cosine(int d);

// log ρ for a simplex pair: the multinomial series (gerf_log_pair_moment_series at c = −1/(d−1), 50-digit
// arithmetic); where that series reports too much cancellation (very large φ), the 2-D quadrature
// gerf_log_pair_moment_quadrature instead. The value does not depend on a (kept to validate and to show it).
double simplex_log_pair_moment(double phi, int d, double a);

// Exact MSE of the GERF (a = 0: positive) estimator with m simplex rows in blocks of d.
double simplex_mse(const Geometry& g, int d, double a, int m);

}  // namespace favorlab
