#pragma once
// Exact MSEs of the positive (SM) and regularized (SMREG) estimators with orthogonal random features, and the bound
// that Theorem 2 claims for them. Rows in independent blocks of d; only the P ordered same-block pairs differ from iid:
//   MSE(ort) = MSE(iid) − (P/m²) · Λ² · (F(z)² − S(z)),   F(z) = E[exp(ωᵀz)],  S(z) = E[exp(ω_1ᵀz) exp(ω_2ᵀz)],
// S = ₁F₁(d; d/2; ‖z‖²/2) for chi norms and M_d(√(2d) ‖z‖) for √d norms (kernels/smreg.hpp), each also as a series.
// Everything is computed in logs, so values stay finite long after SM² itself would overflow.
// Derivation: docs/theory.md#exact-orthogonal-mse
#include "kernels/geometry.hpp"
#include "kernels/row_norms.hpp"

namespace favorlab {

// log S(z) for chi-norm orthogonal rows: the double series over even (t, u) (log-sum-exp), and ₁F₁ (Boost.Math).
double log_orthogonal_pair_moment_series(double z_norm, int d);
double log_orthogonal_pair_moment_1f1(double z_norm, int d);
// log S(z) for √d-norm orthogonal rows: the double series, and the sphere MGF at √(2d)‖z‖.
double log_regularized_pair_moment_series(double z_norm, int d);
double log_regularized_pair_moment_exact(double z_norm, int d);

// Fraction P/m² of ordered pairs (i ≠ j) that share an orthogonal block of d rows.
double same_block_pair_fraction(int m, int d);

// The estimator is positive features over rows with the given norms: chi rows estimate SM (the positive family),
// √d rows SMREG (smreg). features/family_theory.hpp gives the same functions by family.
// MSE of the iid estimator: Lemma 2 for chi rows; (E[X²] − SMREG²)/m with E[X²] = Λ² M_d(2√d‖z‖) for √d rows.
double iid_mse(RowNorms norms, const Geometry& g, int d, int m);
// Exact MSE with orthogonal rows in blocks of d (any m ≥ 1).
double orthogonal_mse(RowNorms norms, const Geometry& g, int d, int m);

// Theorem 2 as stated (m ≤ d): MSE(ort) ≤ MSE(iid) − (1 − 1/m)·2/(d+2)·K², K = SM (chi rows) or SMREG (√d rows).
double theorem2_claimed_bound(RowNorms norms, const Geometry& g, int d, int m);
// What the proof (eqs. 62–74) does establish once the terms with t = 0 or u = 0 — where τ = 1 and the pair terms
// of the two couplings coincide — are left out of Lemma 6: the same with K² replaced by (K − Λ)²
// (docs/theory.md#where-theorem-2-fails).
double theorem2_corrected_bound(RowNorms norms, const Geometry& g, int d, int m);

}  // namespace favorlab
