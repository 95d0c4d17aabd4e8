#include "stats/skewness_bound.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/running_moments.hpp"

namespace favorlab {

namespace {
double skewness_without(const std::vector<double>& x, std::size_t begin, std::size_t end) {
  RunningMoments m;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (i < begin || i >= end) m.add(x[i]);
  return m.central_moment(2) > 0 ? m.skewness() : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

double skewness_upper_bound(const std::vector<double>& x, int blocks) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (blocks < 2 || x.size() < 6) return kInf;
  // Fewer values than 3 per block: fewer blocks (a wider t quantile) rather than no bound at all.
  blocks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(blocks), x.size() / 3));
  const double full = skewness_without(x, 0, 0);
  const std::size_t j = static_cast<std::size_t>(blocks);
  std::vector<double> partial(j);
  double mean = 0;
  for (std::size_t b = 0; b < j; ++b) {
    partial[b] = skewness_without(x, b * x.size() / j, (b + 1) * x.size() / j);
    mean += partial[b] / static_cast<double>(j);
  }
  double ss = 0;
  for (double p : partial) ss += (p - mean) * (p - mean);
  const double jd = static_cast<double>(j);
  const double corrected = jd * full - (jd - 1) * mean, se = std::sqrt((jd - 1) / jd * ss);
  const double t = boost::math::quantile(boost::math::complement(boost::math::students_t(jd - 1), 0.025));
  const double bound = std::abs(corrected) + t * se;
  return std::isfinite(bound) ? bound : kInf;
}

}  // namespace favorlab
