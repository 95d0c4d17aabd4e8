#include "stats/loglog_slope.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

double loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size())
    throw std::invalid_argument("log-log slope: x has " + std::to_string(x.size()) + " values, y " +
                                std::to_string(y.size()));
  const std::size_t n = x.size();
  if (n < 2) return std::nan("");
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) mx += std::log(x[i]) / double(n), my += std::log(y[i]) / double(n);
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (std::log(x[i]) - mx) * (std::log(y[i]) - my);
    sxx += (std::log(x[i]) - mx) * (std::log(x[i]) - mx);
  }
  return sxx > 0 ? sxy / sxx : std::nan("");
}

}  // namespace favorlab
