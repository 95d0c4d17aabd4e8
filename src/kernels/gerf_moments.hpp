#pragma once
// Closed-form theory of the generalized exponential random features (GERF), their optimal member (OPRF), their
// moments under coupled rows (orthogonal and simplex blocks) and the symmetric dense-exponential features (SDERF),
// all in SOFTMAX-kernel form: every estimator here is unbiased for SM(x, y) = exp(xᵀy).
// Notation: z = x + y, φ = ‖z‖², ω ~ N(0, I_d), m features, MSE of the mean of the m feature products.
// GERF feature, real a < 1/8:  f(ω, u) = D exp(a‖ω‖² + B ωᵀu − ‖u‖²/2),  B = √(1 − 4a),  D = (1 − 4a)^{d/4}
// (a = 0: positive features), re-derived from Likhosherstov et al. 2022 (FAVOR++) and 2023 (FAVOR#) and Reid et al.
// 2023 (simplex).
// The derivations below use the Gaussian integral
//   E[exp(t‖ω‖² + ωᵀv)] = (1 − 2t)^{−d/2} exp(‖v‖²/(2(1 − 2t)))  (t < 1/2)                                   (G)
// Derivation: docs/theory.md#beyond-the-papers
//
// Everything that can overflow is computed in logs; the MSEs themselves are returned as plain values (they are of
// the order of SM², finite for the φ ≲ 700 these functions are meant for).
// Parameters are validated: std::invalid_argument naming the parameter for a ≥ 1/8 (or non-finite), d < 1, m < 1,
// non-finite or negative φ, c outside [−1, 1].
#include <Eigen/Dense>

#include "kernels/geometry.hpp"

