#pragma once
// log(a + b) from log a and log b, for sums of terms too large or too small for a double.
#include <algorithm>
#include <cmath>
#include <limits>

namespace favorlab {

// Exact when either term is log 0 = −∞ (the other comes back unchanged); log1p keeps the smaller term's digits.
inline double log_add(double log_a, double log_b) {
  const double hi = std::max(log_a, log_b);
  if (hi == -std::numeric_limits<double>::infinity()) return hi;
  return hi + std::log1p(std::exp(std::min(log_a, log_b) - hi));
}

}  // namespace favorlab
