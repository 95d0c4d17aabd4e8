#include "kernels/lemma2.hpp"

#include <cmath>

namespace favorlab {

// Written with expm1 so that the variance does not vanish by cancellation as ‖z‖ or ‖Δ‖ → 0.
double mse_trig(const Geometry& g, int m) {
  const double one_minus = -std::expm1(-g.delta_sq());
  return std::exp(-2 * g.log_lambda()) * one_minus * one_minus / (2.0 * m);
}

double mse_positive(const Geometry& g, int m) { return std::exp(2 * g.dot()) * std::expm1(g.z_sq()) / m; }

double mse_hyperbolic(const Geometry& g, int m) { return 0.5 * -std::expm1(-g.z_sq()) * mse_positive(g, m); }

}  // namespace favorlab
