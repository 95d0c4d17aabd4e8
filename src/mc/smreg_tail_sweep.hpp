#pragma once
// Monte Carlo exceedance counts of the regularized positive estimator SMREG^+_m (rows of norm √d), for Theorem 3.
// Each trial draws ONE projection of max(ms) rows for the coupling (iid: √d·g/‖g‖; orthogonal: orthogonal rows of
// norm √d), and for every geometry and every m in `ms` (its first m rows) computes
//   estimate = Λ · (1/m) Σ_{i≤m} exp(ω_iᵀz),  z = x + y
// (the positive-feature estimate φ(x)ᵀφ(y) written through z), then counts estimate > a for every threshold of that
// geometry. Common random numbers across m, geometries and thresholds; each count is an exact binomial count.
// Trial t draws from PhiloxStream(seed, stream, t) and trials are reduced in a fixed order (run_parallel_trials), so
// the counts are identical for any thread count.
#include <cstdint>
#include <vector>

#include "features/projection.hpp"
#include "kernels/geometry.hpp"
#include "mc/parallel_trials.hpp"

namespace favorlab {

struct TailSweepConfig {
  int d = 16;
  Coupling coupling = Coupling::iid;
  std::vector<int> ms;                              // each in [1, d] when orthogonal rows are wanted in one block
  std::vector<Geometry> points;
  std::vector<std::vector<double>> thresholds;      // thresholds[p]: the a values of point p
  std::uint64_t seed = 2021;
  std::uint64_t stream = 0;
  std::int64_t trials = 1000;
  int threads = 1;
};

struct TailSweepResult {
  // exceed[(mi * points + p) * stride + k]: trials whose estimate (m = ms[mi], point p) exceeded thresholds[p][k];
  // stride is the largest number of thresholds of any point.
  std::vector<std::int64_t> exceed;
  std::vector<std::int64_t> nonfinite;  // [mi * points + p]: trials whose estimate was NaN or ±Inf
  std::size_t points = 0, stride = 0;
  std::int64_t trials = 0;
  double seconds = 0;

  std::int64_t exceed_count(std::size_t mi, std::size_t p, std::size_t k) const {
    return exceed[(mi * points + p) * stride + k];
  }
  std::int64_t nonfinite_count(std::size_t mi, std::size_t p) const { return nonfinite[mi * points + p]; }
};

// Throws std::invalid_argument (naming the option) for d ≤ 0, an empty or non-positive m list, m > d, an empty
// grid, a thresholds list that does not match the points, trials < 1, threads < 1, or a bad geometry.
TailSweepResult run_smreg_tail_sweep(const TailSweepConfig& config, const ProgressFn& progress = {});

}  // namespace favorlab
