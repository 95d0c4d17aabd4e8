#include "perm/order_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

std::vector<double> log_order_histogram(const OrderDistribution& dist, double width, int bins) {
  if (bins < 1) throw std::invalid_argument("log_order_histogram: bins must be >= 1, got " + std::to_string(bins));
  if (!(width > 0)) throw std::invalid_argument("log_order_histogram: width must be > 0");
  std::vector<double> probability(static_cast<std::size_t>(bins), 0.0);
  for (std::size_t j = 0; j < dist.orders.size(); ++j) {
    const int bin = static_cast<int>(std::floor(std::log(static_cast<double>(dist.orders[j])) / width));
    probability[static_cast<std::size_t>(std::min(bins - 1, bin))] += dist.probability(j).convert_to<double>();
  }
  return probability;
}

double probability_order_above(const OrderDistribution& dist, double threshold) {
  BigInt above = 0;
  for (std::size_t j = 0; j < dist.orders.size(); ++j)
    if (static_cast<double>(dist.orders[j]) > threshold) above += dist.counts[j];
  return BigRational(above, dist.permutations).convert_to<double>();
}

}  // namespace favorlab
