#include "kernels/simplex_moments.hpp"

#include <stdexcept>
#include <string>

#include "kernels/gerf_moments.hpp"

namespace favorlab {

double simplex_cosine(int d) {
  if (d < 2) throw std::invalid_argument("simplex features need dimension d >= 2, got " + std::to_string(d));
  return -1.0 / (d - 1);
}

double simplex_log_pair_moment(double phi, int d, double a) {
  const double c = simplex_cosine(d);
  try {
    return gerf_log_pair_moment_series(phi, d, a, c);
  } catch (const std::runtime_error&) {
    // Only the series' own convergence/cancellation failure lands here (bad parameters throw invalid_argument).
    return gerf_log_pair_moment_quadrature(phi, d, a, c);
  }
}

double simplex_mse(const Geometry& g, int d, double a, int m) {
  simplex_cosine(d);  // validates d before anything else
  validate_geometry(g, d);
  return gerf_block_mse(g, d, a, m, simplex_log_pair_moment(g.z_sq(), d, a));
}

}  // namespace favorlab
