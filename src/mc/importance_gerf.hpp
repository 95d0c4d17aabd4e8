#pragma once
// Importance sampling (IS) of the one-feature variance (Lemma 2's analogue) for positive, gerf, oprf and sderf, each
// an isotropic gerf (a, k) at the pair: s = ωᵀẑ ~ N(μ, σ²), the k − 1 directions across ẑ where A acts ~ N(0, τ²I),
// with (μ, σ, τ) minimising the closed-form relative third moment of Y = w (g/SM − 1)². Trial t draws from
// PhiloxStream(seed, stream, t) (bit-identical for any thread and rank count) and runs the family's own feature code
// with W = ωᵀ, m = 1. Reported: E[estimate] = SM·mean(a/SM), MSE = SM²·mean(Y)/m, with standard errors.
// Derivation (proposal, moments and where they exist, precision, search, measurements):
// docs/theory.md#importance-sampling-for-the-gerf-families
#include <cstdint>

#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "kernels/pair_gerf.hpp"
#include "mc/importance_mse.hpp"
#include "mc/parallel_trials.hpp"

namespace favorlab {

// positive, gerf, oprf, sderf: the families with pair_gerf (isotropic gerf at a pair) and a closed-form iid_mse.
bool has_gerf_importance(Family e);

// The (a, k) of the family at this pair: family_info(e).pair_gerf(‖z‖², d, params). Throws std::invalid_argument for
// another estimator, d < 1, an invalid geometry, or (gerf) params.gerf_a not finite or ≥ 1/8.
PairGerf gerf_importance_pair(Family e, const Geometry& g, int d, const FeatureParameters& params = {});

// s ~ N(mean, sd²) along ẑ; the n = k − 1 directions where A acts ~ N(0, perp_sd²) (perp_sd is ignored when n = 0).
struct GerfProposal {
  double mean = 0;
  double sd = 1;
  double perp_sd = 1;
};

// The proposal minimising E_q[Y³]/(E_q Y)³ in the search box of
// docs/theory.md#importance-sampling-for-the-gerf-families; {0, 1, 1} where Y ≡ 0 (a = 0, r = 0). perp_sd = 1 whenever
// it is not free (n = 0 or a = 0). Throws as gerf_importance_pair.
GerfProposal optimal_gerf_proposal(Family e, const Geometry& g, int d, const FeatureParameters& params = {});

// How the closed-form moments were computed: decimal digits used (100 or 250) and the most digits the alternating
// sums' cancellation consumed (log10 of Σ|terms|/|sum|, over the moments computed).
struct GerfMomentPrecision {
  int digits = 0;
  double cancellation_digits = 0;
};

// Exact (closed-form, multiprecision) moments under q of Y = w (h − 1)² (so mean = Var_p(g)/SM² = iid_mse·m/SM² for
// every q) and of w h (mean 1). WeightedMoments as in importance_mse.hpp: raw moments +inf where they do not exist
// (conditions: docs/theory.md#importance-sampling-for-the-gerf-families) or overflow double; finite = the first three
// exist. extended = true forces 250 digits.
// Throws std::invalid_argument as gerf_importance_pair, for a proposal with a non-finite mean or sd, perp_sd outside
// (0, 1e3], or when even 250 digits cannot resolve the cancellation.
WeightedMoments gerf_weighted_squared_error_moments(Family e, const Geometry& g, int d,
                                                    const FeatureParameters& params, const GerfProposal& q,
                                                    GerfMomentPrecision* precision = nullptr, bool extended = false);
WeightedMoments gerf_weighted_estimate_moments(Family e, const Geometry& g, int d, const FeatureParameters& params,
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
GerfImportanceSampledMse importance_sampled_gerf_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                                     std::uint64_t seed, std::uint64_t stream, int threads,
                                                     const FeatureParameters& params = {},
                                                     const ProgressFn& progress = {});

// Lemma 1's proposal (as mean_tuned_proposal in importance_mse.hpp): the product of one row's features is
// ∝ exp(2A‖ω‖² + √(1 − 4A) ωᵀz) in the k dimensions A acts in, so N(z/√(1 − 4A), I/(1 − 4A)) there makes the
// weighted estimate the constant 1: mean ‖z‖/√(1 − 4A), sd and perp_sd 1/√(1 − 4A) (perp_sd 1 where n = 0).
// Throws as gerf_importance_pair.
GerfProposal mean_tuned_gerf_proposal(Family e, const Geometry& g, int d, const FeatureParameters& params = {});

// The same trials under a given proposal (mean_tuned_gerf_proposal for Lemma 1); the a-priori figures are those of q.
// Throws as above, and as gerf_weighted_estimate_moments for the proposal.
GerfImportanceSampledMse importance_sampled_gerf_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                                     std::uint64_t seed, std::uint64_t stream, int threads,
                                                     const FeatureParameters& params, const GerfProposal& proposal,
                                                     const ProgressFn& progress = {});

}  // namespace favorlab
