#pragma once
// Lemma 2 (eq. 8): mean squared errors of the estimators with m iid Gaussian projections.
//   trig:       1/(2m) · exp(‖z‖²) SM^{−2} (1 − exp(−‖Δ‖²))²   (= exp(‖x‖²+‖y‖²)(1 − e^{−‖Δ‖²})²/(2m))
//   positive:   1/m · exp(‖z‖²) SM² (1 − exp(−‖z‖²))            (= SM² (e^{‖z‖²} − 1)/m)
//   hyperbolic: ½ (1 − exp(−‖z‖²)) · MSE(positive)
#include "kernels/geometry.hpp"

namespace favorlab {

double mse_trig(const Geometry& g, int m);
double mse_positive(const Geometry& g, int m);
double mse_hyperbolic(const Geometry& g, int m);

}  // namespace favorlab
