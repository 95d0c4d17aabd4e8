#pragma once
// Running co-moment of two paired quantities (Welford's update for the covariance; mergeable by the pairwise formula
// of Chan, Golub & LeVeque), so that blocks of trials can be reduced in a fixed order whatever the thread count.
#include <cstdint>

namespace favorlab {

class RunningCovariance {
 public:
  void add(double x, double y);
  void merge(const RunningCovariance& other);

  std::int64_t count() const { return n_; }
  double covariance() const;  // unbiased (n − 1); NaN for n < 2

 private:
  std::int64_t n_ = 0;
  double mean_x_ = 0, mean_y_ = 0, c_ = 0;
};

}  // namespace favorlab
