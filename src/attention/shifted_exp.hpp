#pragma once
// x_ij ← exp(sign · x_ij − shift_i) · factor, in place, one pass over x, with Eigen's SIMD exp.
// Why column by column: Eigen evaluates exp of a broadcast expression such as (x.colwise() − shift).exp() one scalar
// std::exp at a time (glibc expf/exp showed up as a quarter of the FAVOR profile); a column minus a plain column is
// a packet expression, so its exp is vectorized, and the subtraction, exp and scaling share one pass instead of
// three. sign is +1 or −1 (the hyperbolic map's second half); negation is exact, so the numbers are those of the
// separate passes. Eigen's SIMD exp clamps −∞ to the smallest normal's neighbourhood: callers that need exact zeros
// (masked attention entries) set them afterwards.
#include <Eigen/Core>

namespace favorlab {

template <class Block, class Column, class T>
void shifted_exp(Block&& x, const Column& shift, T factor, T sign = T(1)) {
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    if (sign < 0)
      x.col(c) = (-x.col(c) - shift).exp() * factor;
    else
      x.col(c) = (x.col(c) - shift).exp() * factor;
  }
}

}  // namespace favorlab
