#pragma once
// Running central moments up to the 4th (Welford's update extended by Pébay, 2008), mergeable, so that blocks of
// trials can be reduced in a fixed order whatever the thread count.
// When the values are errors e = estimate − truth, mean_square() is the empirical MSE and mean_square_stderr() its
// standard error, from the sample 4th moment: Var(e²) = E[e⁴] − (E[e²])².
#include <cstdint>

namespace favorlab {

class RunningMoments {
 public:
  void add(double x);
  void merge(const RunningMoments& other);

  std::int64_t count() const { return n_; }
  double mean() const { return mean_; }
  double variance() const;        // unbiased (n − 1)
  double standard_error() const;  // of the mean
  double skewness() const;        // sample g1 (biased moments)
  double central_moment(int k) const;  // k = 2, 3, 4; divided by n

  double mean_square() const;          // (1/n) Σ x²
  double mean_square_stderr() const;   // √(Var(x²)/n), Var with n − 1; NaN when n < 2 or the 4th moment overflowed

 private:
  std::int64_t n_ = 0;
  double mean_ = 0, m2_ = 0, m3_ = 0, m4_ = 0;
};

}  // namespace favorlab
