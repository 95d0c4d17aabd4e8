#include "stats/ks_test.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace favorlab {

double ks_statistic(std::vector<double> sample, const std::function<double(double)>& cdf) {
  if (sample.empty()) throw std::invalid_argument("KS test needs a non-empty sample");
  std::sort(sample.begin(), sample.end());
  const double n = static_cast<double>(sample.size());
  double d = 0;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const double f = cdf(sample[i]);
    d = std::max({d, (static_cast<double>(i) + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

double ks_p_value(double statistic, std::size_t n) {
  const double sn = std::sqrt(static_cast<double>(n));
  const double lambda = (sn + 0.12 + 0.11 / sn) * statistic;
  if (lambda < 0.2) return 1;
  // Q_KS(λ) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²)
  double sum = 0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 ? 1 : -1) * term;
    if (term < 1e-16) break;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

}  // namespace favorlab
