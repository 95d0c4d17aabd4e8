#include "kernels/orthogonal_estimate_max.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

RowSumMax orthogonal_row_sum_max(int m, double kappa) {
  if (m < 1) throw std::invalid_argument("number of rows m must be >= 1, got " + std::to_string(m));
  if (!(kappa >= 0) || !std::isfinite(kappa))
    throw std::invalid_argument("kappa = sqrt(d)|z| must be finite and >= 0, got " + std::to_string(kappa));
  if (m == 1 || kappa == 0) {  // one row: t = 1; κ = 0: every term is 1
    const double v = m == 1 ? kappa : std::log(static_cast<double>(m));
    return {v, v};
  }
  // g = G/e^κ = A + (m − 1)B, A = e^{κ(cos φ − 1)}, B = e^{κ(sin φ/√(m−1) − 1)}, both ≤ 1: no overflow for any
  // representable estimate. A″ = (κ² sin²φ − κ cos φ)A and ((m − 1)B)″ = (κ² cos²φ − κ√(m−1) sin φ)B, so
  // |g″| ≤ M = 2κ² + κ(1 + √(m − 1)), and on a grid of step h the maximum exceeds the best node by at most M h²/8
  // (g lies below its linear interpolant plus M h²/8 between nodes).
  constexpr int kIntervals = 4096;
  const double root = std::sqrt(m - 1.0), top = std::atan(root), step = top / kIntervals;
  double best = 0;
  for (int i = 0; i <= kIntervals; ++i) {
    const double phi = i * step;
    const double g = std::exp(kappa * (std::cos(phi) - 1)) + (m - 1) * std::exp(kappa * (std::sin(phi) / root - 1));
    best = std::max(best, g);
  }
  const double slack = (2 * kappa * kappa + kappa * (1 + root)) * step * step / 8;
  // Every grid value carries a few roundings of relative size 2⁻⁵³: 1e-13 covers them with room.
  return {kappa + std::log(best), kappa + std::log((best + slack) * (1 + 1e-13))};
}

}  // namespace favorlab
