#pragma once
// Where attention runs: the CPU engine (attend.hpp) or the optional CUDA backend (attention/cuda/, built when
// FAVORLAB_CUDA is ON). This header and its source exist in every build, so `--backend` can always be parsed and
// asking for CUDA where it cannot run fails with one clear message instead of a link error.
#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attention/attend.hpp"
#include "attention/attention_config.hpp"
#include "attention/half_inputs.hpp"

namespace favorlab {

enum class Backend { cpu, cuda };

std::string_view backend_name(Backend backend);
Backend parse_backend(std::string_view name);  // "cpu" or "cuda"; throws std::invalid_argument naming --backend

struct CudaAvailability {
  bool available = false;
  std::string reason;  // why not ("favorlab was built without CUDA (nvcc not found)", "no CUDA device present …"),
                       // or which device is used
};

// Built with CUDA AND a device present (cudaGetDeviceCount > 0).
CudaAvailability cuda_available();

// cuda_available() and, in the CUDA module, cuDNN's fused attention (exact attention in bfloat16); the reason names
// the cuDNN and frontend versions, or says why not.
CudaAvailability cudnn_available();

// Causal FAVOR's rows per chunk where the user gives none: the CPU's 48 (AttentionConfig's default, measured there)
// or the GPU's 512: each chunk costs a few kernel launches, so the GPU wants fewer, larger chunks
// (docs/performance.md#tried-and-dropped).
int default_chunk(Backend backend);

// Nothing for cpu; for cuda, throws std::invalid_argument("--backend cuda: " + reason) where cuda_available() is
// false. Experiments call it before any work, so a run that cannot use the GPU stops at once with one clear line.
void require_backend(Backend backend);

// attend<float>(q, k, v, w, config, threads) on the CPU, or attend_cuda<float>(q, k, v, w, config) on the GPU (threads
// unused there). Both use the given W (drawn on the host). Asking for cuda where cuda_available() is false throws
// std::invalid_argument("--backend cuda: " + reason). With `half` (half_inputs.hpp) both attend the inputs rounded to
// that 16-bit format (rounded_to), which the GPU also holds them in.
Heads<float> attend_on_backend(Backend backend, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                               const Eigen::MatrixXd& w, const AttentionConfig& config, int threads = 1,
                               HalfInputs half = HalfInputs::off);
// The same on inputs checked once at the caller's boundary and already rounded to `half` where it is not off (the
// command line rounds them itself, so that its output and attention matrix see the same values): nothing is checked,
// scanned or rounded again.
Heads<float> attend_on_backend(Backend backend, const AttentionInputs<float>& in, int threads = 1,
                               HalfInputs half = HalfInputs::off);

// Attention for the experiments, whose inputs, references and error measures are in double: attend<double> on the
// CPU; on the GPU attend_cuda in float32 (the inputs rounded to float, the output widened back: the CUDA backend's
// precision). `threads` is the CPU's; the GPU path runs on the calling thread (call it from one host thread at a time).
Heads<double> attend_double_on_backend(Backend backend, const Heads<double>& q, const Heads<double>& k,
                                       const Heads<double>& v, const Eigen::MatrixXd& w,
                                       const AttentionConfig& config, int threads = 1);

// The precision a backend computes attention in: "float64" (cpu, through attend_double_on_backend) or "float32".
std::string_view backend_precision(Backend backend);

// OpenMP threads for a loop whose iterations call attend_double_on_backend: `threads` on the CPU, 1 on the GPU
// (one host thread drives the device; the cuBLAS handle is shared).
int host_threads_for(Backend backend, int threads);

// What `favorlab speed --backend cuda` times on the device, the inputs already resident there.
enum class CudaWork {
  attention,       // attend_cuda's forward for the configuration (exact or FAVOR, bidirectional or causal)
  favor_products,  // the four products of bidirectional FAVOR alone, m = config.m feature columns: FAVOR's floor
  copy,            // the output is a copy of V: the floor of any attention layer
};

struct CudaTiming {
  std::vector<double> seconds;  // device time of each timed repeat (CUDA events around the whole forward)
  std::int64_t peak_bytes = 0;  // device bytes one forward allocated above its inputs, output included (favorlab's
                                // own buffers; cuBLAS's internal workspace is not counted)
  double first = 0;             // the output's first entry
};

// One untimed warm-up forward, then `repeats` timed ones, on float32 heads of equal shapes — held on the device in
// the 16-bit format `half` where it is not off (CudaWork::attention only: the products and the copy are float32
// floors). Throws std::invalid_argument("--backend cuda: …") where CUDA is unavailable, and attend()'s messages for
// bad inputs.
CudaTiming time_on_cuda(CudaWork work, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                        const Eigen::MatrixXd& w, const AttentionConfig& config, int repeats,
                        HalfInputs half = HalfInputs::off);

}  // namespace favorlab
