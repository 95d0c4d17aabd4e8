#pragma once
// Distribution-free bounds on the difference of two sample means, for `favorlab compare` (results/result_compare.hpp):
// D = X̄_a − X̄_b of n_a and n_b independent draws of one law, s = 1/n_a + 1/n_b. Each returns t with
// P(|D| ≥ t) ≤ alpha for EVERY law whose draws have standard deviation σ (or less) and/or lie in an interval of
// length R, however heavy its tails otherwise: no normal approximation, so no skewness gate.
//   Chebyshev  t = σ·sqrt(s/alpha)                          (Var D = σ² s)
//   Hoeffding  t = R·sqrt(s·ln(2/alpha)/2)                  (D is a sum of independent terms in ranges R/n_a, R/n_b)
//   Bernstein  t = L·b/3 + sqrt((L·b/3)² + 2·L·σ²·s),  L = ln(2/alpha), b = R/min(n_a, n_b)
//              (P(|D| ≥ t) ≤ 2 exp(−t²/(2(σ² s + b t/3))) for centred terms bounded by b, each draw within R of the
//              mean; solved for the t that makes it alpha)
// Whichever is smallest for the figures at hand is as valid as each, when chosen before looking at D.
// They take σ, not σ², and never square it: a spread of 1e-172 (smreg's ratios at large |z|) has a square below the
// smallest double.
// Markov's inequality bounds the spread of a rerun: the sample variance of n draws has mean σ² (n − 1 denominator),
// so P(sample variance ≥ σ²/alpha) ≤ alpha for every law.

namespace favorlab {

double chebyshev_threshold(double sd, double n_a, double n_b, double alpha);
double hoeffding_threshold(double range, double n_a, double n_b, double alpha);
double bernstein_threshold(double sd, double range, double n_a, double n_b, double alpha);

}  // namespace favorlab
