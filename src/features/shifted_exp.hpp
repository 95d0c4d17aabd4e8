#pragma once
// x_ij ← exp(sign · x_ij − shift_i) · factor, in place, one pass over x, with Eigen's SIMD exp.
// Why column by column: Eigen evaluates exp of a broadcast expression such as (x.colwise() − shift).exp() one scalar
// std::exp at a time (glibc expf/exp showed up as a quarter of the FAVOR profile); a column minus a plain column is
// a packet expression, so its exp is vectorized, and the subtraction, exp and scaling share one pass instead of
// three. sign is +1 or −1 (the hyperbolic map's second half); negation is exact, so the numbers are those of the
// separate passes.
// Underflow: Eigen's SIMD exp does not underflow — below log(smallest normal) (≈ −708.4 in double, −87.3 in float) it
// returns about the smallest normal for every argument, e.g. 5.6e-309 for exp(−800) — so a column with an exponent
// below that bound is computed with std::exp instead, which gives the subnormal or 0. Without this, features that
// all underflow (plain, unstabilized features of a huge input) came out as equal tiny numbers and FAVOR returned
// the mean of V instead of 0/0. The check is one vectorized minimum over the exponents, ~7 % of the exp pass
// (measured on a 512 × 256 float block; any() of a comparison, which Eigen does not vectorize, cost 36 %).
// Stabilized features take the scalar path only for a column with an entry ~708 (double) or ~87 (float) e-folds
// below its row's largest. Callers that need exact zeros for −∞ (masked attention entries) still set them afterwards.
#include <Eigen/Core>

#include <cmath>
#include <limits>

namespace favorlab {

// out ← exp(arg) · factor for an array expression `arg` of out's size (it may read out itself, entry by entry): Eigen's
// SIMD exp, or std::exp when an exponent lies below log(smallest normal).
template <class Out, class Arg, class T>
void exp_into(Out&& out, const Arg& arg, T factor) {
  static const T lowest_normal_exponent = std::log(std::numeric_limits<T>::min());
  if (arg.minCoeff() < lowest_normal_exponent) {
    for (Eigen::Index i = 0; i < out.size(); ++i) out(i) = std::exp(arg(i)) * factor;
  } else {
    out = arg.exp() * factor;
  }
}

template <class Block, class Column, class T>
void shifted_exp(Block&& x, const Column& shift, T factor, T sign = T(1)) {
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    auto col = x.col(c);
    if (sign < 0)
      exp_into(col, -col - shift, factor);
    else
      exp_into(col, col - shift, factor);
  }
}

}  // namespace favorlab
