#include "stats/running_covariance.hpp"

#include <limits>

namespace favorlab {

void RunningCovariance::add(double x, double y) {
  ++n_;
  const double n = static_cast<double>(n_);
  const double dx = x - mean_x_;
  mean_x_ += dx / n;
  mean_y_ += (y - mean_y_) / n;
  c_ += dx * (y - mean_y_);
}

void RunningCovariance::merge(const RunningCovariance& b) {
  if (b.n_ == 0) return;
  if (n_ == 0) {
    *this = b;
    return;
  }
  const double na = static_cast<double>(n_), nb = static_cast<double>(b.n_), n = na + nb;
  const double dx = b.mean_x_ - mean_x_, dy = b.mean_y_ - mean_y_;
  c_ += b.c_ + dx * dy * na * nb / n;
  mean_x_ += dx * nb / n;
  mean_y_ += dy * nb / n;
  n_ += b.n_;
}

double RunningCovariance::covariance() const {
  return n_ > 1 ? c_ / static_cast<double>(n_ - 1) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace favorlab
