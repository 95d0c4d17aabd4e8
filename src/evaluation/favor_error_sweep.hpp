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

// first_index: the number of inputs[0] (its projection draw); inputs[i] uses draw first_index + i.
// Throws std::invalid_argument for no inputs, inputs of different shapes or a configuration the inputs do not fit.
std::vector<std::vector<double>> favor_output_mse(const std::vector<AttentionInput>& inputs,
                                                  const std::vector<AttentionConfig>& configs, std::uint64_t seed,
                                                  int threads, const ProgressFn& progress = {},
                                                  Backend backend = Backend::cpu, std::uint64_t first_index = 0);

// Gaussian inputs numbered first..first + count − 1 (input i: gaussian_attention_input(L, d, dv, qk_scale, v_scale,
// seed, i) with projection draw i): mse[c][i − first], the numbers favor_output_mse gives those inputs in any call,
// so a list extended input by input equals one computed at once. The inputs are made a chunk at a time (memory holds
// one chunk and its exact outputs). Throws as favor_output_mse, and on count < 0.
struct GaussianInputShape {
  int L = 0, d = 0, dv = 0;
  double qk_scale = 1, v_scale = 1;
};
std::vector<std::vector<double>> gaussian_output_mse(const GaussianInputShape& shape,
                                                     const std::vector<AttentionConfig>& configs, std::uint64_t seed,
                                                     std::int64_t first, std::int64_t count, int threads,
                                                     const ProgressFn& progress = {}, Backend backend = Backend::cpu);

}  // namespace favorlab
