#pragma once
// One-sample Kolmogorov–Smirnov test against a continuous CDF.
#include <functional>
#include <vector>

namespace favorlab {

double ks_statistic(std::vector<double> sample, const std::function<double(double)>& cdf);
// Asymptotic p-value of D with Stephens' small-sample correction λ = (√n + 0.12 + 0.11/√n) D.
double ks_p_value(double statistic, std::size_t n);

}  // namespace favorlab
