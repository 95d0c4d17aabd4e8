#include "kernels/smreg_ratio.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>



namespace favorlab {

double max_ratio_z_norm() { return std::sqrt(2 * std::log(std::numeric_limits<double>::max())); }

void validate_ratio_z_norm(double z_norm, const std::string& option) {
  if (!std::isfinite(z_norm) || z_norm < 0) {
    std::ostringstream s;
    s << option << " values must be finite and >= 0, got " << z_norm;
    throw std::invalid_argument(s.str());
  }
  if (z_norm > max_ratio_z_norm()) {
    std::ostringstream s;
    s << option << " value " << z_norm << " is beyond " << max_ratio_z_norm()
      << ", where exp(|z|^2/2) overflows double precision";
    throw std::invalid_argument(s.str());
  }
}

Geometry smreg_ratio_geometry(double z_norm) { return Geometry{z_norm / 2, z_norm / 2, 1.0}; }

double log_smreg_ratio_exact(double z_norm, int d) {
  // log SMREG − log SM = log Λ + log E[e^{t u₁}] − xᵀy = log E[e^{t u₁}] − ‖z‖²/2 in every geometry; taking it straight
  // from the sphere MGF avoids the ±‖z‖²/4 round trip of the concrete pair.
  return log_sphere_mgf(d, std::sqrt(static_cast<double>(d)) * z_norm) - z_norm * z_norm / 2;
}

double log_smreg_ratio_series(double z_norm, int d) {
  return log_smreg_ratio_series(smreg_ratio_geometry(z_norm), d);
}

double smreg_ratio_gap(double z_norm, int d) {
  if (d <= 0) throw std::invalid_argument("dimension d must be positive");
  const double w = z_norm * z_norm / 2;
  if (w == 0) return 0;
  // Term k: P[N = k] · (1 − f(k, d)); f(0) = f(1) = 1, so the sum starts at k = 2. 1 − f = −expm1(log f) keeps full
  // relative precision when f is close to 1, and log f accumulates log1p(2j/d) for the same reason.
  double log_f = -std::log1p(2.0 / d), sum = 0;
  const double log_w = std::log(w);
  for (int k = 2;; ++k) {
    if (k > 2) log_f -= std::log1p(2.0 * (k - 1) / d);
    const double term = std::exp(-w + k * log_w - std::lgamma(k + 1.0)) * -std::expm1(log_f);
    sum += term;
    // Past the Poisson mode the pmf falls at least geometrically and 1 − f ≤ 1: stop once the terms are negligible.
    if (k > w && term <= 1e-18 * sum) break;
    if (k > 10'000'000) throw std::runtime_error("SMREG gap series did not converge");
  }
  return sum;
}

}  // namespace favorlab
