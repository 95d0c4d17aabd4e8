// Exact softmax attention on the GPU (cuda_kernels.hpp; the CPU's exact_attention.hpp): a tiled kernel with an
// online softmax, so no L×L matrix ever exists. A block takes kQueryTile queries of one head and walks the keys in
// tiles held in shared memory; each query keeps its running maximum logit, the running sum of exp(logit − max) and
// the running weighted sum of values, rescaled by exp(max_old − max_new) whenever the maximum grows. Causal blocks
// stop at their last query and mask later keys, so no output reads a later key. float32 throughout (16-bit inputs
// are widened as they are loaded).
#include <algorithm>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include "attention/cuda/cuda_kernels.hpp"
#include "attention/cuda/cuda_support.cuh"

namespace favorlab::cuda_detail {

namespace {

constexpr int kQueryTile = 16;
constexpr int kExactThreads = 128;  // 4 warps; multiple of 32 (the row loop gives one warp per query)

// Floats of dynamic shared memory for a key tile of `keys` rows (keys are padded by one float per row so that the
// threads of a warp, which read different keys at the same column, hit different banks).
std::size_t exact_shared_floats(int d, int dv, int keys) {
  return std::size_t(kQueryTile) * d + std::size_t(keys) * (d + 1) + std::size_t(keys) * dv +
         std::size_t(kQueryTile) * keys + std::size_t(kQueryTile) * dv + 3 * std::size_t(kQueryTile);
}

__device__ float warp_max(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}
__device__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

template <class In>
__global__ void exact_attention_kernel(const In* q, const In* k, const In* v, float* out, int lq, int lk,
                                       int d, int dv, int key_tile, float logit_scale, bool causal,
                                       bool renormalize) {
  extern __shared__ float shared[];
  const int kd = d + 1;                                  // padded key row
  float* qs = shared;                                    // kQueryTile × d
  float* ks = qs + kQueryTile * d;                       // key_tile × (d + 1)
  float* vs = ks + key_tile * kd;                        // key_tile × dv
  float* weights = vs + key_tile * dv;                   // kQueryTile × key_tile: logits, then exp(logit − max)
  float* acc = weights + kQueryTile * key_tile;          // kQueryTile × dv: Σ exp(logit − max) v
  float* row_max = acc + kQueryTile * dv;                // running maximum logit
  float* row_sum = row_max + kQueryTile;                 // Σ exp(logit − max)
  float* row_rescale = row_sum + kQueryTile;             // exp(max_old − max_new) of the current tile

  const int t = int(threadIdx.x), lane = t % 32, warp = t / 32, warps = int(blockDim.x) / 32;
  const std::size_t head = blockIdx.y;
  const int first = int(blockIdx.x) * kQueryTile, rows = min(kQueryTile, lq - first);
  q += head * std::size_t(lq) * d + std::size_t(first) * d;
  k += head * std::size_t(lk) * d;
  v += head * std::size_t(lk) * dv;
  out += head * std::size_t(lq) * dv + std::size_t(first) * dv;

  for (int e = t; e < rows * d; e += int(blockDim.x)) qs[e] = widened(q[e]);
  for (int e = t; e < rows * dv; e += int(blockDim.x)) acc[e] = 0.0f;
  for (int i = t; i < kQueryTile; i += int(blockDim.x)) {
    row_max[i] = -INFINITY;
    row_sum[i] = 0.0f;
  }
  __syncthreads();

  const int key_end = causal ? min(lk, first + rows) : lk;  // a causal block never reads later keys
  for (int k0 = 0; k0 < key_end; k0 += key_tile) {
    const int keys = min(key_tile, key_end - k0);
    for (int e = t; e < keys * d; e += int(blockDim.x))
      ks[(e / d) * kd + e % d] = widened(k[std::size_t(k0) * d + e]);
    for (int e = t; e < keys * dv; e += int(blockDim.x)) vs[e] = widened(v[std::size_t(k0) * dv + e]);
    __syncthreads();
    for (int e = t; e < rows * keys; e += int(blockDim.x)) {
      const int i = e / keys, j = e % keys;
      float dot = 0.0f;
      for (int c = 0; c < d; ++c) dot += qs[i * d + c] * ks[j * kd + c];
      const bool later = causal && k0 + j > first + i;
      weights[i * key_tile + j] = later ? -INFINITY : dot * logit_scale;
    }
    __syncthreads();
    for (int i = warp; i < rows; i += warps) {  // one warp per query row
      float top = -INFINITY;
      for (int j = lane; j < keys; j += 32) top = fmaxf(top, weights[i * key_tile + j]);
      const float old_max = row_max[i];
      const float new_max = fmaxf(old_max, warp_max(top));
      float sum = 0.0f;
      for (int j = lane; j < keys; j += 32) {
        const float logit = weights[i * key_tile + j];
        const float p = logit == -INFINITY ? 0.0f : expf(logit - new_max);
        weights[i * key_tile + j] = p;
        sum += p;
      }
      sum = warp_sum(sum);
      __syncwarp();  // every lane has read row_max[i] before lane 0 overwrites it (a shuffle is no memory fence)
      if (lane == 0) {
        const float rescale = old_max == -INFINITY ? 0.0f : expf(old_max - new_max);
        row_sum[i] = row_sum[i] * rescale + sum;
        row_max[i] = new_max;
        row_rescale[i] = rescale;
      }
    }
    __syncthreads();
    for (int e = t; e < rows * dv; e += int(blockDim.x)) {
      const int i = e / dv, c = e % dv;
      float a = acc[e] * row_rescale[i];
      for (int j = 0; j < keys; ++j) a += weights[i * key_tile + j] * vs[j * dv + c];
      acc[e] = a;
    }
    __syncthreads();  // the next tile overwrites ks, vs and weights
  }
  for (int e = t; e < rows * dv; e += int(blockDim.x)) {
    const int i = e / dv;
    out[e] = renormalize ? acc[e] / row_sum[i] : acc[e] * expf(row_max[i]);
  }
}

// The tiled kernel on device-resident q, k, v (one format: In); returns the output (heads×lq×dv).
template <class In>
DeviceBuffer exact_forward(const Shape& s, bool causal, bool renormalize, float logit_scale, const In* q, const In* k,
                           const In* v) {
  int device = 0, optin = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "cudaDeviceGetAttribute");
  // The widest key tile whose working set fits the block's shared memory (48 KiB without opting in, more with).
  int key_tile = 64;
  while (key_tile > 8 && exact_shared_floats(s.d, s.dv, key_tile) * sizeof(float) > std::size_t(optin)) key_tile /= 2;
  const std::size_t shared_bytes = exact_shared_floats(s.d, s.dv, key_tile) * sizeof(float);
  if (shared_bytes > std::size_t(optin))
    throw std::runtime_error("the CUDA exact-attention kernel needs " + std::to_string(shared_bytes) +
                             " bytes of shared memory for d = " + std::to_string(s.d) + ", dv = " +
                             std::to_string(s.dv) + " (device limit " + std::to_string(optin) + ")");
  check_cuda(cudaFuncSetAttribute(exact_attention_kernel<In>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(shared_bytes)),
             "cudaFuncSetAttribute");
  DeviceBuffer result(std::size_t(s.heads) * s.lq * s.dv);
  const dim3 grid(unsigned((s.lq + kQueryTile - 1) / kQueryTile), unsigned(s.heads));
  exact_attention_kernel<<<grid, kExactThreads, shared_bytes>>>(q, k, v, result.get(), s.lq, s.lk, s.d, s.dv,
                                                                key_tile, logit_scale, causal, renormalize);
  check_launch("exact_attention_kernel");
  return result;
}

// The raw inputs on the device, in their format.
struct ExactInputs : DeviceQkv {
  using DeviceQkv::DeviceQkv;

  // The forward on these inputs, the kernel instantiated for their element type.
  DeviceBuffer forward(const Shape& s, bool causal, bool renormalize, float logit_scale) const {
    std::optional<DeviceBuffer> out;
    q.visit([&](const auto* qd) {
      using In = std::remove_cv_t<std::remove_pointer_t<decltype(qd)>>;
      out.emplace(exact_forward(s, causal, renormalize, logit_scale, qd, k.data<In>(), v.data<In>()));
    });
    return std::move(*out);
  }
};

}  // namespace

void exact_attention_device(const Shape& s, bool causal, bool renormalize, float logit_scale,
                            const HostInputs& inputs, float* out) {
  const ExactInputs in(s, inputs);
  in.forward(s, causal, renormalize, logit_scale).download(out);
  check_cuda(cudaGetLastError(), "exact_attention_device");
}

DeviceTiming time_exact_device(const Shape& s, bool causal, bool renormalize, float logit_scale,
                               const HostInputs& inputs, int repeats) {
  const ExactInputs in(s, inputs);
  return time_forward(repeats, [&] { return in.forward(s, causal, renormalize, logit_scale); });
}

}  // namespace favorlab::cuda_detail
