#include "perm/order_asymptotics.hpp"

#include <boost/math/quadrature/exp_sinh.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {
void require_n(int n, int least) {
  if (n < least) throw std::invalid_argument("order asymptotics: n must be >= " + std::to_string(least));
}
}  // namespace

double erdos_turan_mean_log(int n) {
  require_n(n, 1);
  const double l = std::log(static_cast<double>(n));
  return 0.5 * l * l;
}

double erdos_turan_variance_log(int n) {
  require_n(n, 1);
  const double l = std::log(static_cast<double>(n));
  return l * l * l / 3.0;
}

double goh_schmutz_constant() {
  // ln ln(e / (1 − e^{−t})) = ln(1 − ln(1 − e^{−t})) = log1p(−ln(−expm1(−t))): no cancellation near t = 0 or ∞.
  // The integrand grows like ln ln(1/t) at 0 (integrable); the quadrature may probe t = 0 itself, where the
  // formula is infinite, so that single point is given the value 0 (a null set, the integral is unchanged).
  const auto integrand = [](double t) { return t > 0 ? std::log1p(-std::log(-std::expm1(-t))) : 0.0; };
  boost::math::quadrature::exp_sinh<double> integrator;
  const double integral = integrator.integrate(integrand, 0.0, std::numeric_limits<double>::infinity());
  return 2.0 * std::sqrt(2.0 * integral);
}

double goh_schmutz_log_mean(int n) {
  require_n(n, 2);
  static const double c = goh_schmutz_constant();
  return c * std::sqrt(static_cast<double>(n) / std::log(static_cast<double>(n)));
}

}  // namespace favorlab
