#pragma once
// Importance sampling (IS) of the one-feature variance (Lemma 2's analogue) for the exponential-quadratic families
// positive, gerf, oprf and sderf: the light-tailed second route of mc/importance_mse.hpp (read that first: the
// proposal along ẑ, the reason for the third-moment criterion and the reliability gate are the same), extended to
// features that also depend on ω across ẑ.
//
// Notation (MATH.md): z = x + y, φ = r² = ‖z‖², ẑ = z/r, Λ = exp(−(‖x‖² + ‖y‖²)/2), SM = exp(xᵀy) = Λ e^{r²/2},
// p = N(0, I_d), φ(·) also the standard normal density where it takes one argument. Write ω = s ẑ + ω_⊥.
//
// The families at one pair (features/gerf_projection.hpp, pair_gerf). Each is, at the pair, an isotropic gerf with
// parameters (a, k) = pair_gerf(φ, d, params), a < 1/8, acting in k dimensions:
//   positive (0, d);  gerf (params.gerf_a, d);  oprf (a*(φ, d), d);  sderf (a*(φ, 1), 1)   [a* = oprf_a_star].
// gerf/oprf/positive: f(ω, u) = (1 − 4a)^{d/4} exp(a‖ω‖² + B ωᵀu − ‖u‖²/2), B = √(1 − 4a), so one feature gives
//   g(ω) = f(ω, x) f(ω, y) = (1 − 4a)^{d/2} Λ exp(2a‖ω‖² + B ωᵀz),  ‖ω‖² = s² + ‖ω_⊥‖²,  ωᵀz = r s.
// sderf fitted to the pair: M = zzᵀ, so A = a ẑẑᵀ (rank one along ẑ, a = a*(φ, 1)), B = I + (√(1 − 4a) − 1)ẑẑᵀ,
// det(I − 4A) = 1 − 4a:  g(ω) = (1 − 4a)^{1/2} Λ exp(2a s² + √(1 − 4a) r s)  — ω_⊥ does not enter at all.
// Both are, relative to SM (Λ/SM = e^{−r²/2}),
//   h(s, u) = g/SM = (1 − 4a)^{k/2} exp(2a s² + B r s − r²/2) · exp(2a u),   u = ‖P ω_⊥‖²,
// with P the projection onto the k − 1 directions orthogonal to ẑ where A acts: k = d: P = I on ω_⊥, u ~ χ²_{d−1}
// under p; k = 1: u ≡ 0. (Checked against estimate_kernel for all four families: tests, rounding agreement.)
// Under p, E_p[h] = 1 (the Gaussian integral (G) of kernels/gerf_moments.hpp) and
//   E_p[h²] = ((1 − 4a)²/(1 − 8a))^{k/2} e^{r²/(1−8a)},   so
//   Var_p(g)/SM² = expm1(gerf_log_relative_second_moment(φ, k, a)) = family.iid_mse(g, d, m, params)·m/SM²
// (gerf, oprf: k = d; sderf: k = 1, sderf_pair_mse_iid; positive: e^{r²} − 1).
//
// The proposal q: s ~ N(μ, σ²) along ẑ; in the n = k − 1 directions where A acts (n = d − 1 for k = d, none for
// k = 1), ω_⊥ ~ N(0, τ² I); in the other d − k directions (sderf's), ω_⊥ stays N(0, I): the integrand does not depend
// on them, so changing their law only adds weight variance (the Jensen/Cauchy–Schwarz argument of importance_mse.hpp).
// The integrand depends on Pω_⊥ only through u (rotation invariant), so by the symmetrisation argument of
// importance_mse.hpp (q̄ = rotation average of q has smaller moments, t ↦ t^{1−j} convex) an isotropic law suffices;
// within those we take the Gaussian scale family. τ is a free parameter only when n > 0 and a ≠ 0 (for a = 0, h does
// not depend on u and τ = 1 is optimal by the same Jensen argument). Implemented as ω = s ẑ + τ(I − ẑẑᵀ)ξ (k = d) or
// ω = s ẑ + (I − ẑẑᵀ)ξ (k = 1), ξ ~ N(0, I_d). Likelihood ratio, with c = ‖(I − ẑẑᵀ)ξ‖² (so u = τ² c):
//   w = [φ(s)/N(s; μ, σ²)] · τ^n exp(−u (1 − 1/τ²)/2) = [φ(s)/N(s; μ, σ²)] · τ^n exp(−(τ² − 1) c/2).
// q > 0 everywhere, so E_q[w F] = E_p[F] for every F: E_q[w g] = SM (Lemma 1 type) and, with Y = w (h − 1)²
// (y = SM² Y), E_q[Y] = Var_p(g)/SM² = m·MSE/SM².
//
// Closed-form moments. In natural parameters λ = 1/σ², ν = μ/σ² = μλ, κ = 1/τ², the building block is
//   T(i, j) = E_q[w^j h^i] = S(i, j) · U(i, j),   J = j − 1,
//   S = ∫ φ(s)^j N(s; μ, σ²)^{1−j} h_s(s)^i ds,  h_s = (1 − 4a)^{k/2} exp(2a s² + B r s − r²/2): the exponent is the
//       quadratic −½A s² + b s + c₀ with
//         A = j − Jλ − 4ai,   b = iBr − Jν,   c₀ = Jν²/(2λ) − i r²/2,
//       so log S = −(J/2) log λ + (ik/2) log(1 − 4a) − ½ log A + b²/(2A) + c₀,   finite iff A > 0;
//   U = E_q[(τ^n e^{−(τ²−1)c/2})^j e^{2aiτ²c}], c ~ χ²_n: E[e^{tc}] = (1 − 2t)^{−n/2} (t < ½) with
//       t = 2aiτ² − j(τ² − 1)/2, 1 − 2t = τ²(j − Jκ − 4ai) =: τ² C:
//         log U = −(nJ/2) log κ − (n/2) log C,   C = j − Jκ − 4ai,   finite iff C > 0 (n = 0: U = 1).
//   (j = 1: T(0, 1) = T(1, 1) = 1, T(2, 1) = E_p[h²] above — a test.) Then
//   E_q[Y^j] = Σ_{i=0}^{2j} C(2j, i) (−1)^i T(i, j),    E_q[(w h)^j] = T(j, j).
// Where they exist (derived). E_q[Y^j] < ∞ iff every T(i, j), i = 0..2j, is: "if" since (h − 1)^{2j} ≤ 2^{2j−1}(h^{2j}
// + 1). "Only if": A and C are affine in i with slope −4a, so the smallest is i = 0 for a < 0 and i = 2j for a > 0
// (all equal for a = 0). When that term diverges it does so through |s| → ∞ (A ≤ 0) or u → ∞ (C ≤ 0; a zero
// quadratic coefficient leaves an exponential of a linear function, or a constant, which still diverges); along
// those rays h → 0 for a < 0 (so (h − 1)^{2j} → 1 and Y^j ~ w^j, the i = 0 term's integrand) and h → ∞ for a > 0
// (Y^j ~ w^j h^{2j}, the i = 2j term's); for a = 0, (h − 1)^{2j} is a fixed non-zero function of s (r > 0) that
// multiplies a divergent integral. With a⁺ = max(a, 0):
//   E_q[Y^j] < ∞  ⇔  j = 1  or  ( σ² > J/(j(1 − 8a⁺))  and  (n = 0 or τ² > J/(j(1 − 8a⁺))) ),
//   E_q[(wh)^j] < ∞ ⇔  j = 1  or  ( σ² > J/(j(1 − 4a))  and  (n = 0 or τ² > J/(j(1 − 4a))) ).
// The mean always exists; the SE needs 1/2, the skewness (the reliability gate) 2/3, the SE of the SE 3/4, each over
// (1 − 8a⁺). Plain MC (μ = 0, σ = τ = 1) has every moment for a ≤ 0 (h is bounded) and the j-th only for a < 1/(8j).
//
// Precision. The alternating sum cancels: Σ|terms| / |sum| is ~ (2/(r s))^{2j} for small r and a ≈ 0 (Y ≈ w r² s²
// while each term is O(1)) and, far from the optimum, e^{O(r²)}. Every term — its logs, its exp — and the sums are
// evaluated in boost::multiprecision cpp_bin_float with 100 decimal digits; each moment carries the bound
//   Σ_i |C(2j,i) T(i,j)| · ε (|log T(i,j)| + 16 + 2j + 1) / |sum|,   ε = 2^−333 ≈ 6e−101 (100 digits)
// (the log of a term has absolute error ≲ ε (its size + a dozen roundings of its parts), which is the relative error
// of the term; the sum adds one rounding per term), and the central moments
// carry the propagated bounds of their raw-moment differences. If a bound exceeds 1e-20 relative the moments are
// recomputed with 250 digits; beyond that std::invalid_argument (at a ≈ 0 the cancellation grows by 6 digits per
// decade of ‖z‖: the search, which stops at 100 digits, throws below ‖z‖ ≈ 1e-14, the moments below ≈ 1e-37).
// ‖z‖ = 0 with a = 0 is the exact degenerate case Y ≡ 0, handled directly. Measured: on the `mse` default grid
// (below) the cancellation consumes at most 12.8 digits (‖z‖² = 2e-4: positive, oprf, sderf; gerf's a = −1/16 keeps
// h − 1 = O(1): ≤ 2.1 digits), so
// 100 digits leave ≥ 87 and the 250-digit rerun never happens there (a test compares the two); at ‖z‖² = 2e-16
// (x = −y up to rounding) it consumes 49, at ‖z‖² = 4e-24 72 — still within 100 digits.
//
// Choice of (μ, σ, τ): minimise the relative third moment E_q[Y³]/(E_q Y)³ (importance_mse.hpp's measured reason:
// the second moment alone leaves enormous skewness), i.e. log E_q[Y³] since E_q Y does not depend on q.
// Convexity: q is an exponential family in T = (s, s², u), q = e^{⟨η, T⟩ − Ψ(η)} (× the untouched directions), with
// natural parameter η = (ν, −λ/2, −κ/2) and log-partition Ψ. With F = (h − 1)², E_q[Y³] = ∫ F³ p³ q^{−2}, so
// log E_q[Y³] = 2Ψ(η) + log ∫ F³ p³ e^{−2⟨η, T⟩}: a convex function plus a log-Laplace transform (convex), hence
// jointly convex in (ν, λ, κ) — strictly — on the convex set where it is finite. So a
// local minimum in a convex box is the global one, and Newton's method with a line search converges from anywhere.
// Search box (the 4th moment exists, with the margin 0.81/0.75 of importance_mse.hpp's σ ≥ 0.9): σ, τ ∈ [0.9, 3] ×
// 1/√(1 − 8a⁺) (one interval in λ, κ each), ν free (the objective is coercive in ν). Procedure: a coarse scan of
// μ ∈ {0, ¼, …, 5/4} × 2Br/(1 − 8a) (the mode of φ h² along ẑ) at σ = τ = 1.3/√(1 − 8a⁺) for the start, then
// projected Newton in (ν, λ, κ) (a box bound is active when the gradient points out of the box; Armijo backtracking)
// with the exact gradient and Hessian of the closed form. Each evaluation tries double precision first (terms in logs,
// max-shifted) with the rounding bound above at ε = 2^-53; above 1e-11 relative (small r) it is redone with 50 digits,
// then 100. Nested Brent as in importance_mse.cpp would need thousands of evaluations in 3-D, at 50 digits (~0.15 ms
// each) where r is small. Measured search time on the `mse` grid: mean 0.05–1.6 ms per point, max 13 ms (small ‖z‖,
// all evaluations in 50 digits; 2 shared cores); with the three moment evaluations a point's setup is ≤ 25 ms.
// Measured on the `mse` default grid (d = m = 16, |x|, |y| ∈ {0.1, 0.5, 1, 1.5}, 13 cosines: 208 points; gerf at its
// default a = −1/16; relative variance Var_q(Y)/(E_q Y)², skewness γ of Y; "reliable" = the gate of stats/edgeworth.hpp
// at 1e5 trials, α = 1e-3 split over the 208 points, i.e. |γ| ≤ 9.28):
//   positive  μ ∈ [0.03, 5.87], σ ∈ [1.47, 1.73], τ ≡ 1       rel. var 0.19–0.45, |γ| ≤ 0.29   plain ≤ 4.3e15
//   gerf      μ ∈ [0, 4.29],    σ ∈ [0.94, 1.38], τ ∈ [0.90, 0.94]  0.69–1.97, |γ| ≤ 2.8   plain ≤ 8.4e6
//   oprf      μ ∈ [0.03, 3.00], σ ∈ [1.10, 1.73], τ ∈ [0.90, 1.00]  0.45–13.4, |γ| ≤ 11.1  plain ≤ 1.8e4
//   sderf     μ ∈ [−0.30, 0.74], σ ∈ [0.94, 1.73], τ ≡ 1       0.45–1.43, |γ| ≤ 1.4    plain ≤ 2.8
// (positive, oprf, sderf: 4 of the points are x = −y, where Y ≡ 0.) Reliable at 1e5 trials: all points of positive,
// gerf and sderf; oprf all but the 3 heaviest (‖z‖² ≥ 8.55, |γ| = 10.1–11.1, which need 1.2e5–1.4e5), all at 1e6.
// The τ bound binds (τ = 0.9) at 93 gerf and 82 oprf points — from ‖z‖² ≈ 2 on — and that is where the limits of
// this proposal show: Y is large where u is small (h ∝ e^{2au}, a < 0) but also ≈ w where h ≈ 0, so the moments of
// the weights themselves hold τ² ≥ 0.81 (the box; > 2/3 for the third moment) while the h² part of Y wants
// τ² = 1/(1 − 8a) (0.39 for oprf at ‖z‖² = 9), a mismatch that compounds over the d − 1 directions: oprf reaches
// relative variance 13 / 96 / 651 and γ = 11 / 40 / 129 at ‖z‖² = 9 / 16 / 25 (gerf: 0.69 / 0.67 / 0.66; sderf, which
// needs no τ: 1.4 / 2.1 / 2.9) — still 1e3–5e3 × below plain MC's relative variance at those points. (A radial law
// with a free shape, u ~ Gamma(α, θ) with a uniform direction, keeps closed forms — Γ functions instead of the χ²
// power — and could fit both parts: on the h² term's u-factor of the relative second moment at oprf ‖z‖² = 9 it
// would give ~1.3 against 10.4 for τ = 0.9. Not implemented.)
// sderf fitted to a pair is light-tailed (plain relative variance ≤ 6 up to ‖z‖² = 25): IS gains little there and is
// not needed.
//
// The Monte Carlo: trial t draws from PhiloxStream(seed, stream, t) through run_parallel_trials (bit-identical for any
// thread count and MPI rank count): ξ (d normals), then s (one normal); it builds ω, evaluates the family's own code
// path with W = ωᵀ, m = 1 (estimate_kernel: positive_features; gerf: gerf_prepare + shifted_positive_features;
// oprf_pair_estimates; sderf_pair_estimates), and records a/SM = w g/SM and Y = w (g/SM − 1)². Reported as in
// importance_mse.hpp: E[estimate] = SM·mean(a/SM), MSE = SM²·mean(Y)/m with their standard errors.
#include <cstdint>

