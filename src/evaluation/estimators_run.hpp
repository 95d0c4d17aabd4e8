#pragma once
// `favorlab estimators`: which random-feature estimator of SM(x, y) = exp(xᵀy) is best, and does its theory hold. At
// every point of a grid of ‖x‖, ‖y‖, cos and d (m = d), every family × coupling gets its exact MSE where a closed form
// exists (features/family_theory.hpp) and its Monte Carlo MSE. Checks:
//   1. each closed form = Monte Carlo (equality within the stated margin; heavy-tailed points inconclusive), its α
//      split over the points whose z interval is reliable by the last look;
//   2. OPRF ≤ positive, on the exact values, for each coupling with closed forms (oprf minimises the variance over
//      its family, which contains positive features at A = 0: it must hold at every point);
//   3. simplex ≤ orthogonal, on the exact values, for positive and oprf features (Reid et al. 2023);
//   4. SDERF ≤ OPRF with iid rows, on the exact values (Likhosherstov et al. 2023);
//   5. check 1 again by importance sampling for positive and hyperbolic features (mc/importance_coupled.hpp), whose
//      plain squared errors are too skewed at most points: "..., importance-sampled", and the two combined point by
//      point: "..., plain or importance-sampled" (stats/either_check.hpp).
// With looks in the context the plain points that neither method settled get looks of doubling size
// (mc/sequential_looks.hpp); the importance-sampled runs come first so that the looks skip the points they settled.
#include <cstdint>
#include <vector>

#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/run_context.hpp"
#include "results/result.hpp"

namespace favorlab {

struct EstimatorsGrid {
  std::vector<int> dims;                      // m = d at each
  std::vector<std::vector<Geometry>> points;  // per d, validated for it
  std::vector<Family> estimators;
  std::vector<Coupling> couplings;
  FeatureParameters parameters;
  double alpha = 1e-3;
  std::int64_t importance_trials = 0;  // per point of check 5 (0: none)
};

struct EstimatorsOutcome {
  LookRecord looks;              // where each cell's looks stopped: the caller reports them
  std::int64_t evaluations = 0;  // estimator evaluations of every sweep
};

// Runs every sweep (progress: the pilots, then the importance-sampled runs; each look reports its own draws) and adds
// the rows and checks to `result`.
EstimatorsOutcome run_estimators(const EstimatorsGrid& grid, const RunContext& ctx, Result& result);

}  // namespace favorlab
