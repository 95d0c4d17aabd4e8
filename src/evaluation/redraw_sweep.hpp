#pragma once
// Feature redrawing (Performers Fig. 15, `favorlab redraw`): the FAVOR output of one input under many independent
// projection draws, against its exact output. Draw r uses draw_attention_projection(config, d, seed, r):
//   • single draws r = 0..N−1: each draw's output MSE (output_mse: +∞ for a non-finite output), and its error
//     (output − exact) accumulated into `jackknife_blocks` blocks of consecutive draws (stats/bias_variance.hpp),
//     draws with a non-finite output left out of the blocks and counted;
//   • for each k ≥ 2 of `ks`, in order, `groups` groups of k fresh draws numbered on from N (so the k's are
//     independent of each other and of the single draws): the output MSE A of each group's average output, and the
//     group's mean cross product U = Σ_{j≠l} ⟨e_j, e_l⟩ / (k(k − 1)) of its draws' errors (⟨·,·⟩ the mean over the
//     entries), from which the redraw claims are judged (docs/theory.md#redrawing-averages-of-k-draws);
//   • for features that can be negative (renormalized), the first single draw whose normalizer D̂ has a negative
//     entry: the certificate that the output has no mean
//     (docs/theory.md#signed-features-the-renormalized-output-has-no-mean).
// One task per block or group on OpenMP threads, each writing its own slots in a fixed order: the numbers do not
// depend on the thread count. With Backend::cuda every forward runs on the GPU (attend_double_on_backend) from one
// host thread.
#include <Eigen/Dense>

#include <cstdint>
#include <vector>

#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/bias_variance.hpp"

namespace favorlab {

struct RedrawPlan {
  std::int64_t draws = 0;    // N single draws
  std::vector<int> ks;       // numbers of draws averaged; k = 1 stands for the single draws
  int groups = 0;            // groups per k ≥ 2
  int jackknife_blocks = 20;
};

// Forwards the plan runs: N + Σ_{k ≥ 2} k · groups.
std::int64_t redraw_forwards(const RedrawPlan& plan);

// A draw whose normalizer D̂ (attention/favor_denominators.hpp) has a negative entry: draw −1 when none was found.
struct NegativeNormalizer {
  std::int64_t draw = -1;
  Eigen::Index row = -1;
  double value = 0;
  bool found() const { return draw >= 0; }
};

struct RedrawSweep {
  std::vector<double> draw_mse;                  // per single draw
  std::vector<ErrorBlock> blocks;                // the single draws' errors, jackknife_blocks blocks
  std::int64_t nonfinite_draws = 0;              // single draws left out of the blocks
  std::vector<std::vector<double>> group_mse;    // per entry of plan.ks: the groups' MSEs A (empty for k = 1)
  std::vector<std::vector<double>> group_cross;  // per entry of plan.ks: the groups' cross products U (NaN: a
                                                 // non-finite output in the group; empty for k = 1)
  NegativeNormalizer negative;                   // signed features only: the first single draw with D̂_i < 0
};

// The first of draws 0..limit − 1 whose normalizer has a negative entry (the most negative entry of that draw). Only
// renormalized configurations with features that can be negative are scanned; others return none at no cost.
NegativeNormalizer first_negative_normalizer(const AttentionInput& in, const AttentionConfig& config,
                                             std::uint64_t seed, std::int64_t limit, Backend backend);

// `exact` is the exact output of `in` (rows × dv). Progress counts forwards out of redraw_forwards(plan).
// Throws std::invalid_argument naming the problem: jackknife_blocks < 1, draws < jackknife_blocks, a k < 1,
// groups < 1 with some k ≥ 2, an exact output of the wrong shape, or inputs the configuration does not fit.
RedrawSweep run_redraw_sweep(const AttentionInput& in, const Eigen::MatrixXd& exact, const AttentionConfig& config,
                             const RedrawPlan& plan, std::uint64_t seed, Backend backend, int threads,
                             const ProgressFn& progress = {});

}  // namespace favorlab
