#include "rng/philox_stream.hpp"

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <numbers>

namespace favorlab {

// Box–Muller on xsimd batches of pairs. Why: the Monte Carlo drivers draw their projections and importance samples
// from here, and libm's scalar log and sincos are a large share of their time (docs/performance.md#tried-and-dropped).
// A lane's value depends on its own two uniforms only: the log has no batch-wide branch for
// normal arguments (u ≥ 2⁻⁵⁴), a partial batch is padded with u = 1/2, and xsimd's sincos, which picks its range
// reduction from the whole batch (all θ ≤ π/4, all ≤ π/2, or else Cody–Waite for θ < 20π), reduces every θ in
// (0, 2π) to the same value on each path — save θ within an ulp of π/4, where θ·2/π may round to ½. So a normal has
// the same bits whether normal() or normals() of any length drew it, on any thread; against libm's log, sin and cos
// it differs in the last bits (tests/rng/test_philox_stream.cpp bounds the difference).
void PhiloxStream::box_muller(std::ptrdiff_t pairs, double* out) {
  using Batch = xsimd::batch<double>;
  constexpr std::ptrdiff_t width = Batch::size;
  alignas(Batch) double u1[width], u2[width], c[width], s[width];
  const Batch two_pi(2.0 * std::numbers::pi), minus_two(-2.0);
  for (std::ptrdiff_t first = 0; first < pairs; first += width) {
    const std::ptrdiff_t count = std::min(width, pairs - first);
    for (std::ptrdiff_t p = 0; p < width; ++p) {
      u1[p] = p < count ? uniform() : 0.5;  // uniform() twice per pair, in this order: u₁ then u₂
      u2[p] = p < count ? uniform() : 0.5;
    }
    const Batch radius = xsimd::sqrt(minus_two * xsimd::log(Batch::load_aligned(u1)));
    const auto [sine, cosine] = xsimd::sincos(two_pi * Batch::load_aligned(u2));
    (radius * cosine).store_aligned(c);
    (radius * sine).store_aligned(s);
    for (std::ptrdiff_t p = 0; p < count; ++p) {
      out[2 * (first + p)] = c[p];
      out[2 * (first + p) + 1] = s[p];
    }
  }
}

void PhiloxStream::normals(double* out, std::ptrdiff_t n) {
  std::ptrdiff_t i = 0;
  if (n > 0 && has_spare_) {
    out[i++] = spare_;
    has_spare_ = false;
  }
  const std::ptrdiff_t pairs = (n - i) / 2;
  if (pairs > 0) box_muller(pairs, out + i);
  i += 2 * std::max<std::ptrdiff_t>(pairs, 0);
  if (i < n) {  // one value left: a new pair, its second value kept as normal() keeps it
    double pair[2];
    box_muller(1, pair);
    out[i] = pair[0];
    spare_ = pair[1];
    has_spare_ = true;
  }
}

}  // namespace favorlab
