#include "stats/running_moments.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace favorlab {

void RunningMoments::add(double x) {
  const double n1 = static_cast<double>(n_);
  ++n_;
  const double n = static_cast<double>(n_);
  const double delta = x - mean_;
  const double delta_n = delta / n;
  const double delta_n2 = delta_n * delta_n;
  const double term1 = delta * delta_n * n1;
  mean_ += delta_n;
  m4_ += term1 * delta_n2 * (n * n - 3 * n + 3) + 6 * delta_n2 * m2_ - 4 * delta_n * m3_;
  m3_ += term1 * delta_n * (n - 2) - 3 * delta_n * m2_;
  m2_ += term1;
}

void RunningMoments::merge(const RunningMoments& b) {
  if (b.n_ == 0) return;
  if (n_ == 0) {
    *this = b;
    return;
  }
  const double na = static_cast<double>(n_), nb = static_cast<double>(b.n_), n = na + nb;
  const double delta = b.mean_ - mean_;
  const double d2 = delta * delta, d3 = d2 * delta, d4 = d2 * d2;
  const double m2 = m2_ + b.m2_ + d2 * na * nb / n;
  const double m3 = m3_ + b.m3_ + d3 * na * nb * (na - nb) / (n * n) + 3 * delta * (na * b.m2_ - nb * m2_) / n;
  const double m4 = m4_ + b.m4_ + d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
                    6 * d2 * (na * na * b.m2_ + nb * nb * m2_) / (n * n) + 4 * delta * (na * b.m3_ - nb * m3_) / n;
  mean_ += delta * nb / n;
  m2_ = m2;
  m3_ = m3;
  m4_ = m4;
  n_ += b.n_;
}

double RunningMoments::variance() const {
  return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : std::numeric_limits<double>::quiet_NaN();
}

double RunningMoments::standard_error() const { return std::sqrt(variance() / static_cast<double>(n_)); }

double RunningMoments::central_moment(int k) const {
  const double n = static_cast<double>(n_);
  switch (k) {
    case 2: return m2_ / n;
    case 3: return m3_ / n;
    case 4: return m4_ / n;
  }
  throw std::invalid_argument("central_moment: k must be 2, 3 or 4");
}

double RunningMoments::skewness() const {
  const double c2 = central_moment(2);
  return c2 > 0 ? central_moment(3) / std::pow(c2, 1.5) : 0.0;
}

double RunningMoments::mean_square() const { return central_moment(2) + mean_ * mean_; }

double RunningMoments::mean_square_stderr() const {
  const double mu = mean_, c2 = central_moment(2), c3 = central_moment(3), c4 = central_moment(4);
  const double e2 = c2 + mu * mu;
  const double e4 = c4 + 4 * mu * c3 + 6 * mu * mu * c2 + mu * mu * mu * mu;
  const double n = static_cast<double>(n_);
  // An overflowed 4th moment (∞ − ∞ = NaN, or ∞) leaves the SE unknown: say so with NaN, never clamp it to 0 (which
  // would turn any difference into an infinitely significant one).
  const double spread = e4 - e2 * e2;
  if (n_ < 2 || !std::isfinite(spread)) return std::numeric_limits<double>::quiet_NaN();
  const double var_sq = std::max(0.0, spread) * n / (n - 1);
  return std::sqrt(var_sq / n);
}

}  // namespace favorlab