namespace favorlab {

// ---------------------------------------------------------------------------------------------------------------
// One feature (iid rows).
// ---------------------------------------------------------------------------------------------------------------

// log E[f(ω,x)² f(ω,y)²]: (G) with t = 4a, v = 2Bz:
//   E[f(x)² f(y)²] = ((1 − 4a)² / (1 − 8a))^{d/2} · exp((1 + 1/(1 − 8a)) φ − ‖x‖² − ‖y‖²)
// (2B²/(1 − 8a) = 2(1 − 4a)/(1 − 8a) = 1 + 1/(1 − 8a); (1−4a)²/(1−8a) = 1 + 16a²/(1−8a), the variance form of
// docs/theory.md#gerf.)
double gerf_log_second_moment(const Geometry& g, int d, double a);

// log(E[f(x)² f(y)²] / SM²) = (d/2) log((1 − 4a)²/(1 − 8a)) + φ/(1 − 8a), a function of (φ, d, a) only.
// The iid MSE is SM² · expm1(this)/m; a = 0 gives Lemma 2, SM² (e^φ − 1)/m.
double gerf_log_relative_second_moment(double phi, int d, double a);

// MSE of the GERF estimator with m iid rows: (E[f(x)² f(y)²] − SM²)/m.
double gerf_mse_iid(const Geometry& g, int d, double a, int m);

// OPRF: the a minimising the one-feature second moment at a given φ. With ρ = 1/(1 − 8a) (a = (1 − 1/ρ)/8,
// 1 − 4a = (ρ + 1)/(2ρ)), d/da of the log above vanishes iff 2φρ² + (2φ + d)ρ − d = 0, whose positive root gives
//   a* = (1/16) (1 − 2φ/d − √((2φ/d + 1)² + 8φ/d))  ≤ 0,   a* = 0 at φ = 0.
// It is the global minimiser on (−∞, 1/8): the log second moment → +∞ at both ends and has this one stationary point.
// Evaluated in a cancellation-free form (accurate as φ → 0, where a* ≈ −φ/(2d)).
double oprf_a_star(double phi, int d);

// ---------------------------------------------------------------------------------------------------------------
// Two coupled rows ω_i = r_i v_i, ω_j = r_j v_j: r_i, r_j iid chi_d, unit vectors with v_iᵀv_j = c, the pair rotated
// by a Haar matrix (c = 0: orthogonal rows, R-ORF; c = −1/(d−1): simplex rows). The functions below return the
// normalised pair moment ρ(φ, d, a, c) = e^{‖x‖²+‖y‖²} · E[f_i(x) f_i(y) f_j(x) f_j(y)], so pair moment / SM² =
// e^{−φ} ρ (independent rows: ρ = e^φ). ρ does not depend on a: ρ = E[₀F₁(; d/2; φR²/4)], R² = ‖ω_i + ω_j‖² at a = 0.
// Derivation: docs/theory.md#coupled-rows-and-the-pair-moment
// ---------------------------------------------------------------------------------------------------------------

// log ρ for orthogonal rows (c = 0), closed form. R² = r_i² + r_j² ~ chi²_{2d}; with (G)-type moments
// E[S^k e^{2aS}] = (d)_k 2^k (1 − 4a)^{−d−k} for S ~ chi²_{2d}, term by term:
//   ρ = D⁴ (1 − 4a)^{−d} Σ_k (d)_k/(k! (d/2)_k) (φ/2)^k = ₁F₁(d; d/2; φ/2)
// (a enters only through the validation). a = 0: the positive R-ORF moment, log_orthogonal_pair_moment_1f1(√φ, d).
double gerf_log_pair_moment_orthogonal(double phi, int d, double a);

// log ρ by adaptive 2-D Gauss–Kronrod quadrature over the joint chi_d density of (r_i, r_j), for any c ∈ [−1, 1]
// and a < 1/8, evaluating the pair-moment integrand literally (with its a-dependence; ₀F₁ by the Bessel function of
// kernels/smreg.hpp), in logs with a max shift. When relative_error is given it receives the quadrature's own
// error estimate (relative to ρ). Checked against the series and ₁F₁ for d ≤ 256 and φ ≤ 200 (estimates ≤ 1e-12).
double gerf_log_pair_moment_quadrature(double phi, int d, double a, double c, double* relative_error = nullptr);

// log ρ from the multinomial series, generalised to a ≠ 0 (the tilted chi moments μ̃_p = E[r^p e^{2a r²}]
// = (1 − 4a)^{−(d+p)/2} μ_p replace μ_p = E[r^p] = 2^{p/2} Γ((d+p)/2)/Γ(d/2)):
//   ρ = D⁴ Σ_k ((1−4a)φ/4)^k / (k! (d/2)_k) · Σ_{a'+b'+j=k} k!/(a'! b'! j!) (2c)^j μ̃_{2a'+j} μ̃_{2b'+j},
// i.e. ₀F₁ expanded and E[R^{2k}] by the multinomial theorem. For c < 0 the inner sums alternate; they are summed in
// 50-digit arithmetic and std::runtime_error is thrown if the estimated rounding error exceeds 1e-13 relative
// (the worst case d = 2, c = −1 still works at φ = 100 and throws at φ = 200). At c = 0 it equals ₁F₁(d; d/2; φ/2).
double gerf_log_pair_moment_series(double phi, int d, double a, double c);

// ---------------------------------------------------------------------------------------------------------------
// MSE with m rows in independent blocks of d coupled rows (kernels/orthogonal_mse.hpp's same_block_pair_fraction):
//   MSE = MSE_iid + (P/m²)(pair moment − SM²) = SM² [expm1(log E[f²f²]/SM²)/m + (P/m²) expm1(log ρ − φ)].
// Each row has the iid marginal, so only the P ordered same-block pairs differ from the iid estimator.
// ---------------------------------------------------------------------------------------------------------------

// The MSE above for a given log ρ of the coupling (e.g. from one of the three pair-moment functions).
double gerf_block_mse(const Geometry& g, int d, double a, int m, double log_rho);

// Exact GERF MSE with orthogonal (R-ORF, chi norms) blocks: gerf_block_mse with ρ = ₁F₁(d; d/2; φ/2).
// a = 0 equals orthogonal_mse(RowNorms::chi, g, d, m) (kernels/orthogonal_mse.hpp).
double gerf_orthogonal_mse(const Geometry& g, int d, double a, int m);

// The (1 − 1/m) form of the correction, literally: MSE_ORF = MSE_iid + (1 − 1/m) SM² [e^{−φ} ₁F₁(d; d/2; φ/2) − 1],
// with MSE_iid the GERF iid MSE at a (pass a = oprf_a_star(φ, d) for OPRF). It equals gerf_orthogonal_mse for every a
// when m ≤ d (P/m² = 1 − 1/m there); for m > d it overstates the correction (docs/theory.md#block-correction).
double math_md_oprf_orf_mse_as_stated(const Geometry& g, int d, double a, int m);

// ---------------------------------------------------------------------------------------------------------------
// SDERF (symmetric dense-exponential features), softmax form:
//   f(ω, u) = D exp(ωᵀAω + ωᵀBu − ‖u‖²/2),  A symmetric, 8A ≺ I,  B = (I − 4A)^{1/2},  D = det(I − 4A)^{1/4}.
// In A's eigenbasis (A = Q diag(a) Qᵀ) the second moment is a product of one-dimensional GERF factors, and the SDERF
// choice solves one d = 1 OPRF problem per eigenvalue λ_l of M = mean (x_i + y_j)(x_i + y_j)ᵀ = Q diag(λ) Qᵀ.
// Derivation: docs/theory.md#derf-and-sderf
// ---------------------------------------------------------------------------------------------------------------

// a_l = (1/16)(1 − 2λ_l − √((2λ_l + 1)² + 8λ_l)) = oprf_a_star(λ_l, 1) for each λ_l ≥ 0.
Eigen::VectorXd sderf_eigen_a(const Eigen::VectorXd& lambda);

struct SderfParameters {
  Eigen::VectorXd a;  // eigenvalues of A, each < 1/8 (≤ 0 for the SDERF choice)
  Eigen::MatrixXd q;  // orthogonal; column l is the eigenvector of a(l)
};

// The SDERF choice from a symmetric positive semi-definite d×d M (Eigen::SelfAdjointEigenSolver; eigenvalues that
// rounding pushed below zero, by at most 1e-12 of the largest, are taken as 0).
SderfParameters sderf_parameters(const Eigen::MatrixXd& m);

// log E[f(x)² f(y)²] for A = q diag(a) qᵀ (the factorised formula of docs/theory.md#derf-and-sderf; q must be
// orthogonal, a_l < 1/8).
double sderf_log_second_moment(const Eigen::VectorXd& a, const Eigen::MatrixXd& q, const Eigen::VectorXd& x,
                               const Eigen::VectorXd& y);

// MSE of SDERF with m iid rows: (E[f(x)² f(y)²] − SM²)/m.
double sderf_mse_iid(const Eigen::VectorXd& a, const Eigen::MatrixXd& q, const Eigen::VectorXd& x,
                     const Eigen::VectorXd& y, int m);

// SDERF fitted to the single pair (x, y): M = zzᵀ, λ = (φ, 0, …, 0), so a = oprf_a_star(φ, 1) along z and 0 across.
// The directions across z contribute a factor 1, so the MSE is GERF's in d = 1 along z at its optimum:
//   SM² expm1(½ log((1 − 4a)²/(1 − 8a)) + φ/(1 − 8a))/m,  a = oprf_a_star(φ, 1),
// which does not depend on d at all (d is only validated against the geometry). Since OPRF minimises
// (d/2) log((1−4a)²/(1−8a)) + φ/(1−8a) with the non-negative first term weighted by d/2 ≥ 1/2, and positive
// features are a = 0 in both: SDERF(pair) ≤ OPRF ≤ positive, with SDERF = OPRF in d = 1.
double sderf_pair_mse_iid(const Geometry& g, int d, int m);

}  // namespace favorlab
