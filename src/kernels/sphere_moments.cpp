#include "kernels/sphere_moments.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {

void require_sphere_dimension(int d) {
  if (d < 1) throw std::invalid_argument("sphere moments need dimension d >= 1, got " + std::to_string(d));
}

// Up to this k the product of k ratios (2j+1)/(d+2j) is both more accurate (k roundings, no cancellation of large
// log-gammas) and safe: every factor lies in (0, 1] for d ≥ 1 — it can underflow, never overflow.
constexpr int kProductUpTo = 256;

}  // namespace

double log_sphere_moment_even(int k, int d) {
  require_sphere_dimension(d);
  if (k < 0) throw std::invalid_argument("sphere moment order k must be >= 0, got " + std::to_string(k));
  // (2k−1)!! = 2^k Γ(k+½)/Γ(½) and d(d+2)⋯(d+2k−2) = 2^k Γ(d/2+k)/Γ(d/2); the powers of 2 cancel.
  const double half_d = d / 2.0;
  return std::lgamma(k + 0.5) - std::lgamma(0.5) + std::lgamma(half_d) - std::lgamma(half_d + k);
}

double sphere_moment(int power, int d) {
  require_sphere_dimension(d);
  if (power < 0) throw std::invalid_argument("sphere moment power must be >= 0, got " + std::to_string(power));
  if (power % 2 == 1) return 0.0;
  const int k = power / 2;
  if (k > kProductUpTo) return std::exp(log_sphere_moment_even(k, d));
  double a = 1.0;
  for (int j = 0; j < k; ++j) a *= (2.0 * j + 1) / (d + 2.0 * j);
  return a;
}

double sphere_power_skewness(int power, int d) {
  require_sphere_dimension(d);
  if (power < 0) throw std::invalid_argument("sphere moment power must be >= 0, got " + std::to_string(power));
  if (power % 2 == 1 || power == 0 || d == 1) return 0.0;
  const int k = power / 2;
  const double log_a1 = log_sphere_moment_even(k, d);
  // r₂ − 1 by expm1: for k = 1 and large d, r₂ → 3 and nothing cancels, but for d = 2 and large k it stays small.
  const double log_r2 = log_sphere_moment_even(2 * k, d) - 2 * log_a1;
  const double log_r3 = log_sphere_moment_even(3 * k, d) - 3 * log_a1;
  const double r2_minus_1 = std::expm1(log_r2);
  const double r3 = std::exp(log_r3);
  return (r3 - 3 * (r2_minus_1 + 1) + 2) / std::pow(r2_minus_1, 1.5);
}

double sphere_power_excess_kurtosis(int power, int d) {
  require_sphere_dimension(d);
  if (power < 0) throw std::invalid_argument("sphere moment power must be >= 0, got " + std::to_string(power));
  if (power == 0 || (d == 1 && power % 2 == 0)) return 0.0;
  if (power % 2 == 1) return std::exp(log_sphere_moment_even(2 * power, d) - 2 * log_sphere_moment_even(power, d)) - 3;
  const int k = power / 2;
  const double log_a1 = log_sphere_moment_even(k, d);
  const auto r = [&](int j) { return std::exp(log_sphere_moment_even(j * k, d) - j * log_a1); };  // A(j·power)/A^j
  const double r2_minus_1 = std::expm1(log_sphere_moment_even(2 * k, d) - 2 * log_a1);
  return (r(4) - 4 * r(3) + 6 * (r2_minus_1 + 1) - 3) / (r2_minus_1 * r2_minus_1) - 3;
}

}  // namespace favorlab
