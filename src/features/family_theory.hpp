#pragma once
// A family's closed-form theory, picked through its row of the table (features/feature_family.hpp). The formulas live
// in kernels/ and take plain types (Geometry, d, m, PairGerf, RowNorms); the functions here choose them by family.
#include <optional>

#include "features/estimator.hpp"  // callers of these functions use the estimator engine beside them
#include "features/feature_family.hpp"
#include "features/projection.hpp"
#include "kernels/error_moments.hpp"
#include "kernels/geometry.hpp"

namespace favorlab {

// Central moments of the estimate's error with m iid rows, from the row's model of one feature (error_moments) at the
// row's pair form; throws std::invalid_argument for a family without a model (the generalized kernels).
ErrorMoments error_moments(Family f, const Geometry& g, int d, int m, const FeatureParameters& params = {});

// Exact MSE of a softmax-kernel estimator under a coupling of its m rows, wherever favorlab has a closed form:
//   iid          the row's iid_mse (Lemma 2, GERF/OPRF, SDERF at the pair)
//   orthogonal   the row's coupled_mse: positive and smreg (kernels/orthogonal_mse.hpp), gerf and oprf
//   simplex      (kernels/gerf_moments.hpp); positive, gerf and oprf (kernels/simplex_moments.hpp)
// Blocks of d rows for m > d. Elsewhere (trig and hyperbolic with coupled rows, sderf with coupled rows, the
// structured couplings) there is none: std::nullopt, and the experiments report Monte Carlo alone.
std::optional<double> exact_mse(Family f, Coupling c, const Geometry& g, int d, int m,
                                const FeatureParameters& params = {});

// The rows' coupled_mse for orthogonal and simplex rows. Isotropic gerf features in all d dimensions (positive at
// A = 0, gerf, oprf at the pair's optimum) have closed forms for both; sderf acts along x + y only (dimension 1 at a
// pair) and has none unless d = 1. Positive features over rows of norm √d (smreg): orthogonal rows only.
std::optional<double> isotropic_gerf_coupled_mse(Coupling c, const Geometry& g, int d, int m, const PairGerf& pair);
std::optional<double> regularized_coupled_mse(Coupling c, const Geometry& g, int d, int m, const PairGerf& pair);

// kernels/orthogonal_mse.hpp by family: its estimator is the positive map over rows of either norm law, i.e. the
// families on that map (positive: chi rows, smreg: √d rows); std::invalid_argument for any other family.
double iid_mse(Family f, const Geometry& g, int d, int m);
double orthogonal_mse(Family f, const Geometry& g, int d, int m);
double theorem2_claimed_bound(Family f, const Geometry& g, int d, int m);
double theorem2_corrected_bound(Family f, const Geometry& g, int d, int m);

}  // namespace favorlab
