#pragma once
// The CUDA backend of attend() (only in builds with FAVORLAB_CUDA=ON, which define FAVORLAB_HAVE_CUDA; everything
// else should go through attention/backend.hpp, which exists in every build).
//
// attend_cuda has attend()'s contract — per-head inputs, raw Q and K (scaled by d^{-1/4} inside), one projection W
// (m×d, double) for all heads, the same validation and std::invalid_argument messages — and computes in float32
// with float32 accumulation on CUDA device 0. The GPU draws nothing: W comes from the host
// (draw_attention_projection, whose orthogonal couplings need a QR), is rounded to float like the CPU's
// w.cast<float>(), and uploaded, so with the same seed the GPU and the CPU use the same features and agree to float32 rounding.
// Only T = float exists. Every head must have the same shapes (they are batched). A device failure throws
// std::runtime_error with the CUDA or cuBLAS error text; no device throws std::runtime_error too (check first with
// cuda_available() in backend.hpp).
#include <Eigen/Dense>

#include <string>

#include "attention/attend.hpp"
#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "attention/half_inputs.hpp"

namespace favorlab {

// Whether a CUDA device is present (cudaGetDeviceCount > 0); `reason` says why not, or names device 0.
bool cuda_device_present(std::string& reason);

// With `half` (half_inputs.hpp) Q, K and V are rounded to that 16-bit format on the host (rounded_to: W and a
// data-dependent family's statistics come from the rounded inputs, as on the CPU), uploaded as 16-bit patterns and
// widened exactly in the first kernels that read them; everything after is float32 as without.
template <class T>
Heads<T> attend_cuda(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                     const AttentionConfig& config, HalfInputs half = HalfInputs::off);

// attend_cuda on inputs checked at the caller's boundary and already rounded to `half` where it is not off: they are
// neither checked nor rounded again (only the batching's equal shapes and the device are).
Heads<float> attend_cuda(const AttentionInputs<float>& in, HalfInputs half);

// time_on_cuda's work (backend.hpp) after its availability check: validates like attend_cuda, uploads once, then
// times the device-resident forward. `half` only with CudaWork::attention (time_on_cuda refuses the others).
CudaTiming time_cuda(CudaWork work, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                     const Eigen::MatrixXd& w, const AttentionConfig& config, int repeats, HalfInputs half);

// The entry points above as a table: the module libfavorlab_cuda.so exports favorlab_cuda_module(), which the
// executable looks up with dlopen only when --backend cuda asks for the GPU (attention/backend.cpp), so that a
// CPU run never maps the CUDA libraries (they reserve far more address space than favorlab itself needs).
struct CudaModule {
  bool (*device_present)(std::string& reason);
  bool (*cudnn_built)(std::string& reason);  // cuDNN's fused attention is in this module (exact attention, bfloat16)
  Heads<float> (*attend)(const Heads<float>& q, const Heads<float>& k, const Heads<float>& v, const Eigen::MatrixXd& w,
                         const AttentionConfig& config, HalfInputs half);
  Heads<float> (*attend_inputs)(const AttentionInputs<float>& in, HalfInputs half);
  CudaTiming (*time)(CudaWork work, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                     const Eigen::MatrixXd& w, const AttentionConfig& config, int repeats, HalfInputs half);
};

}  // namespace favorlab

// The module's one exported name; the same compiler builds both sides, so the table's C++ types match.
extern "C" const favorlab::CudaModule* favorlab_cuda_module();
