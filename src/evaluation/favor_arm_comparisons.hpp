#pragma once
// The paired checks of `favorlab attention-error` (Performers Fig. 4), with looks: "arm A has lower output MSE than
// arm B on most inputs" at each m, judged by the exact sign test on the same inputs (stats/paired_check.hpp). With
// looks (mc/paired_looks.hpp) an open point gets more Gaussian inputs in looks of doubling size: input i is always
// gaussian_attention_input(…, seed, i) with projection draw i (favor_error_sweep.hpp), so a point's first n inputs at
// any look are the inputs of a fixed run of n, and each look's sign test is exact at its share of α. Only the two
// arms of an open point are computed on the new inputs (and the exact outputs of their mode).
#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "mc/paired_looks.hpp"

namespace favorlab {

// One check: at point j, arm low[j] below arm high[j] (indices into the arms), labelled labels[j].
struct ArmComparison {
  std::string claim, where;
  std::vector<std::size_t> low, high;
  std::vector<std::string> labels;
};

struct ArmLookSetup {
  const std::vector<AttentionConfig>* configs = nullptr;  // per arm
  GaussianInputShape shape;                               // the inputs the looks draw
  std::uint64_t seed = 0;
  int threads = 1;
  Backend backend = Backend::cpu;
  double alpha = 1e-3;  // family-wise, per check (Bonferroni over its points)
  LookPlan plan;        // max_looks = 1: a fixed run, every point judged at the whole α
  double pilot_seconds = 0;
  ProgressFn progress;
};

// mse[arm]: the pilot's per-input MSEs (every arm the same number of inputs, at least 2); the looks append their
// inputs to the arms they compute. Outcome points: the checks' points in order (check 0's, then check 1's, …).
// Throws std::invalid_argument on arms of unequal length or an index out of range.
PairedLookOutcome compare_arms(const std::vector<ArmComparison>& comparisons, std::vector<std::vector<double>>& mse,
                               const ArmLookSetup& setup);

}  // namespace favorlab
