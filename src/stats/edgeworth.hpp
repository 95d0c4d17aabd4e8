#pragma once
// When is a Monte Carlo z test of a mean trustworthy?
// For the studentized mean T of n draws with skewness γ, the one-term Edgeworth expansion (Hall, "The Bootstrap and
// Edgeworth Expansion", 1992, §2.6) gives P(T ≤ −z) = Φ(−z) + γ (2z² + 1) φ(z) / (6√n) + O(1/n): skewed draws move
// probability into one tail. favorlab calls a test conclusive when that shift is at most the tail's nominal share
// α/2, so to first order the heavier tail's rate is at most twice its share. Measured at the gate's smallest n on
// exponential draws (γ = 2; tests/stats/test_stats.cpp): 2.5× the share at α = 1e-2 (n = 190) and 2.6× at α = 1e-3
// (n = 721), the O(1/n) term adding to the first; the two-sided rate is about 1.45× α. It falls towards the share as
// n grows past the gate. Heavy tails (the lognormal-like
// errors of the exponential estimators) have enormous γ and fail this, honestly, instead of passing by luck.
#include <cstdint>
#include <limits>

namespace favorlab {

// γ (2z² + 1) φ(z) / (6√n) for |γ|.
double edgeworth_tail_shift(double skewness, double z, std::int64_t trials);

// A trial count that no run can reach: what the trial estimates below return when no finite count would do.
inline constexpr std::int64_t kTrialsOutOfReach = std::numeric_limits<std::int64_t>::max();

// Smallest n with edgeworth_tail_shift(γ, z, n) ≤ α/2 (saturates at kTrialsOutOfReach).
std::int64_t trials_for_reliable_z_test(double skewness, double z, double alpha);

}  // namespace favorlab
