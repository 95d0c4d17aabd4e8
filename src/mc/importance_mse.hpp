#pragma once
// Importance sampling (IS) of Lemma 1 and Lemma 2 for the positive and hyperbolic estimators: a light-tailed second
// route to the closed forms, beside the plain Monte Carlo of the `mse` experiment, whose squared errors are so heavy
// tailed that most grid points are out of reach of a z test there (MATH.md, "Heavy tails").
//
// Notation (MATH.md): z = x + y, r = ‖z‖, ẑ = z/r, Λ = exp(−(‖x‖² + ‖y‖²)/2), SM = exp(xᵀy) = Λ e^{r²/2},
// p = N(0, I_d), φ the standard normal density. One iid feature (m = 1) gives the estimate
//   positive    g(ω) = Λ exp(ωᵀz),     hyperbolic  g(ω) = Λ cosh(ωᵀz),      E_p[g] = SM        (Lemma 1)
// and the m-feature estimator is the mean of m iid copies, so its MSE is exactly Var_p(g)/m (Lemma 2):
//   MSE⁺ = SM² (e^{r²} − 1)/m,   MSE^hyp = ½ (1 − e^{−r²}) MSE⁺   ( = SM² · 2 sinh²(r²/2)/m ).
// g depends on ω only through s = ωᵀẑ ~ N(0, 1): with h(s) = g/SM,
//   positive    h(s) = exp(r s − r²/2),   hyperbolic  h(s) = cosh(r s) e^{−r²/2}.
//
// The proposal. Write ω = s ẑ + ω_⊥ (ω_⊥ in the complement of ẑ) and draw s ~ q, ω_⊥ ~ N(0, I) in the complement —
// implemented as ω = s ẑ + (I − ẑẑᵀ)ξ, ξ ~ N(0, I_d), whose second part is exactly N(0, I) in the complement and
// independent of s. Under p the same split has s ~ φ independent of ω_⊥, so the likelihood ratio of the whole vector
// is w(s) = φ(s)/q(s): the ω_⊥ densities cancel.
//   Unbiased: for any f, E_q[w f] = ∫ f (p/q) q = E_p[f] wherever q > 0 where p f ≠ 0 — q is positive on all of R.
//   With f = g:            a = w g,           E_q[a] = SM                         (Lemma 1, importance sampled)
//   with f = (g − SM)²:    y = w (g − SM)²,   E_q[y] = Var_p(g) = m · MSE         (Lemma 2, importance sampled)
//   Only along ẑ: a proposal that also changed the law of ω_⊥ to some q⊥ (given s) multiplies the integrand of every
//   moment E_q[y^k] = ∫ F(s)^k φ(s)^k q(s)^{1−k} · [∫ φ⊥^k q⊥^{1−k} dω_⊥] ds, pointwise in s, by the bracket, which
//   is ≥ 1 for k ≥ 2 (Jensen, then Cauchy–Schwarz: E_φ⊥[(φ⊥/q⊥)^{k−1}] ≥ (∫ φ⊥²/q⊥)^{k−1} ≥ 1, equality iff
//   q⊥ = φ⊥): the integrand does not depend on ω_⊥, so tilting it only adds weight variance.
//   Symmetric mixture for hyperbolic: q = ½N(μ, σ²) + ½N(−μ, σ²) (sample N(μ, σ²), flip the sign with probability ½;
//   log q = log N(μ, σ²)(s) + log((1 + e^{−2μs/σ²})/2)). The hyperbolic integrand is even in s, with its mass near
//   both s ≈ ±2r (±O(1) for small r). For an even F and any q, the symmetrised q̄(s) = (q(s) + q(−s))/2 has
//   E_q̄[y^k] ≤ E_q[y^k] for k ≥ 2, because t ↦ t^{1−k} is convex: q̄^{1−k} ≤ (q(s)^{1−k} + q(−s)^{1−k})/2, and the
//   two halves integrate to the same value.
//   One Gaussian at +μ leaves the mirror mode at −μ with weights ~exp(2μ|s|/σ²).
//   The positive integrand is not even (its mass sits at s ≈ 2r): one Gaussian N(μ, σ²).
//
// Where moments exist (derived, both estimators, both proposal kinds). E_q[y^k] = SM^{2k} ∫ (h − 1)^{2k} φ^k q^{1−k}
// and E_q[a^k] = SM^k ∫ h^k φ^k q^{1−k}. For q = N(μ, σ²):
//   φ^k q^{1−k} = σ^{k−1}(2π)^{−1/2} exp(−A_k s²/2 − (k−1)μ s/σ² + (k−1)μ²/(2σ²)),   A_k = k − (k−1)/σ².
// (h − 1)^{2k} and h^k grow at most like e^{2kr|s|} (linear exponents), so A_k > 0 makes the integral finite. At
// A_k = 0 the weight is e^{−(k−1)μs/σ²} up to a constant, and the integrands behave like
//   y:  e^{−(k−1)μs/σ²} as s → −∞ (h → 0 for positive),  e^{(2kr − (k−1)μ/σ²)s} as s → +∞;
//   a:  e^{(kr − (k−1)μ/σ²)s} (positive; hyperbolic grows at both ends);
// one end always has a non-negative exponent (μ ≥ 0: the left end of y; μ < 0: its right end; a: the end matching
// the sign of the coefficient), so the integral diverges; A_k < 0 adds a growing Gaussian factor. (Hyperbolic: h ≥
// e^{r|s| − r²/2}/2 at both ends, so the same holds.) Hence, for any μ and any r > 0,
//   E_q[y^k] < ∞  ⇔  E_q[a^k] < ∞  ⇔  k = 1  or  σ² > (k − 1)/k.
// The mixture obeys the same condition: ½N(μ, σ²) ≤ q ≤ ½N(μ, σ²) + ½N(−μ, σ²) and one component dominates each
// tail. So: the mean always exists; the variance (the SE) needs σ² > 1/2; the skewness — which the project's
// reliability gate needs (stats/edgeworth.hpp) — σ² > 2/3 (σ > 0.8165); the variance of the sample variance (the SE
// of the SE) σ² > 3/4 (σ > 0.866). The search below keeps σ ∈ [0.9, 3], where the moments up to the 4th exist.
//
// Choice of (μ, σ): y's moments up to the 3rd are 1-D integrals, computed a priori (before any sampling) by adaptive
// Gauss–Kronrod (Boost.Math) over the region that carries the mass, in logs with the largest log integrand factored
// out (so r up to ~6 neither underflows Λ nor overflows e^{r²}; everything is relative to SM). The raw moments have
// positive integrands (no cancellation); the central moments of Y = y/E_q[y] are integrated directly as ∫(Y−1)^j q
// (j = 2, 3; the third split at the sign changes of Y − 1), not by differences of raw moments.
// The default criterion minimises the relative THIRD moment E_q[y³]/(E_q y)³ over μ ∈ [0, 3r + 3], σ ∈ [0.9, 3]
// (nested Brent, after a coarse scan). Measured reason (positive estimator, r = ‖z‖): minimising the relative SECOND
// moment, as one would for the SE alone, leaves a left tail of enormous weights (s ≪ 0, where g ≈ 0 and y ≈ w·SM²):
//   r = 2: Var(y)/(Ey)² 0.22, skewness 5.5;  r = 3: 0.13, 3.7e3;  r = 4: 0.10, 1.6e8
// so the z interval is unreliable at any feasible trial count (γ = 1.6e8 needs ~5e18 trials at α = 1e-3);
// minimising the third moment costs a little variance and bounds the skewness:
//   r = 2: 0.25, −0.20;  r = 3: 0.19, −0.29;  r = 4: 0.18, −0.50;  r = 6: 0.17, −0.67
// (hyperbolic, r = 0.3–6: relative variance 0.04–0.34, |γ| < 0.9; plain MC at r = 3: relative variance 4.3e15,
// skewness 2.8e23). By Cauchy–Schwarz (E Y² = E[Y^{1/2} Y^{3/2}]), E Y³ ≥ (E Y²)² for Y = y/E y ≥ 0, so a small third
// moment bounds the variance too. μ reaches beyond 3r because the hyperbolic optimum stays near μ ≈ 1.9 as r → 0.
// The measured optima have σ ∈ [1.1, 1.75] for r ∈ [0.3, 6]: the bounds [0.9, 3] never bind.
// Measured on the `mse` default grid (208 points, d = m = 16, α = 1e-3 Bonferroni, ±2 % equivalence margin): with 1e5
// trials every point is reliable and holds for both estimators (worst relative variance 0.45, worst |γ| 0.53), where
// plain MC passes the skewness gate at 66 (positive) / 61 (hyperbolic) points with 1e5 trials, 71 / 71 with 1e6.
// The z scores are calibrated: over 300 seeds of 3000 trials at ‖z‖² = 16 and 0.19, mean ≈ 0, sd 0.98–1.03.
//
// The Monte Carlo: trial t draws from PhiloxStream(seed, stream, t) (results do not depend on the thread count):
// ξ (d normals), then s (one normal, then one uniform for the sign flip of a symmetric proposal); it evaluates the
// project's feature maps (positive_features / hyperbolic_features, m = 1, W = ωᵀ) on x and y, so the implementation
// of the features is what is tested, and records a/SM and y/SM². Reported: E[estimate] = SM·mean(a/SM) and
// MSE = SM²·mean(y/SM²)/m with the sample standard errors of those means.
#include <cstdint>

