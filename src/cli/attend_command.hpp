#pragma once
// `favorlab attend`: one attention mechanism on a user's .npy Q, K, V (and optionally W); writes the output (and
// optionally the attention matrix and the projection used) as .npy. The building block for a user's own pipeline
// and for comparisons with other implementations given the same W.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "attention/attention_config.hpp"

namespace favorlab {

struct AttendOptions {
  std::string q, k, v, w;              // input files (w optional)
  std::string out, matrix, save_w;     // output files (matrix, save_w optional)
  std::string mechanism = "favor", features = "positive", coupling = "orthogonal", dtype;  // dtype "" = from inputs
  std::string backend = "cpu";
  std::string half_inputs = "off";     // off, float16, bfloat16 (attention/half_inputs.hpp)
  std::string precision = "float32";   // FAVOR's products on the GPU (attention/product_precision.hpp)
  std::string max_memory;              // "" = the memory available (runtime/memory_budget.hpp)
  int m = 256, threads = 0;
  int chunk = 0;                       // when chunk_given is false: the backend's default (default_chunk)
  bool chunk_given = false;
  double kernel_epsilon = 1e-3;
  double gerf_a = FeatureParameters{}.gerf_a;
  bool causal = false, no_renormalize = false, no_stabilizer = false, no_projection = false, quiet = false;
  std::uint64_t seed = 2021, draw = 0;
};

void add_attend_options(CLI::App& app, AttendOptions& options);

// Runs the command; throws std::invalid_argument (bad input, naming the file and the problem) or OutputError.
void run_attend(const AttendOptions& options);

}  // namespace favorlab
