#pragma once
// The a-priori moments of one chi-norm row's weighted estimate under a defensive proposal: with probability β the row
// is plain (s = ωᵀẑ ~ φ), else s ~ q₁, so the proposal's density over the plain law is β + (1 − β) ρ(s), ρ = q₁/φ,
// and the weighted estimate is f(s) = h(s) / (β + (1 − β) ρ(s)), h = g/SM. With ρ = h (the zero-variance q₁ of
// mean_tuned_proposal) f = h/(β + (1 − β) h) lies in [0, 1/(1 − β)): every moment exists, and the draws still matter.
// docs/theory.md#lemma-1-by-a-defensive-proposal
#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/importance_mse.hpp"

namespace favorlab {

// E_q[f^k] = E_φ[h^k (β + (1 − β) ρ)^{1−k}], k = 1..3, by adaptive Gauss–Kronrod quadrature over s; the variance and
// third central moment are integrated about the computed mean directly (no differences of raw moments). Throws
// std::invalid_argument for an estimator other than positive or hyperbolic, β outside [0, 1), an invalid geometry or
// proposal (check_importance_proposal).
WeightedMoments defensive_estimate_moments(Family e, const Geometry& g, const ImportanceProposal& q, double beta);

}  // namespace favorlab