#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

// The law of s = ωᵀẑ under the proposal: N(mean, sd²), or ½N(mean, sd²) + ½N(−mean, sd²) when symmetric.
struct ImportanceProposal {
  double mean = 0;
  double sd = 1;
  bool symmetric = false;
};

// What optimal_importance_proposal minimises: E_q[y^k]/(E_q y)^k for k = 2 or 3 (see the header comment for why 3).
enum class ProposalCriterion { relative_second_moment, relative_third_moment };

// The proposal minimising the criterion for the weighted squared error y (positive: one Gaussian; hyperbolic: the
// symmetric mixture); at r = 0 (g ≡ SM) the plain law {0, 1}. Throws std::invalid_argument for an estimator other
// than positive or hyperbolic, or an invalid geometry.
ImportanceProposal optimal_importance_proposal(Estimator e, const Geometry& g,
                                               ProposalCriterion criterion = ProposalCriterion::relative_third_moment);

// Exact (quadrature) moments of one trial's weighted value under q.
struct WeightedMoments {
  double mean = 0, second = 0, third = 0;  // raw moments E_q[v^k], k = 1..3 (+inf where they do not exist, or overflow)
  double relative_variance = 0;            // Var_q(v)/(E_q v)², computed directly (no cancellation)
  double skewness = 0;                     // E_q[(v − E v)³]/Var^{3/2}; +inf where the third moment does not exist
  bool finite = true;                      // all three moments exist (σ² > 2/3); overflowed values still exist
  bool degenerate = false;                 // v is constant (r = 0, or a zero-variance proposal): skewness 0
};

