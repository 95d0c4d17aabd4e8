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
#include "evaluation/favor_error_summary.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "mc/paired_looks.hpp"
#include "mc/run_context.hpp"
#include "results/result.hpp"

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

// The pilot: each arm's configuration and per-input output MSE (timed, for the looks' cost model), and per mode
// (0 bidirectional, 1 causal, for the modes in causal_modes) the baselines of the exact outputs (double, CPU).
struct PilotErrors {
  std::vector<AttentionConfig> configs;
  std::vector<std::vector<double>> mse;
  double seconds = 0;
  std::vector<OutputBaseline> baselines[2];
};
// `precision`: the format of FAVOR's products (cuda backend only; the exact baselines stay float32).
PilotErrors measure_favor_arms(const std::vector<FavorArm>& arms, const std::vector<AttentionInput>& inputs,
                               const std::vector<bool>& causal_modes, Backend backend, const RunContext& ctx,
                               ProductPrecision precision = ProductPrecision::float32);

// The two checks of Fig. 4, in order, with each one's row-key prefix in `prefixes`: (1) "vs_iid", orthogonal below
// iid per (mode, feature map), where both couplings run; (2) "vs_trig", positive below trig per (mode, coupling),
// where both feature maps run. modes: "bidirectional" or "causal", as given.
std::vector<ArmComparison> fig4_comparisons(const std::vector<FavorArm>& arms, const std::vector<Family>& features,
                                            const std::vector<Coupling>& couplings,
                                            const std::vector<std::string>& modes, const ArmInputs& inputs,
                                            const std::vector<int>& ms, std::vector<std::string>& prefixes);

// Each comparison's verdicts into its low arm's rows (<prefix>_ratio, _median_ratio, _pairs, _above, _p_violated,
// _p_holds, _status, and with looks _look and _inputs), and its check into `result`.
void add_arm_verdicts(Result& result, std::vector<Json>& rows, const std::vector<ArmComparison>& comparisons,
                      const std::vector<std::string>& prefixes, const PairedLookOutcome& outcome, bool sequential);

// mse[arm]: the pilot's per-input MSEs (every arm the same number of inputs, at least 2); the looks append their
// inputs to the arms they compute. Outcome points: the checks' points in order (check 0's, then check 1's, …).
// Throws std::invalid_argument on arms of unequal length or an index out of range.
PairedLookOutcome compare_arms(const std::vector<ArmComparison>& comparisons, std::vector<std::vector<double>>& mse,
                               const ArmLookSetup& setup);

}  // namespace favorlab
