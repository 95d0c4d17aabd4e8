#include "features/walsh_hadamard.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

void fwht(Eigen::Ref<Eigen::VectorXd> v) {
  const Eigen::Index d = v.size();
  if (!is_power_of_two(d))
    throw std::invalid_argument("Walsh-Hadamard transform needs a power-of-2 dimension, got d=" + std::to_string(d));
  // Butterflies: after the stage with half-width h, every aligned block of 2h entries holds H_{2h} (unnormalized)
  // applied to that block of the input — the Sylvester recursion read bottom-up.
  double* p = v.data();
  for (Eigen::Index h = 1; h < d; h *= 2)
    for (Eigen::Index start = 0; start < d; start += 2 * h)
      for (Eigen::Index i = start; i < start + h; ++i) {
        const double a = p[i], b = p[i + h];
        p[i] = a + b;
        p[i + h] = a - b;
      }
  v *= 1.0 / std::sqrt(static_cast<double>(d));
}

}  // namespace favorlab
