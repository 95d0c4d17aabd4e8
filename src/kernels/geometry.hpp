#pragma once
// The geometry of a pair (x, y): every kernel formula (docs/theory.md#notation) depends on x and y only through
// ‖x‖, ‖y‖ and the cosine of their angle. Derived quantities: xᵀy, ‖z‖² = ‖x + y‖², ‖Δ‖² = ‖x − y‖²,
// log Λ = −(‖x‖² + ‖y‖²)/2.
#include <Eigen/Dense>

namespace favorlab {

struct Geometry {
  double x_norm = 0;
  double y_norm = 0;
  double cos_angle = 1;

  double dot() const { return x_norm * y_norm * cos_angle; }
  double z_sq() const { return x_norm * x_norm + y_norm * y_norm + 2 * dot(); }
  double delta_sq() const { return x_norm * x_norm + y_norm * y_norm - 2 * dot(); }
  double log_lambda() const { return -(x_norm * x_norm + y_norm * y_norm) / 2; }
};

// Throws std::invalid_argument when a norm is negative or non-finite, |cos| > 1, or d = 1 with |cos| ≠ 1.
void validate_geometry(const Geometry& g, int d);

// Concrete vectors in R^d with this geometry: x = ‖x‖ e₁, y = ‖y‖ (cos e₁ + sin e₂).
// The estimators' projection laws are rotation invariant, so the plane chosen does not matter.
Eigen::VectorXd geometry_x(const Geometry& g, int d);
Eigen::VectorXd geometry_y(const Geometry& g, int d);

}  // namespace favorlab
