#include "kernels/geometry.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

void validate_geometry(const Geometry& g, int d) {
  auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
  if (!std::isfinite(g.x_norm) || g.x_norm < 0) bad("norm of x must be finite and >= 0, got " + std::to_string(g.x_norm));
  if (!std::isfinite(g.y_norm) || g.y_norm < 0) bad("norm of y must be finite and >= 0, got " + std::to_string(g.y_norm));
  if (!std::isfinite(g.cos_angle) || std::abs(g.cos_angle) > 1)
    bad("cosine must lie in [-1, 1], got " + std::to_string(g.cos_angle));
  if (d == 1 && std::abs(g.cos_angle) != 1) bad("in dimension d = 1 the cosine must be -1 or 1");
}

Eigen::VectorXd geometry_x(const Geometry& g, int d) {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(d);
  x(0) = g.x_norm;
  return x;
}

Eigen::VectorXd geometry_y(const Geometry& g, int d) {
  Eigen::VectorXd y = Eigen::VectorXd::Zero(d);
  y(0) = g.y_norm * g.cos_angle;
  if (d > 1) y(1) = g.y_norm * std::sqrt(std::max(0.0, 1 - g.cos_angle * g.cos_angle));
  return y;
}

}  // namespace favorlab
