#pragma once
// Moments of one coordinate of a uniform direction: u₁ = ωᵀe₁/‖ω‖, ω ~ N(0, I_d) (equivalently u uniform on S^{d−1}).
// Lemma 3 / eq. 22 of the Performers paper:
//   A(2k, d) = E[u₁^{2k}] = (2k−1)!! / (d (d+2) ⋯ (d+2k−2)),   A(0, d) = 1,   odd moments 0 (u₁ is symmetric).
// Equivalently A(2k, d) = Γ(k+½) Γ(d/2) / (Γ(½) Γ(d/2+k)), the k-th moment of u₁² ~ Beta(½, (d−1)/2).
// Preconditions: d ≥ 1, power ≥ 0; otherwise std::invalid_argument.
namespace favorlab {

// log A(2k, d) by log-gamma: finite for any k and d (the moment itself underflows once k log d is large).
double log_sphere_moment_even(int k, int d);

// E[u₁^power]: 0 for odd powers, A(power, d) for even ones.
double sphere_moment(int power, int d);

// Skewness of the single draw X = u₁^power (what a Monte Carlo mean of u₁^power averages), exact:
//   even power n: E X = A(n), E X² = A(2n), E X³ = A(3n), so γ = (r₃ − 3 r₂ + 2)/(r₂ − 1)^{3/2}, r_j = A(jn)/A(n)^j;
//   odd power: X is symmetric, γ = 0.
// Defined where X is not constant (d ≥ 2 or odd power with d ≥ 2); d = 1 gives u₁ = ±1 and X² ≡ 1 → γ = 0.
double sphere_power_skewness(int power, int d);

// Excess kurtosis of X = u₁^power, exact from A(power), A(2·power), A(3·power), A(4·power) (odd powers: mean 0, so
// A(4·power)/A(2·power)² − 3). 0 where X is constant (d = 1 with an even power).
double sphere_power_excess_kurtosis(int power, int d);

}  // namespace favorlab