#include "features/estimator.hpp"
#include "features/shifted_projection.hpp"
#include "kernels/geometry.hpp"
#include "mc/importance_mse.hpp"
#include "mc/parallel_trials.hpp"

namespace favorlab {

// positive, gerf, oprf, sderf: the families with pair_gerf (isotropic gerf at a pair) and a closed-form iid_mse.
bool has_gerf_importance(Estimator e);

// The (a, k) of the family at this pair: family_info(e).pair_gerf(‖z‖², d, params). Throws std::invalid_argument for
// another estimator, d < 1, an invalid geometry, or (gerf) params.gerf_a not finite or ≥ 1/8.
PairGerf gerf_importance_pair(Estimator e, const Geometry& g, int d, const FeatureParameters& params = {});

// s ~ N(mean, sd²) along ẑ; the n = k − 1 directions where A acts ~ N(0, perp_sd²) (perp_sd is ignored when n = 0).
struct GerfProposal {
  double mean = 0;
  double sd = 1;
  double perp_sd = 1;
};

// The proposal minimising E_q[Y³]/(E_q Y)³ in the box of the header comment; {0, 1, 1} where Y ≡ 0 (a = 0, r = 0).
// perp_sd = 1 whenever it is not free (n = 0 or a = 0). Throws as gerf_importance_pair.
GerfProposal optimal_gerf_proposal(Estimator e, const Geometry& g, int d, const FeatureParameters& params = {});

// How the closed-form moments were computed: decimal digits used (100 or 250) and the most digits the alternating
// sums' cancellation consumed (log10 of Σ|terms|/|sum|, over the moments computed).
struct GerfMomentPrecision {
  int digits = 0;
  double cancellation_digits = 0;
};

// Exact (closed-form, multiprecision) moments under q of Y = w (h − 1)² (so mean = Var_p(g)/SM² = iid_mse·m/SM² for
// every q) and of w h (mean 1). WeightedMoments as in importance_mse.hpp: raw moments +inf where they do not exist
// (conditions above) or overflow double; finite = the first three exist. extended = true forces 250 digits.
// Throws std::invalid_argument as gerf_importance_pair, for a proposal with a non-finite mean or sd, perp_sd outside
// (0, 1e3], or when even 250 digits cannot resolve the cancellation.
WeightedMoments gerf_weighted_squared_error_moments(Estimator e, const Geometry& g, int d,
                                                    const FeatureParameters& params, const GerfProposal& q,
                                                    GerfMomentPrecision* precision = nullptr, bool extended = false);
WeightedMoments gerf_weighted_estimate_moments(Estimator e, const Geometry& g, int d, const FeatureParameters& params,
                                               const GerfProposal& q, GerfMomentPrecision* precision = nullptr,
                                               bool extended = false);

// ImportanceSampledMse (importance_mse.hpp) with proposal = {mean, sd, symmetric = false}, plus what it cannot hold.
struct GerfImportanceSampledMse : ImportanceSampledMse {
  GerfProposal gerf_proposal;  // including perp_sd
  PairGerf pair;               // the (a, k) the family uses at this pair
};

// Runs `trials` importance-sampled trials at g in dimension d with the optimal proposal. Throws std::invalid_argument
// for an estimator without gerf importance sampling, d < 1, m < 1, trials < 2, threads < 1, an invalid geometry,
// gerf's a not finite or ≥ 1/8, an SM = exp(xᵀy) that overflows or underflows double precision, or an MSE that
// overflows it. Where Y ≡ 0 (a = 0 at z = 0) the MSE is 0 up to rounding.
GerfImportanceSampledMse importance_sampled_gerf_mse(Estimator e, const Geometry& g, int d, int m, std::int64_t trials,
                                                     std::uint64_t seed, std::uint64_t stream, int threads,
                                                     const FeatureParameters& params = {},
                                                     const ProgressFn& progress = {});

}  // namespace favorlab
