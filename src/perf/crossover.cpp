#include "perf/crossover.hpp"

#include <cmath>

namespace favorlab {

double crossover_length(const std::map<int, double>& a, const std::map<int, double>& b) {
  double prev_l = 0, prev_r = 0;
  for (const auto& [l, seconds] : a) {
    const auto other = b.find(l);
    if (other == b.end()) break;
    const double r = std::log(seconds / other->second);  // > 0: a slower
    if (r > 0) {
      if (prev_l == 0) return l;
      const double t = prev_r / (prev_r - r);
      return std::exp(std::log(prev_l) + t * (std::log(double(l)) - std::log(prev_l)));
    }
    prev_l = l, prev_r = r;
  }
  return std::nan("");
}

}  // namespace favorlab
