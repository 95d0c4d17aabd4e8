#pragma once
// Monte Carlo of the moments E[u₁^n], n = 1..max_power, of one coordinate of a uniform direction,
// u₁ = ωᵀe₁/‖ω‖ with ω ~ N(0, I_d): ω₁ a standard normal, ‖ω‖² = ω₁² + the squared norm of d − 1 more normals
// drawn as Box–Muller pairs, whose squared norm is exactly −2 log U (the pair's radius, without its angle). That is the
// definition of Lemma 3, not a shortcut through the Beta law of u₁², so the sample is independent of the formula it
// tests.
// Every power at one d comes from the same draws (common random numbers). Trial t at dimension d draws from
// PhiloxStream(seed, d, t): results do not depend on the thread count or on which other dimensions are swept.
#include <cstdint>
#include <vector>

#include "mc/parallel_trials.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

struct SphereMomentConfig {
  std::vector<int> dims;   // each ≥ 1, distinct
  int max_power = 12;      // powers 1..max_power
  std::uint64_t seed = 2021;
  std::int64_t trials = 1000;
  int threads = 1;
};

struct SphereMomentResult {
  std::vector<int> dims;
  int max_power = 0;
  std::vector<std::vector<RunningMoments>> moments;  // [dim index][power − 1]: running moments of u₁^power
  std::int64_t normal_draws = 0;   // coordinates of ω drawn (d per trial)
  double seconds = 0;
  const RunningMoments& at(std::size_t dim_index, int power) const {
    return moments[dim_index][static_cast<std::size_t>(power - 1)];
  }
};

// Throws std::invalid_argument for no dims, a dim < 1 or repeated, max_power < 1, trials < 2 or threads < 1.
SphereMomentResult run_sphere_moment_sweep(const SphereMomentConfig& config, const ProgressFn& progress = {});

}  // namespace favorlab
