#include "mc/defensive_estimate.hpp"

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "kernels/log_add.hpp"

namespace favorlab {

WeightedMoments defensive_estimate_moments(Family e, const Geometry& g, const ImportanceProposal& q, double beta) {
  require_importance_estimator(e);
  if (!(beta >= 0 && beta < 1))
    throw std::invalid_argument("the plain law's share must lie in [0, 1), got " + std::to_string(beta));
  check_importance_proposal(q);
  validate_geometry(g, 2);
  const double r = std::sqrt(std::max(0.0, g.z_sq()));
  const double log_beta = std::log(beta), log_tilted = std::log1p(-beta);
  const double log_root_two_pi = 0.5 * std::log(2 * std::numbers::pi);
  const auto log_h = [&](double s) {
    const double half = r * r / 2;
    if (e == Family::positive) return r * s - half;
    const double x = std::abs(r * s);  // log cosh, no overflow
    return x + std::log1p(std::exp(-2 * x)) - std::numbers::ln2 - half;
  };
  // log of the proposal's density over the plain one, β + (1 − β) ρ(s).
  const auto log_ratio = [&](double s) { return log_add(log_beta, log_tilted + proposal_log_ratio(q, s)); };
  const auto estimate = [&](double s) { return std::exp(log_h(s) - log_ratio(s)); };
  const auto density = [&](double s) { return std::exp(-s * s / 2 - log_root_two_pi + log_ratio(s)); };

  // ∫ q(s) F(f(s)) ds over pieces half a unit wide: the mass of q lies within a dozen widths of 0 and of ±μ, and
  // q f^k within a few r more; beyond the range every integrand is below e^{−100} of its peak.
  const double half_width = 16 + 2 * std::abs(q.mean) + 8 * q.sd + 4 * r;
  using Kronrod = boost::math::quadrature::gauss_kronrod<double, 61>;
  const auto integrate = [&](const auto& f) {
    double total = 0;
    for (double a = -half_width; a < half_width; a += 0.5)
      total += Kronrod::integrate([&](double s) { return density(s) * f(estimate(s)); }, a, a + 0.5, 8, 1e-13);
    return total;
  };

  WeightedMoments out;
  out.mean = integrate([](double v) { return v; });
  out.second = integrate([](double v) { return v * v; });
  out.third = integrate([](double v) { return v * v * v; });
  const double mean = out.mean;
  const double var = integrate([mean](double v) { return (v - mean) * (v - mean); });
  out.relative_variance = var / (mean * mean);
  if (!(out.relative_variance > kRoundingRelativeVariance)) {
    out.relative_variance = 0;
    out.degenerate = true;
    return out;
  }
  const double third = integrate([mean](double v) { return (v - mean) * (v - mean) * (v - mean); });
  out.skewness = third / std::pow(var, 1.5);
  return out;
}

}  // namespace favorlab