// Moments of y/SM² = w (h − 1)² under q (so mean = e^{r²} − 1 for positive, 2 sinh²(r²/2) for hyperbolic, for every
// q) and of a/SM = w h (mean = 1). Throws std::invalid_argument for another estimator, an invalid geometry, a proposal
// with |mean| > 1000 or sd outside (0, 100], or an sd so close to √((k−1)/k) (k = 2, 3) that the moment's quadrature
// would need more than 4e6 grid points.
WeightedMoments weighted_squared_error_moments(Estimator e, const Geometry& g, const ImportanceProposal& q);
WeightedMoments weighted_estimate_moments(Estimator e, const Geometry& g, const ImportanceProposal& q);

struct ImportanceSampledMse {
  ImportanceProposal proposal;
  double estimate_mean = 0, estimate_stderr = 0;   // of E[g] (compare with SM)
  double mse = 0, mse_stderr = 0;                  // of the MSE with m features (compare with Lemma 2)
  double estimate_skewness = 0, mse_skewness = 0;  // a priori, of one trial's weighted value (a, y)
  double plain_relative_variance = 0;              // Var_p((g−SM)²)/(Var_p g)², one plain feature (may be +inf)
  double relative_variance = 0;                    // Var_q(y)/(E_q y)² of the proposal used (a priori)
  std::int64_t trials = 0, nonfinite = 0;          // trials with finite a and y (used), trials with a non-finite one
};

// The importance-sampled trials of one point, accumulated (here and in mc/importance_gerf.hpp): each trial gives the
// weight w of its draw and h = g/SM; a = w h and y/SM² = w (h − 1)² are kept where both are finite.
// Trivially copyable, so MPI ranks exchange its trial blocks as they are (mc/block_codec.hpp).
struct ImportanceTrials {
  RunningMoments estimate;  // a/SM = w h
  RunningMoments squared;   // y/SM² = w (h − 1)²
  std::int64_t nonfinite = 0;
  void add(double weight, double ratio);
  void merge(const ImportanceTrials& other);
  // The counts, E[estimate] and the MSE with m features (and their standard errors) into `out`, for SM = sm.
  void report(double sm, int m, ImportanceSampledMse& out) const;
};

// The a-priori figures of a run into `out` from the moments of the weighted squared error under the proposal used, of
// the weighted estimate, and of the plain squared error (the proposal N(0, 1)); throws std::invalid_argument when
// the MSE at g (SM = sm) overflows double precision.
void set_a_priori_moments(ImportanceSampledMse& out, const WeightedMoments& squared_error,
                          const WeightedMoments& estimate, const WeightedMoments& plain, double sm, const Geometry& g);

// Runs `trials` importance-sampled trials at g in dimension d with the optimal proposal (third-moment criterion).
// Throws std::invalid_argument for an estimator other than positive or hyperbolic, d < 1, m < 1, trials < 2,
// threads < 1, an invalid geometry, an SM = exp(xᵀy) that overflows or underflows double precision, or an MSE that
// overflows it. At z = 0 (g ≡ SM) the MSE is 0 up to rounding.
ImportanceSampledMse importance_sampled_mse(Estimator e, const Geometry& g, int d, int m, std::int64_t trials,
                                            std::uint64_t seed, std::uint64_t stream, int threads,
                                            const ProgressFn& progress = {});

}  // namespace favorlab
