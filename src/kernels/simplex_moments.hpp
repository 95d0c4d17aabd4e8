#pragma once
// Simplex random features (Reid et al., "Simplex Random Features", ICML 2023; MATH.md, "Beyond the papers"), for
// positive (a = 0) and GERF features (kernels/gerf_moments.hpp), softmax-kernel form, φ = ‖x + y‖².
// Within a block of d rows: directions s_1 … s_d of a regular simplex (unit vectors, s_iᵀs_j = −1/(d−1), Σ s_i = 0),
// rotated by one Haar matrix R, with iid chi_d norms: w_i = r_i Rᵀ s_i. Blocks are independent; m = k·d + r rows use
// k full blocks and r rows of one more (every same-block pair still has cosine −1/(d−1)).
// Each row is marginally N(0, I_d), so only same-block pairs differ from iid rows, and for such a pair ω_i + ω_j
// = Rᵀ(r_i s_i + r_j s_j) has a Haar-uniform direction independent of its squared norm R² = r_i² + r_j² + 2c r_i r_j,
// c = −1/(d−1): the coupled-pair moment of gerf_moments.hpp at that c. Hence
//   MSE = MSE_iid + (P/m²) · SM² (e^{−φ} ρ − 1),   ρ = E[₀F₁(; d/2; φR²/4)]  (any a < 1/8: ρ does not depend on a),
// which for m = d is MATH.md's (SM²/m)[(e^φ − 1) + (m − 1)(e^{−φ}ρ − 1)] (P/m² = (m − 1)/m) at a = 0.
// ρ increases with c (R² does, pointwise, and ₀F₁ is increasing), so simplex rows (c < 0) beat orthogonal rows
// (c = 0) for every φ > 0 and d ≥ 2. d must be ≥ 2 (std::invalid_argument naming d otherwise).
#include "kernels/geometry.hpp"

namespace favorlab {

// The cosine between two simplex directions, −1/(d − 1), d ≥ 2.
double simplex_cosine(int d);

// log ρ for a simplex pair: MATH.md's multinomial series (gerf_log_pair_moment_series at c = −1/(d−1), 50-digit
// arithmetic); where that series reports too much cancellation (very large φ), the 2-D quadrature
// gerf_log_pair_moment_quadrature instead. The value does not depend on a (kept to validate and to show it).
double simplex_log_pair_moment(double phi, int d, double a);

// Exact MSE of the GERF (a = 0: positive) estimator with m simplex rows in blocks of d.
double simplex_mse(const Geometry& g, int d, double a, int m);

}  // namespace favorlab
