#pragma once
// SMREG(x, y) = Λ · E_{ω ~ Unif(√d S^{d−1})}[exp(ωᵀz)] (Theorem 1), two independent ways:
//   exact:  via the sphere's moment generating function, Γ(d/2)(t/2)^{1−d/2} I_{d/2−1}(t) with t = √d ‖z‖
//   series: SMREG/SM = e^{−w} Σ_k w^k/k! · f(k, d), w = ‖z‖²/2, f(k, d) = d^k / (d(d+2)⋯(d+2k−2))   (eq. 29–30)
// Both are computed in logs, so they stay finite long after SM itself overflows.
#include "kernels/geometry.hpp"

namespace favorlab {

// log E_{u ~ Unif(S^{d−1})}[exp(t u₁)], t ≥ 0, by the modified Bessel function I_{d/2−1}.
double log_sphere_mgf(int d, double t);

// The same from the moments of u₁ alone (Lemma 3): Σ_k (t²/2)^k / (k! d(d+2)⋯(d+2k−2)), the series of eq. 30 without
// its factor e^{−w}. No Bessel function enters, so a computation normalised by it can judge the Bessel form.
// Throws std::invalid_argument for d ≤ 0 or t < 0.
double log_sphere_mgf_series(int d, double t);

double log_smreg_exact(const Geometry& g, int d);
double smreg_exact(const Geometry& g, int d);

// log(SMREG/SM) from the Poisson-weighted series (eq. 30).
double log_smreg_ratio_series(const Geometry& g, int d);
double smreg_series(const Geometry& g, int d);

}  // namespace favorlab
