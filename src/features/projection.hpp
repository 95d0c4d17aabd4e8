#pragma once
// Random projections W ∈ R^{m×d}; row i is ω_i (docs/theory.md#projection-distributions).
//   iid:          rows ω_i ~ N(0, I_d), independent.
//   orthogonal:   independent blocks of ≤ d rows; inside a block the directions are rows of a Haar-random orthogonal
//                 matrix (QR of a Gaussian matrix with the signs of diag(R) folded into Q).
//   hadamard:     SORF blocks √d·H D₁ H D₂ H D₃; givens: products of d·⌈log₂ d⌉ random Givens rotations
//                 (features/structured_projection.hpp). Orthogonal rows inside a block; hadamard needs d a power of 2.
//   simplex:      blocks of ≤ d rows whose directions are a randomly rotated regular simplex (negatively correlated
//                 rows, s_iᵀs_j = −1/(d − 1)), chi_d norms.
// Row norms:      chi    — each row's norm ~ chi_d independently, so every row is marginally N(0, I_d)
//                          ("ortho_scaling 0"; for iid rows this is simply the Gaussian itself);
//                 sqrt_d — every row has norm √d ("ortho_scaling 1"; iid rows become uniform on √d·S^{d−1}, the
//                          regularized projections whose estimator has mean SMREG).
#include <Eigen/Dense>

#include <string>
#include <string_view>

#include "kernels/row_norms.hpp"
#include "rng/philox_stream.hpp"

namespace favorlab {

enum class Coupling { iid, orthogonal, hadamard, givens, simplex };

std::string_view coupling_name(Coupling c);
Coupling parse_coupling(std::string_view name);  // throws std::invalid_argument naming the bad value

// Throws std::invalid_argument naming m or d unless both are positive (every projection's first check).
void require_projection_shape(int m, int d);

Eigen::MatrixXd iid_projection(int m, int d, PhiloxStream& rng);
Eigen::MatrixXd orthogonal_projection(int m, int d, PhiloxStream& rng);
// Simplex random features (Reid et al., ICML 2023): independent blocks of ≤ d rows; inside a block row i is
// r_i R s_i with s_1 … s_d the unit vertices of a regular simplex (s_iᵀs_j = −1/(d − 1)), R one Haar rotation per
// block and r_i ~ chi_d independent. Needs d ≥ 2.
Eigen::MatrixXd simplex_projection(int m, int d, PhiloxStream& rng);
Eigen::MatrixXd draw_projection(Coupling coupling, RowNorms norms, int m, int d, PhiloxStream& rng);

// The norm of an independent N(0, I_d) vector drawn from rng: a chi_d variate (the row norms of RowNorms::chi).
double chi_variate(int d, PhiloxStream& rng);

// Rescales every row to norm √d (turns chi-norm rows into their regularized counterparts).
void rescale_rows_to_sqrt_d(Eigen::MatrixXd& w);

}  // namespace favorlab
