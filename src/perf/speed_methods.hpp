#pragma once
// The attention methods `favorlab speed` times (Performers paper, Fig. 3), one table entry each; add a mechanism
// here and the sweep, the rows and the targets pick it up by name:
//   exact softmax attention (the tiled kernel, bidirectional and causal, and the naive reference kernel for the
//   tiles' gain), FAVOR bidirectional and causal (positive features; oprf and sderf after their prepared projection),
//   PermuteFormer bidirectional and causal (1-D, r = 1, a random π per head), identity "X(OPT)" (returns V: the floor
//   of any attention layer) and gemm (the four bare products of bidirectional FAVOR in its own block structure,
//   perf/favor_products.hpp: the floor of FAVOR itself); on the device also FAVOR with its inputs held as float16 or
//   bfloat16 (attention/half_inputs.hpp).
// Each method has a CPU forward, a device timing (attention/backend.hpp: time_on_cuda), or both.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attention/attend.hpp"
#include "attention/backend.hpp"
#include "attention/half_inputs.hpp"

namespace favorlab {

// A shape of the sweep: "regular" (8 heads) or "small" (1 head).
struct SpeedShape {
  std::string name;
  int heads = 1;
};

// Inputs of one (shape, L): per head Q, K, V (L×d, float32, drawn in double), and W (m×d, the default coupling).
struct SpeedInputs {
  Heads<float> q, k, v;
  Eigen::MatrixXd w;
};

// Input number h of streams 0x5EED'0001..3 for Q, K, V, and W drawn with draw_attention_projection (index 0).
SpeedInputs make_speed_inputs(int heads, int l, int d, int m, std::uint64_t seed);

struct SpeedMethod {
  std::string name;
  bool quadratic = false;  // time grows like L² (used only to predict when to stop)
  // One forward pass on the CPU; returns a number from the output so the work cannot be optimized away. Empty: the
  // method does not run on the CPU.
  std::function<double(const SpeedInputs&, const AttentionConfig& favor, int threads)> run;
  // The method on the GPU (time_on_cuda's work and configuration); empty: no device implementation.
  std::function<CudaTiming(const SpeedInputs&, const AttentionConfig& favor, int repeats)> cuda;
  HalfInputs half = HalfInputs::off;  // the format the device holds Q, K, V in (their bytes in the memory ratio)
  bool needs_cudnn = false;           // the device method is cuDNN's fused attention (absent from some builds)

  bool runs_on(Backend backend) const {
    if (backend == Backend::cpu) return bool(run);
    return bool(cuda) && (!needs_cudnn || cudnn_available().available);
  }
};

// The table, in the order the sweep interleaves them.
const std::vector<SpeedMethod>& speed_methods();

// Throws std::invalid_argument naming the method when the table has none of that name.
const SpeedMethod& speed_method_named(const std::string& name);

// Bytes of one forward's inputs (Q, K and V: float32, or 16-bit where `half`) and of its output (float32).
double speed_input_bytes(int heads, int l, int d, HalfInputs half = HalfInputs::off);
double speed_output_bytes(int heads, int l, int d);

// The memory model (perf/memory_estimate.hpp) of the largest CPU forward in the table at (heads, L, d = dv, m) on
// `threads` threads: exact (a 128 × 256 logits tile per thread; its naive reference 128 × L), FAVOR bidirectional and
// causal (`chunk` rows per chunk), PermuteFormer bidirectional and causal.
double speed_forward_bytes(double heads, double l, double d, double m, double chunk, double threads);

}  // namespace favorlab
