#include "stats/sample_quantile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace favorlab {

double sample_quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("sample quantile of no values");
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("sample quantile order must lie in [0, 1]");
  if (!std::is_sorted(sorted.begin(), sorted.end())) throw std::invalid_argument("sample quantile needs sorted values");
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

double sample_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return sample_quantile(values, 0.5);
}

}  // namespace favorlab
