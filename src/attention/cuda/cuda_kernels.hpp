#pragma once
// The raw interface between the host wrapper (cuda_attention.cpp: Eigen, validation) and the CUDA sources (*.cu: no
// Eigen, no favorlab headers, so nvcc never compiles them). Arrays live on the host, float32 (Q, K, V also 16-bit:
// HostInputs), row-major, heads stacked: q is heads×lq×d, k is heads×lk×d, v is heads×lk×dv, w is m×d, out is
// heads×lq×dv. Each call copies in, computes on the current device, copies out, and throws std::runtime_error with the
// CUDA or cuBLAS error text on failure. Inputs are assumed valid (the wrapper ran check_attention_inputs). The time_*
// functions upload once, then time the device-resident forward (time_forward in cuda_support.cuh).
#include <cstddef>
#include <string>
#include <vector>

#include "features/feature_map_code.hpp"

namespace favorlab::cuda_detail {

// The feature maps of attention_features.hpp, by their codes in the family table (features/feature_map_code.hpp).
using FeatureCode = ::favorlab::FeatureMapCode;

struct Shape {
  int heads = 0, lq = 0, lk = 0, d = 0, dv = 0;
};

// Q, K and V on the host, in the format they are held in on the device: float32 arrays, or the 16-bit patterns of
// float16 / bfloat16 arrays (io/half_float.hpp; the same layouts, two bytes an entry), which the first kernels that
// read them widen to float exactly.
enum class InputFormat { float32, float16, bfloat16 };
struct HostInputs {
  InputFormat format = InputFormat::float32;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
};

// The format FAVOR's products take their operands in (attention/product_precision.hpp), sums in float32 either way:
// float32 on the CUDA cores; tf32 and bfloat16 on the tensor cores.
enum class ProductFormat { float32, tf32, bfloat16 };

struct FavorOptions {
  FeatureCode feature = FeatureCode::positive;
  bool softmax = true;          // softmax-kernel features: a log scale per row (attention_features.hpp)
  int m = 0;                    // rows of W; 0 for a generalized kernel without projection (features f(u) + ε_k)
  int columns = 0;              // feature columns: 2m (trig, hyperbolic), m, or d without projection
  bool causal = false, renormalize = true, stabilizer = true;
  int chunk = 128;              // causal: rows per chunk
  float kernel_epsilon = 0;     // ε_k, generalized kernels only
  float input_scale = 1;        // d^{-1/4}, computed by the caller exactly as the CPU does
  // The shifted positive map (gerf, oprf, sderf): w is heads×m×d, one prepared W' per head, and `offsets` (heads×m)
  // are added to U W'ᵀ before the positive map (prepared_projection.hpp).
  bool per_head_projection = false;
  ProductFormat products = ProductFormat::float32;
};

// What time_forward measured: device seconds of each timed repeat, the device bytes one forward allocated above the
// inputs (output included; favorlab's buffers only, not cuBLAS's workspace), and the output's first entry.
struct DeviceTiming {
  std::vector<double> seconds;
  std::size_t peak_bytes = 0;
  float first = 0;
};

void favor_attention_device(const Shape& shape, const FavorOptions& options, const HostInputs& inputs,
                            const float* w, float* out, const float* offsets = nullptr);

DeviceTiming time_favor_device(const Shape& shape, const FavorOptions& options, const HostInputs& inputs,
                               const float* w, int repeats, const float* offsets = nullptr);

// The floor of bidirectional FAVOR: its four products alone, batched over heads as favor_attention_device does them
// (P_q = Q Wᵀ, P_k = K Wᵀ, S = P_kᵀ [V, 1], N = P_q S), m feature columns, with no feature map, scaling or division;
// [V, 1] is built before the timing. `format` as FavorOptions::products (the floor of FAVOR in that format).
DeviceTiming time_favor_products_device(const Shape& shape, int m, const float* q, const float* k, const float* v,
                                        const float* w, int repeats, ProductFormat format = ProductFormat::float32);

// The floor of any attention layer on the device: the output is a copy of V (device to device).
DeviceTiming time_copy_device(const Shape& shape, const float* v, int repeats);

// Exact softmax attention; logit_scale = 1/√d, computed by the caller exactly as the CPU does.
void exact_attention_device(const Shape& shape, bool causal, bool renormalize, float logit_scale,
                            const HostInputs& inputs, float* out);

DeviceTiming time_exact_device(const Shape& shape, bool causal, bool renormalize, float logit_scale,
                               const HostInputs& inputs, int repeats);

// Exact softmax attention in bfloat16 through cuDNN's fused attention (cudnn_attention.cu): Q, K, V rounded to
// bfloat16 on the device, float32 softmax and sums, the output stored in bfloat16 and widened. Throws
// std::runtime_error in a build without cuDNN (cudnn_attention_built says why) or where cuDNN refuses the shape.
void exact_attention_cudnn(const Shape& shape, bool causal, float logit_scale, const HostInputs& inputs, float* out);
DeviceTiming time_exact_cudnn(const Shape& shape, bool causal, float logit_scale, const HostInputs& inputs,
                              int repeats);

// Whether this build has cuDNN's fused attention; `reason` names the versions, or says why not.
bool cudnn_attention_built(std::string& reason);

// Whether a CUDA device can be used; `reason` says why not (or names device 0).
bool cuda_device_present(std::string& reason);

}  // namespace favorlab::cuda_detail
