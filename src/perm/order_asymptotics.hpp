#pragma once
// Asymptotic laws of the order O_n of a uniformly random permutation of n elements, as plain functions.
//  Erdős–Turán (1967): (ln O_n − ½ ln²n) / √(⅓ ln³n) → N(0, 1); so "mean" ½ ln²n and "variance" ⅓ ln³n of ln O_n
//    (centring and scale of the limit law; finite-n moments differ by lower-order terms, e.g. the mean by
//    −ln n · ln ln n + O(ln n)).
//  Goh–Schmutz (1991, "The expected order of a random permutation", Bull. LMS 23): ln E[O_n] ~ C √(n / ln n),
//    C = 2 √(2 ∫_0^∞ ln ln(e / (1 − e^{−t})) dt) ≈ 2.99; goh_schmutz_constant() evaluates the integral (Boost.Math
//    exp-sinh quadrature). Only the leading term is known, so at n ≤ 128 the prediction is rough.
namespace favorlab {

double erdos_turan_mean_log(int n);      // ½ ln²n
double erdos_turan_variance_log(int n);  // ⅓ ln³n
double goh_schmutz_constant();           // C
double goh_schmutz_log_mean(int n);      // C √(n / ln n), n ≥ 2

}  // namespace favorlab
