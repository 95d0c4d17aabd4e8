#include "kernels/legendre_transform.hpp"

#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace favorlab {

LegendreValue legendre_transform(const RegularizedFeature& x, double a) {
  if (std::isnan(a)) throw std::invalid_argument("Legendre transform needs a number a, got NaN");
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double top = x.max_value();
  if (a <= x.mean()) return {0, 0};
  if (a > top) return {inf, inf};
  if (a == top) return {x.top_atom() > 0 ? -std::log(x.top_atom()) : inf, inf};

  // Bracket θ*: the tilted mean rises from E[X] (θ = 0) to max X (θ → ∞), and θ* is where it reaches a.
  // Start at the scale of one over the range of X and double (or halve) until a is straddled.
  const double range = top - x.min_value();
  double theta = 1 / range;
  double lo = 0, hi = 0;
  if (x.tilted_mean(theta) < a) {
    lo = theta;
    hi = 2 * theta;
    while (x.tilted_mean(hi) < a) {
      lo = hi;
      hi *= 2;
      if (!std::isfinite(hi * top)) throw std::runtime_error("Legendre transform: no bracket for the optimum");
    }
  } else {
    hi = theta;
    lo = theta / 2;
    while (lo > 0 && x.tilted_mean(lo) > a) {
      hi = lo;
      lo /= 2;
      if (lo * range < 1e-300) lo = 0;
    }
  }
  // Brent on the convex objective log M_X(θ) − θa inside [lo, hi]: θ* to ~√ε relative, so L to ~ε relative (the
  // objective is flat at its minimum).
  const auto objective = [&](double th) { return x.log_mgf(th) - th * a; };
  std::uintmax_t iterations = 200;
  const auto best = boost::math::tools::brent_find_minima(objective, lo, hi, std::numeric_limits<double>::digits / 2,
                                                           iterations);
  // Rounding can push a tiny supremum below zero; the transform is ≥ 0 by definition (θ → 0 gives 0).
  return {std::max(0.0, -best.second), best.first};
}

}  // namespace favorlab
