#include "kernels/regularized_tail_bound.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "kernels/legendre_transform.hpp"
#include "kernels/orthogonal_estimate_max.hpp"

namespace favorlab {

TailBound theorem3_bound(const Geometry& g, int d, int m, double a) {
  if (m <= 0) throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(m));
  if (m > d)
    throw std::invalid_argument("Theorem 3 needs m <= d, got m = " + std::to_string(m) + " > d = " + std::to_string(d));
  const RegularizedFeature x(g, d);
  TailBound b;
  b.smreg = x.mean();
  b.max_feature = x.max_value();
  const double log_row_sum = orthogonal_row_sum_max(m, x.t()).log_upper;
  b.max_orthogonal = std::exp(x.log_lambda() - std::log(static_cast<double>(m)) + log_row_sum);
  if (!std::isfinite(a) || !(a > b.smreg)) {
    std::ostringstream s;
    s << "Theorem 3 needs a threshold a > SMREG(x, y) = " << b.smreg << ", got a = " << a;
    throw std::invalid_argument(s.str());
  }
  const LegendreValue l = legendre_transform(x, a);
  b.legendre = l.value;
  b.theta = l.theta;
  b.iid = std::exp(-m * l.value);
  b.orthogonal = d / (d + 2.0) * b.iid;
  return b;
}

}  // namespace favorlab
