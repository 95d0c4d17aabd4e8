#pragma once
// Figures read off the exact order distribution of S_n (order_distribution.hpp) beside a Monte Carlo sample:
// the probability of each histogram bin of ln(order), and the probability that the order exceeds a threshold.
#include <vector>

#include "perm/order_distribution.hpp"

namespace favorlab {

// P(⌊ln(order)/width⌋ = b) for b = 0 … bins − 1, the last bin also taking every larger order (orders ≥ 1, so no bin
// below 0). The bins of binned_counts (stats/value_counts.hpp) over ln(order), for the Monte Carlo counts beside them.
// Throws std::invalid_argument for bins < 1 or width not > 0.
std::vector<double> log_order_histogram(const OrderDistribution& dist, double width, int bins);

// P(order > threshold), exact as a rational of counts over n!, then rounded to double.
double probability_order_above(const OrderDistribution& dist, double threshold);

}  // namespace favorlab
