#pragma once
// Exact MSEs of the positive (SM) and regularized (SMREG) estimators with orthogonal random features, and the bound
// that Theorem 2 claims for them (MATH.md, "Orthogonality (Theorem 2, section F.4)").
//
// With X_i = Λ exp(ω_iᵀz) the estimate is (1/m) Σ X_i; orthogonal rows have the iid marginals, so only the pair terms
// E[X_i X_j] differ between the couplings. For m rows in independent blocks of d (m > d), only the P ordered pairs of
// the same block are coupled, P = k·d(d−1) + r(r−1) for m = k·d + r, and
//   MSE(ort) = MSE(iid) − (P/m²) · Λ² · (F(z)² − S(z))            (P/m² = 1 − 1/m when m ≤ d),
// F(z) = E[exp(ωᵀz)] for one row and S(z) = E[exp(ω_1ᵀz) exp(ω_2ᵀz)] for two orthogonal rows of the same block:
//   chi norms (SM):    F² = exp(‖z‖²),  S(z) = Σ_{t,u even} ‖z‖^{t+u}/(t! u!) · μ(t)μ(u)(t−1)!!(u−1)!!/μ(t+u)
//                                             = ₁F₁(d; d/2; ‖z‖²/2),   μ(j) = 2^{j/2} Γ((d+j)/2)/Γ(d/2)
//   √d norms (SMREG):  F = M_d(√d ‖z‖),    S(z) = Σ_{t,u even} ‖z‖^{t+u}/(t! u!) · d^{(t+u)/2}(t−1)!!(u−1)!!/(d(d+2)⋯(d+t+u−2))
//                                             = M_d(√(2d) ‖z‖)
// with M_d(t) = E_{u~Unif(S^{d−1})}[exp(t u₁)] (kernels/smreg.hpp). The closed forms have one reason: ω_1 + ω_2 is
// isotropic with norm √(s_1² + s_2²) — chi_{2d} for chi norms, exactly √(2d) for √d norms.
// Everything is computed in logs, so values stay finite long after SM² itself would overflow.
#include "features/estimator.hpp"
#include "kernels/geometry.hpp"

namespace favorlab {

// log S(z) for chi-norm orthogonal rows: the double series over even (t, u) (log-sum-exp), and ₁F₁ (Boost.Math).
double log_orthogonal_pair_moment_series(double z_norm, int d);
double log_orthogonal_pair_moment_1f1(double z_norm, int d);
// log S(z) for √d-norm orthogonal rows: the double series, and the sphere MGF at √(2d)‖z‖.
double log_regularized_pair_moment_series(double z_norm, int d);
double log_regularized_pair_moment_exact(double z_norm, int d);

// Fraction P/m² of ordered pairs (i ≠ j) that share an orthogonal block of d rows.
double same_block_pair_fraction(int m, int d);

// MSE of the iid estimator: Lemma 2 for positive; (E[X²] − SMREG²)/m with E[X²] = Λ² M_d(2√d‖z‖) for smreg.
// Only positive and smreg are supported (std::invalid_argument otherwise).
double iid_mse(Estimator e, const Geometry& g, int d, int m);
// Exact MSE with orthogonal rows in blocks of d (any m ≥ 1).
double orthogonal_mse(Estimator e, const Geometry& g, int d, int m);

// Theorem 2 as stated (m ≤ d): MSE(ort) ≤ MSE(iid) − (1 − 1/m)·2/(d+2)·K², K = SM (positive) or SMREG (smreg).
double theorem2_claimed_bound(Estimator e, const Geometry& g, int d, int m);
// What the proof (eqs. 62–74) does establish once the terms with t = 0 or u = 0 — where τ = 1 and the pair terms
// of the two couplings coincide — are left out of Lemma 6: the same with K² replaced by (K − Λ)².
double theorem2_corrected_bound(Estimator e, const Geometry& g, int d, int m);

}  // namespace favorlab
