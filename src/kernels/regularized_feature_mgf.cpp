#include "kernels/regularized_feature_mgf.hpp"

#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/log_add.hpp"
#include "kernels/smreg.hpp"

namespace favorlab {

namespace {

// Relative tolerance of the tanh_sinh refinement. Its error falls double-exponentially with the level, so the
// result is typically far more accurate than the stopping difference; 1e-13 leaves a margin above rounding.
constexpr double kQuadratureTolerance = 1e-13;

// One integrator per thread: it builds its abscissa tables once and extends them lazily. (Boost 1.74 defines the
// two-argument integrate() without the const its declaration promises, so it cannot be a shared const object.)
boost::math::quadrature::tanh_sinh<double>& quadrature() {
  thread_local boost::math::quadrature::tanh_sinh<double> q;
  return q;
}

}  // namespace

RegularizedFeature::RegularizedFeature(const Geometry& g, int d) : d_(d) {
  if (d <= 0) throw std::invalid_argument("dimension d must be positive, got " + std::to_string(d));
  validate_geometry(g, d);
  t_ = std::sqrt(static_cast<double>(d) * g.z_sq());
  log_lambda_ = g.log_lambda();
  log_norm_ = d >= 2 ? -std::log(boost::math::beta(0.5, (d - 1) / 2.0)) : 0.0;
  mean_ = std::exp(log_lambda_ + log_sphere_mgf(d, t_));
}

double RegularizedFeature::mean() const { return mean_; }
double RegularizedFeature::max_value() const { return std::exp(log_lambda_ + t_); }
double RegularizedFeature::min_value() const { return std::exp(log_lambda_ - t_); }
double RegularizedFeature::top_atom() const {
  if (t_ == 0) return 1;
  return d_ == 1 ? 0.5 : 0;
}

double RegularizedFeature::peak_log_integrand(double theta, Shift shift) const {
  // For d > 3 the weight (1 − s²)^{(d−3)/2} vanishes at the ends, and for large |θ| the factor e^{θ(X − X(±1))}
  // vanishes away from the favoured end: their product can peak far below 1e-308 (log M_X − θ·max X ≈ −L_X), so
  // the integrand is scaled by the exponential of its largest log value. For θ > 0 that peak lies in 0 ≤ s < 1 (the
  // weight is even, the exponent increasing); a log-spaced grid in the distance r to the end (r = 1 … 1e-300) finds it
  // closely enough — any offset near the peak keeps the values representable, and it is added back exactly.
  if (d_ <= 3 || shift == Shift::mean) return 0;
  const double half_power = (d_ - 3) / 2.0;
  double best = -std::numeric_limits<double>::infinity();
  for (int j = 0; j <= 2400; ++j) {
    const double r = std::pow(10.0, -j / 8.0);
    const double excess = shift == Shift::top ? max_value() * std::expm1(-t_ * r) : min_value() * std::expm1(t_ * r);
    best = std::max(best, log_norm_ + half_power * std::log(r * (2 - r)) + theta * excess);
  }
  return best;
}

double RegularizedFeature::integral(double theta, Shift shift, int power, double offset) const {
  const double lambda = std::exp(log_lambda_);
  const double half_power = (d_ - 3) / 2.0;
  // tanh_sinh on [−1, 1] passes (s, sc) with sc the signed distance to the nearer end: sc = 1 − s > 0 on the right
  // half (including the centre s = 0) and sc = −(1 + s) < 0 on the left. Both 1 − s² and X(s) − X(±1) are formed
  // from sc, so the points crowded against the ends (where the integrand concentrates once θ is large) keep full
  // relative precision.
  auto f = [&](double s, double sc) {
    const bool right = sc > 0;
    const double one_minus = right ? sc : 1 - s;   // 1 − s
    const double one_plus = right ? 1 + s : -sc;   // 1 + s
    const double one_minus_sq = one_minus * one_plus;
    if (!(one_minus_sq > 0)) return 0.0;
    const double log_weight = d_ == 3 ? log_norm_ : log_norm_ + half_power * std::log(one_minus_sq);
    if (shift == Shift::mean)  // e^{θ(X − E X)} − 1, small: its integral keeps the digits log1p needs
      return std::exp(log_weight) * std::expm1(theta * (lambda * std::exp(t_ * s) - mean_));
    // X(s) − X(1) = Λe^{t} expm1(−t(1 − s)) when the top is factored out, X(s) − X(−1) = Λe^{−t} expm1(t(1 + s))
    // when the bottom is.
    const double excess = shift == Shift::top ? max_value() * std::expm1(-t_ * one_minus)
                                              : min_value() * std::expm1(t_ * one_plus);
    double value = std::exp(log_weight + theta * excess - offset);
    if (power == 1) value *= lambda * std::exp(t_ * s);
    return value;
  };
  return quadrature().integrate(f, kQuadratureTolerance);
}

double RegularizedFeature::log_mgf(double theta) const {
  if (!std::isfinite(theta)) throw std::invalid_argument("log_mgf needs a finite theta");
  if (theta == 0) return 0;
  // Factor out the largest exponent: θ·max X for θ > 0, θ·min X for θ < 0; what remains is at most 1.
  const double range = max_value() - min_value();
  const double shift = theta > 0 ? max_value() : min_value();
  if (t_ == 0) return theta * shift;
  if (d_ == 1)  // u₁ = ±1: a two-point mixture
    return theta * shift + std::log(0.5 + 0.5 * std::exp(-std::abs(theta) * range));
  // For small |θ|·range, log M_X ≈ θ E[X] is small, and θ·max X + log(∫…) would lose it to cancellation; centre on
  // the mean instead: log M_X = θ E[X] + log1p(E[e^{θ(X − E X)} − 1]), the integrand at most e − 1 in size.
  if (std::abs(theta) * range <= 1) return theta * mean_ + std::log1p(integral(theta, Shift::mean, 0, 0));
  const Shift side = theta > 0 ? Shift::top : Shift::bottom;
  const double offset = peak_log_integrand(theta, side);
  return theta * shift + offset + std::log(integral(theta, side, 0, offset));
}

double RegularizedFeature::tilted_mean(double theta) const {
  if (!std::isfinite(theta)) throw std::invalid_argument("tilted_mean needs a finite theta");
  if (t_ == 0) return max_value();
  if (d_ == 1) {
    // weights ½e^{θb} and ½e^{θc}: the top's share is 1/(1 + e^{−θ(b − c)})
    const double top = 1 / (1 + std::exp(-theta * (max_value() - min_value())));
    return top * max_value() + (1 - top) * min_value();
  }
  const Shift shift = theta >= 0 ? Shift::top : Shift::bottom;
  const double offset = peak_log_integrand(theta, shift);  // common to both integrals: cancels in the ratio
  return integral(theta, shift, 1, offset) / integral(theta, shift, 0, offset);
}

double RegularizedFeature::log_mgf_series(double theta) const {
  if (!(theta >= 0) || !std::isfinite(theta)) throw std::invalid_argument("log_mgf_series needs a finite theta >= 0");
  if (theta == 0) return 0;
  // term k: θ^k Λ^k E[e^{k t u₁}] / k!, all positive; log E[e^{k t u₁}] from the Bessel form (log_sphere_mgf).
  // The terms rise until k ≈ θ·max X and then fall faster than geometrically.
  const double log_theta_lambda = std::log(theta) + log_lambda_;
  double log_sum = 0;  // k = 0
  double previous = 0;
  for (int k = 1;; ++k) {
    const double log_term = k * log_theta_lambda - std::lgamma(k + 1.0) + log_sphere_mgf(d_, k * t_);
    log_sum = log_add(log_sum, log_term);
    if (k > theta * max_value() && log_term < previous && log_term < log_sum - 40) break;
    previous = log_term;
    if (k > 1'000'000) throw std::runtime_error("MGF series did not converge");
  }
  return log_sum;
}

}  // namespace favorlab
