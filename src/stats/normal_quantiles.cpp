#include "stats/normal_quantiles.hpp"

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>

namespace favorlab {

namespace {
void require_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("significance level must lie in (0, 1)");
}
}  // namespace

double two_sided_critical_z(double alpha) {
  require_alpha(alpha);
  return boost::math::quantile(boost::math::complement(boost::math::normal(), alpha / 2));
}

double one_sided_critical_z(double alpha) {
  require_alpha(alpha);
  return boost::math::quantile(boost::math::complement(boost::math::normal(), alpha));
}

double two_sided_p_value(double z) {
  if (std::isinf(z)) return 0;
  return 2 * boost::math::cdf(boost::math::complement(boost::math::normal(), std::abs(z)));
}

double bonferroni_alpha(double family_alpha, std::size_t tests) {
  require_alpha(family_alpha);
  return family_alpha / static_cast<double>(tests == 0 ? 1 : tests);
}

double normal_density(double z) { return boost::math::pdf(boost::math::normal(), z); }

}  // namespace favorlab
