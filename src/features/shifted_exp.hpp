#pragma once
// x_ij ← exp(sign · x_ij − shift_i) · factor, in place, one pass over x, with a SIMD exp (exp_into below).
// Why column by column: Eigen evaluates exp of a broadcast expression such as (x.colwise() − shift).exp() one scalar
// std::exp at a time (docs/performance.md#tried-and-dropped); a column minus a plain column is a packet expression,
// and the subtraction, exp and scaling share one pass instead of three. sign is +1 or −1 (the hyperbolic map's second
// half); negation is exact, so the numbers are those of the separate passes.
// The exp: normal_range_exp (features/normal_range_exp.hpp) over the range where e^x is a normal number, std::exp
// outside it. The range check keeps the entries whose e^x underflows on std::exp, which gives the subnormal or 0:
// features that all underflow (plain, unstabilized features of a huge input) then give FAVOR's 0/0, not the mean of
// V that equal tiny numbers would. How: the exponents are evaluated 128 at a time into a small buffer, every entry
// goes through the vector exp, and only entries outside its range are recomputed. Callers that need exact zeros for
// −∞ (masked attention entries) get them: exp(−∞) is std::exp's 0.
#include <Eigen/Core>
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "features/normal_range_exp.hpp"

namespace favorlab {

// out ← exp(arg) · factor for an array expression `arg` of out's size that may read out itself, entry by entry (each
// chunk of arg is evaluated before the same chunk of out is written). out must be contiguous (unit inner stride).
// Every entry takes the vector path, normal_range_exp (features/normal_range_exp.hpp; the last partial batch through a
// zero-padded batch), so an entry's value never depends on its position; then std::exp recomputes the entries
// outside that function's range: below log(smallest normal) (subnormals and 0), above it (∞), ±∞ and NaN.
template <class Out, class Arg, class T>
void exp_into(Out&& out, const Arg& arg, T factor) {
  static_assert(std::remove_reference_t<Out>::InnerStrideAtCompileTime == 1, "exp_into writes contiguous entries");
  using Batch = xsimd::batch<T>;
  using Range = NormalRangeExp<T>;
  constexpr Eigen::Index kChunk = 128;  // a multiple of every batch width
  constexpr Eigen::Index width = Batch::size;
  alignas(64) T exponents[kChunk];
  T* const data = out.data();
  const auto in_range = [](const Batch& x) { return (x >= Batch(Range::low)) & (x <= Batch(Range::high)); };
  for (Eigen::Index first = 0; first < out.size(); first += kChunk) {
    const Eigen::Index count = std::min(kChunk, out.size() - first);
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Aligned64> chunk(exponents, count);
    chunk = arg.segment(first, count);
    auto inside = Batch(T(0)) == Batch(T(0));  // all true
    Eigen::Index i = 0;
    for (; i + width <= count; i += width) {
      const Batch x = Batch::load_aligned(exponents + i);
      inside = inside & in_range(x);
      (normal_range_exp(x) * Batch(factor)).store_unaligned(data + first + i);
    }
    if (i < count) {
      alignas(64) T tail[width];
      std::fill(exponents + count, exponents + i + width, T(0));
      const Batch x = Batch::load_aligned(exponents + i);
      inside = inside & in_range(x);
      (normal_range_exp(x) * Batch(factor)).store_aligned(tail);
      std::copy(tail, tail + (count - i), data + first + i);
    }
    if (!xsimd::all(inside))
      for (Eigen::Index j = 0; j < count; ++j)
        if (!(exponents[j] >= Range::low && exponents[j] <= Range::high))
          data[first + j] = std::exp(exponents[j]) * factor;
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
