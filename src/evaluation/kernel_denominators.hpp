#pragma once
// FAVOR's denominators and outputs for one feature configuration over draws of the projection W, against exact
// softmax attention on the same input (Performers Fig. 16 without training; docs/theory.md#favor-bidirectional).
// Per draw t, with W = draw_attention_projection(config, d, seed, first_draw + t):
//   the denominators D̂ = Q'((K')ᵀ1) as the engine forms them (favor_denominators.hpp): how many, how many are ≤ 0
//   and how many are NaN/±Inf, and over the finite ones the smallest D̂_i and the smallest D̂_i / D_i (D: the exact
//   row sums);
//   the output: its NaN/±Inf entries, and when every entry is finite its output_mse against exact attention
//   (attention_error.hpp), accumulated over draws in a RunningMoments.
// Draws run one task each (run_indexed_trials) on host_threads_for(backend, threads) threads and merge in draw order,
// so the figures do not depend on the thread count. Backend::cuda: D̂, D and both outputs in float32 on the GPU.
#include <cstdint>
#include <limits>

#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

struct DenominatorStats {
  double min_denominator = std::numeric_limits<double>::infinity();        // over finite D̂_i
  double min_denominator_ratio = std::numeric_limits<double>::infinity();  // min D̂_i / D_i over finite D̂_i
  std::int64_t nonpositive = 0, denominators = 0, nonfinite_denominators = 0;  // denominators: the finite ones
  std::int64_t nonfinite_outputs = 0, nonfinite_draws = 0;  // NaN/Inf output entries, and draws with any
  RunningMoments mse;                                       // output_mse of the draws with finite output
  void merge(const DenominatorStats& o);
};

// Exact softmax attention of an input (bidirectional, renormalized) and its row sums D = A 1.
struct ExactSoftmax {
  Eigen::MatrixXd output;
  Eigen::VectorXd denominators;
};
ExactSoftmax exact_softmax(const AttentionInput& input, Backend backend = Backend::cpu);

// The figures of one draw from its denominators and its output. Throws std::invalid_argument when their sizes differ
// from the reference's.
DenominatorStats denominator_stats(const Eigen::VectorXd& denominators, const Eigen::MatrixXd& output,
                                   const ExactSoftmax& exact);

// `draws` draws (≥ 0; std::invalid_argument otherwise), merged in draw order. `exact` is exact_softmax(input).
DenominatorStats favor_denominator_draws(const AttentionInput& input, const ExactSoftmax& exact,
                                         const AttentionConfig& config, std::uint64_t seed, std::uint64_t first_draw,
                                         std::int64_t draws, int threads, Backend backend = Backend::cpu,
                                         const ProgressFn& progress = {});

}  // namespace favorlab
