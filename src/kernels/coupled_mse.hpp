#pragma once
// Exact MSE of a softmax-kernel estimator under a coupling of its m rows, wherever favorlab has a closed form:
//   iid          the family's own (feature_family.hpp: Lemma 2, GERF/OPRF, SDERF at the pair)
//   orthogonal   positive and smreg (kernels/orthogonal_mse.hpp), gerf and oprf (kernels/gerf_moments.hpp)
//   simplex      positive, gerf and oprf (kernels/simplex_moments.hpp)
// Blocks of d rows for m > d. Elsewhere (trig and hyperbolic with coupled rows, sderf with coupled rows, the
// structured couplings) there is none: std::nullopt, and the experiments report Monte Carlo alone.
#include <optional>

#include "features/feature_family.hpp"
#include "features/projection.hpp"
#include "kernels/geometry.hpp"

namespace favorlab {

std::optional<double> exact_mse(Family f, Coupling c, const Geometry& g, int d, int m,
                                const FeatureParameters& params = {});

}  // namespace favorlab
