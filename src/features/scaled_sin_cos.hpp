#pragma once
// sin_out_ij = sin(x_ij) · f_i and cos_out_ij = cos(x_ij) · f_i for column-major x, one vectorized pass per column
// (xsimd's sincos: one range reduction for both). Why xsimd: Eigen 3.4 vectorizes sin/cos for float only — for
// double it calls std::sin and std::cos one entry at a time, the bulk of a trig Monte Carlo trial
// (docs/performance.md#tried-and-dropped); xsimd is header-only,
// in Debian (libxsimd-dev) and picks the instruction set from the same compiler flags as Eigen (FAVORLAB_ARCH), so it
// adds no library and no dispatch. Its range reduction covers every finite argument (Cody–Waite up to moderate |x|,
// then the exact remainder of π/2), ±∞ and NaN give NaN, and tests/features/test_scaled_sin_cos.cpp bounds its error against
// libm. The last partial batch of a column goes through a zero-padded batch, so every entry takes the vector path.
// The result of an entry depends on its batch only through the choice of reduction (all lanes small, or not),
// which moves it within the error bound the test holds it to, and never with the thread count.
#include <Eigen/Core>
#include <xsimd/xsimd.hpp>

#include <algorithm>

namespace favorlab {

// x: rows × n, f: rows entries; sin_out and cos_out: rows × n blocks with contiguous columns (e.g. the left and right
// halves of one column-major matrix). sin_out/cos_out may not alias x unless they are x itself column by column.
template <class T, class In, class Out1, class Out2>
void scaled_sin_cos(const In& x, const T* f, Out1&& sin_out, Out2&& cos_out) {
  using Batch = xsimd::batch<T>;
  constexpr Eigen::Index width = Batch::size;
  const Eigen::Index rows = x.rows();
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    const T* in = x.col(c).data();
    T* s = sin_out.col(c).data();
    T* co = cos_out.col(c).data();
    Eigen::Index i = 0;
    for (; i + width <= rows; i += width) {
      const auto [sv, cv] = xsimd::sincos(Batch::load_unaligned(in + i));
      const Batch scale = Batch::load_unaligned(f + i);
      (sv * scale).store_unaligned(s + i);
      (cv * scale).store_unaligned(co + i);
    }
    if (i < rows) {
      alignas(Batch) T in_tail[width] = {}, f_tail[width] = {}, s_tail[width], c_tail[width];
      std::copy(in + i, in + rows, in_tail);
      std::copy(f + i, f + rows, f_tail);
      const auto [sv, cv] = xsimd::sincos(Batch::load_aligned(in_tail));
      const Batch scale = Batch::load_aligned(f_tail);
      (sv * scale).store_aligned(s_tail);
      (cv * scale).store_aligned(c_tail);
      std::copy(s_tail, s_tail + (rows - i), s + i);
      std::copy(c_tail, c_tail + (rows - i), co + i);
    }
  }
}

}  // namespace favorlab
