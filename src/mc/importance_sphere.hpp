#pragma once
// The one-row proposal for rows of norm √d (the regularized estimator of SMREG, "smreg"): such a row is √d u with u
// uniform on the sphere, and the estimator sees it only through t = uᵀẑ ∈ [−1, 1] (density ∝ (1 − t²)^{(d−3)/2}).
// The proposal is a defensive mixture: with probability β the plain law, else t tilted by e^{κt} (the von
// Mises–Fisher law of u about ẑ). Its density over the plain law, β + (1 − β) e^{κt}/M_d(κ) with M_d the sphere's MGF,
// is in closed form and at least β; M_d(κ) is taken from the moment series (log_sphere_mgf_series), not the Bessel
// form, so that a weighted mean judged against the Bessel form does not assume it. One row's estimate over SMREG is
// h(t) = e^{at}/M_d(a), a = √d‖x + y‖, bounded, so every weighted moment exists. (β, κ) minimise the relative third
// moment of the weighted squared error, as for chi-norm rows (mc/importance_mse.hpp); the moments are one-dimensional
// integrals over the angle. With β = 0 and κ = a (mean_tuned_sphere_tilt) every weighted estimate is Λ M_d(a), the
// zero-variance proposal of Lemma 1 for these rows. Derivation: docs/theory.md#importance-sampling-for-rows-of-norm-d
#include "kernels/geometry.hpp"
#include "mc/importance_mse.hpp"
#include "rng/philox_stream.hpp"

namespace favorlab {

struct SphereTilt {
  double kappa = 0;        // the tilted component's concentration
  double plain_share = 0;  // β ∈ [0, 1): the plain law's share
};

// log of the proposal's density of t over the uniform sphere's: log(β + (1 − β) e^{κt}/M_d(κ)). Throws
// std::invalid_argument for d < 2, κ < 0, β outside [0, 1) or t outside [−1, 1].
double sphere_tilt_log_ratio(int d, const SphereTilt& q, double t);

// The same with log M_d(κ) computed once (the samplers evaluate it for every row of every trial); t is not checked.
class SphereTiltRatio {
 public:
  SphereTiltRatio(int d, const SphereTilt& q);  // throws as sphere_tilt_log_ratio
  double log_ratio(double t) const;

 private:
  SphereTilt q_;
  double log_m_;
};

// One t from the proposal (the tilted component by Wood's rejection sampler, Beta((d−1)/2, (d−1)/2) from two chi
// variates), consuming a trial-dependent but seed-determined number of draws from rng. Throws as above.
double draw_sphere_tilt(int d, const SphereTilt& q, PhiloxStream& rng);

// Exact (quadrature) moments under q of one row's weighted squared error w (h − 1)² and weighted estimate w h, both
// relative to SMREG (means e^{L(2a) − 2L(a)} − 1 and 1 for every q, L = log M_d). Throws std::invalid_argument for
// an invalid d or q, an invalid geometry, or moments beyond double precision.
WeightedMoments sphere_squared_error_moments(const Geometry& g, int d, const SphereTilt& q);
WeightedMoments sphere_estimate_moments(const Geometry& g, int d, const SphereTilt& q);

// The proposal minimising the relative third moment of the weighted squared error over β ∈ {0.2, 0.3, 0.5} and κ in
// [0, 4a] (the plain law at z = 0, where h ≡ 1). Throws as sphere_squared_error_moments.
SphereTilt optimal_sphere_tilt(const Geometry& g, int d);

// The tilt under which one row's weighted estimate, and so the weighted mean of m rows (a mixture over the rows), is
// Λ M_d(a) on every draw: κ = a = √d‖z‖, no plain share. Throws std::invalid_argument for an invalid d or geometry.
SphereTilt mean_tuned_sphere_tilt(const Geometry& g, int d);

}  // namespace favorlab
