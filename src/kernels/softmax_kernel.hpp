#pragma once
// SM(x, y) = exp(xᵀy) (eq. 6) and the Gaussian kernel K(x, y) = exp(−‖x − y‖²/2).
#include <cmath>

#include "kernels/geometry.hpp"

namespace favorlab {

inline double softmax_kernel(const Geometry& g) { return std::exp(g.dot()); }
inline double gaussian_kernel(const Geometry& g) { return std::exp(-g.delta_sq() / 2); }

}  // namespace favorlab
