#pragma once
// Moments of the chi distribution and the ratio τ of Lemma 6 (Performers paper, proof of Theorem 2, eq. 63–67).
//   μ_d(j) = E‖g‖^j = 2^{j/2} Γ((d+j)/2) / Γ(d/2),   g ~ N(0, I_d), j > −d   (μ_d(0) = 1, μ_d(j+2) = (d+j) μ_d(j))
//   τ_d(d_1, …, d_m) = Π_i μ_d(d_i) / μ_d(Σ_i d_i)
// Lemma 6 claims τ ≤ d/(d+2) when all d_i are even and at least two are non-zero. Zero parts contribute μ(0) = 1, and
// τ is symmetric in its arguments, so τ depends only on the multiset of non-zero parts.
// For even arguments μ_d(2a) = d (d+2) ⋯ (d+2a−2) is an integer, so τ is a ratio of integers and can be compared with
// d/(d+2) exactly (exact_tau_vs_lemma6_bound).
// Preconditions: d ≥ 1, every j ≥ 0; otherwise std::invalid_argument.
#include <vector>

namespace favorlab {

double log_chi_moment(int d, double j);
double chi_moment(int d, double j);

// log E[e^{t r}], r ~ chi_d, t ≥ 0: the series Σ_j t^j μ_d(j)/j!, summed in logs (every term positive) until the
// terms past its peak fall below 1e-17 of the sum. What bounds positive features on rows of chi_d norm whatever their
// directions (Λ e^{ωᵀz} ≤ Λ e^{r‖z‖}): experiments/estimator_grid.hpp add_compare_fields.
double log_chi_mgf(int d, double t);

double log_tau(int d, const std::vector<int>& parts);
double tau(int d, const std::vector<int>& parts);

// The Lemma 6 bound d/(d+2).
double lemma6_bound(int d);

// Sign of τ_d(parts) − d/(d+2), exact (big-integer arithmetic): −1 below, 0 equal, +1 above. Parts must be even.
int exact_tau_vs_lemma6_bound(int d, const std::vector<int>& parts);

}  // namespace favorlab
