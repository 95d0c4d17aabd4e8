#pragma once
// Output error of FAVOR attention against exact attention over many inputs and mechanisms (Performers Fig. 4,
// docs/theory.md#error-measures): mse[c][i] = output_mse(FAVOR_c(input i), exact(input i)), where configuration c runs
// on input i with projection draw i (draw_attention_projection(config, d, seed, i)) — every input gets its own draw, so
// the inputs are independent trials of (input, projection). The exact reference uses the configuration's causal and
// renormalize settings. A non-finite FAVOR output gives +∞ (attention_error.hpp).
// Work is split into (configuration, input) tasks on `threads` OpenMP threads, each task single-threaded and writing
// its own slot, so the numbers do not depend on the thread count. With Backend::cuda every forward (FAVOR and the exact
// reference) runs on the GPU in float32 (attend_double_on_backend), the tasks one after another on one host thread.
#include <cstdint>
#include <vector>

#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "features/feature_maps.hpp"
#include "mc/parallel_trials.hpp"

namespace favorlab {

struct AttentionInput {
  Eigen::MatrixXd q, k, v;  // L×d, L×d, L×dv (raw: the mechanisms scale Q and K by d^{-1/4})
};

// Synthetic input number `index`: Q and K with N(0, qk_scale²) entries, V with N(0, v_scale²) entries, each from its
// own stream of gaussian_input (random_inputs.hpp).
AttentionInput gaussian_attention_input(int L, int d, int dv, double qk_scale, double v_scale, std::uint64_t seed,
                                        std::uint64_t index);

// Throws std::invalid_argument for no inputs, inputs of different shapes or a configuration the inputs do not fit.
std::vector<std::vector<double>> favor_output_mse(const std::vector<AttentionInput>& inputs,
                                                  const std::vector<AttentionConfig>& configs, std::uint64_t seed,
                                                  int threads, const ProgressFn& progress = {},
                                                  Backend backend = Backend::cpu);

}  // namespace favorlab
