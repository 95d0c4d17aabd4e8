#pragma once
// The premise of Theorem 1's lower bound, ‖A‖∞ ≤ C, read as its proof uses it (eq. 35): queries and keys are rows of
// one self-attention matrix whose entries SM(x, x), SM(y, y) and SM(x, y) are all ≤ C (C ≥ 1), so
//   w = ‖z‖²/2 = (ln SM(x,x) + ln SM(y,y) + 2 ln SM(x,y))/2 ≤ 2 ln C,  i.e. ‖z‖ ≤ 2√(ln C),
// with equality at x = y, ‖x‖² = ln C (every entry equal to C). SMREG/SM = E[f(N, d)] falls as w grows (f(k, d) falls
// in k and Poisson(w) grows stochastically with w), so the infimum over admissible pairs is the ratio at w = 2 ln C.
// (If only the cross entries SM(x, y) were bounded, ‖z‖ would be unbounded and the infimum 0 for every C.)
//
// Large-d behaviour: ln f(k, d) = −Σ_{j<k} ln(1 + 2j/d) ≥ −k(k−1)/d, so 1 − f(k, d) ≤ k(k−1)/d and
//   d (1 − SMREG/SM) ≤ E[N(N−1)] = w²   for every d,   with   d (1 − SMREG/SM) → w²   as d → ∞.
// So d (1 − inf ratio) → (2 ln C)²: the claimed 1 − 2/d + o(1/d) holds iff (2 ln C)² ≤ 2, i.e. C ≤ exp(1/√2).
namespace favorlab {

// Each throws std::invalid_argument unless C is finite and ≥ 1.
double theorem1_max_w(double C);       // 2 ln C
double theorem1_max_z_norm(double C);  // 2 √(ln C)
double theorem1_gap_limit(double C);   // lim_{d→∞} d (1 − inf SMREG/SM) = (2 ln C)²

// The largest C for which the claimed constant 2 holds asymptotically: exp(1/√2) ≈ 2.028.
double theorem1_critical_c();

}  // namespace favorlab
