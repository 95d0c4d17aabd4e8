// Exact attention in bfloat16 on the GPU through cuDNN's fused attention (flash): the cuDNN frontend's SDPA graph on
// Q, K, V rounded to bfloat16 (by favorlab's kernel, to nearest even), float32 softmax and accumulation, the output
// in bfloat16 and widened to float. Its error bound: attention/reduced_precision_exact.hpp with gpu_rounding_of and
// one rescale per key at most (docs/gpu.md#reduced-precision). In a build without cuDNN (FAVORLAB_HAVE_CUDNN unset:
// cmake/cudnn_attention.cmake says why) the entry points report that instead.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "attention/cuda/cuda_support.cuh"

#ifdef FAVORLAB_HAVE_CUDNN
#include <dlfcn.h>

#include <cudnn_frontend.h>  // with NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING: cuDNN and NVRTC are opened when used

// The frontend's handle of libcudnn, opened by cudnn_library() below: the module itself links no cuDNN, so a machine
// whose loader cannot find it keeps every other GPU path and is told why this one is missing.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}
#endif

namespace favorlab::cuda_detail {

#ifdef FAVORLAB_HAVE_CUDNN

namespace {

namespace fe = cudnn_frontend;

// libcudnn.so.9 from the loader's path, else where the build found it. Opened once; "" or why it could not be.
const std::string& cudnn_library() {
  static const std::string why = [] {
    std::string errors;
    for (const char* name : {"libcudnn.so.9", FAVORLAB_CUDNN_LIBRARY}) {
      fe::cudnn_dlhandle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
      if (fe::cudnn_dlhandle != nullptr) return std::string();
      const char* error = dlerror();
      errors += std::string(errors.empty() ? "" : "; ") + (error != nullptr ? error : name);
    }
    return "cannot load cuDNN (" + errors + ")";
  }();
  return why;
}

constexpr unsigned kThreads = 256;
constexpr fe::graph::Tensor_attributes::uid_t kQ = 1, kK = 2, kV = 3, kO = 4;

void check_fe(fe::error_t status, const char* what) {
  if (status.is_bad()) throw std::runtime_error(std::string("cuDNN error in ") + what + ": " + status.get_message());
}

// One cuDNN handle per process, never destroyed (as cublas_handle: a static destructor may run after the runtime).
cudnnHandle_t cudnn_handle() {
  static std::mutex mutex;
  static cudnnHandle_t handle = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (handle == nullptr) {
    if (!cudnn_library().empty()) throw std::runtime_error(cudnn_library());
    const cudnnStatus_t status = fe::detail::create_handle(&handle);
    if (status != CUDNN_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuDNN error in cudnnCreate: ") + fe::detail::get_error_string(status));
  }
  return handle;
}

// The graph of one shape: Q (1, heads, lq, d), K and V (1, heads, lk, d|dv), O (1, heads, lq, dv), row-major per head
// as favorlab holds them; bfloat16 in and out, float32 inside; no statistics (inference).
struct Sdpa {
  std::shared_ptr<fe::graph::Graph> graph;
  std::int64_t workspace = 0;
};

std::shared_ptr<fe::graph::Tensor_attributes> input(fe::graph::Graph& g, const char* name,
                                                    fe::graph::Tensor_attributes::uid_t uid, int heads, int rows,
                                                    int columns) {
  const std::int64_t h = heads, l = rows, c = columns;
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({1, h, l, c})
                      .set_stride({h * l * c, l * c, c, 1})
                      .set_data_type(fe::DataType_t::BFLOAT16));
}

Sdpa build_sdpa(const Shape& s, bool causal, float logit_scale) {
  Sdpa out{std::make_shared<fe::graph::Graph>()};
  fe::graph::Graph& g = *out.graph;
  g.set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const auto q = input(g, "Q", kQ, s.heads, s.lq, s.d), k = input(g, "K", kK, s.heads, s.lk, s.d);
  const auto v = input(g, "V", kV, s.heads, s.lk, s.dv);
  auto attributes =
      fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(false).set_attn_scale(logit_scale);
  if (causal) attributes.set_causal_mask(true);  // query i takes keys j ≤ i (lq = lk: the top-left diagonal)
  auto [o, stats] = g.sdpa(q, k, v, attributes);
  (void)stats;
  const std::int64_t h = s.heads, l = s.lq, c = s.dv;
  o->set_output(true).set_uid(kO).set_dim({1, h, l, c}).set_stride({h * l * c, l * c, c, 1}).set_data_type(
      fe::DataType_t::BFLOAT16);
  cudnnHandle_t handle = cudnn_handle();
  // A shape cuDNN cannot run (d not a multiple of 8, too large, this GPU) is the user's input, not a failure: one
  // line naming the shape (std::invalid_argument, exit status 2 on the command line).
  const auto refused = [&](fe::error_t status) {
    if (status.is_good()) return;
    throw std::invalid_argument("cuDNN's fused attention does not run this shape on this GPU (heads " +
                                std::to_string(s.heads) + ", L_q " + std::to_string(s.lq) + ", L " +
                                std::to_string(s.lk) + ", d " + std::to_string(s.d) + ", d_v " +
                                std::to_string(s.dv) + "): " + status.get_message());
  };
  refused(g.validate());
  check_fe(g.build_operation_graph(handle), "build_operation_graph");
  refused(g.create_execution_plans({fe::HeurMode_t::A}));
  refused(g.check_support(handle));
  check_fe(g.build_plans(handle), "build_plans");
  check_fe(g.get_workspace_size(out.workspace), "get_workspace_size");
  return out;
}

// Built once per (shape, mask, scale) and kept: building a graph costs far more than running it.
const Sdpa& sdpa_for(const Shape& s, bool causal, float logit_scale) {
  using Key = std::tuple<int, int, int, int, int, bool, float>;
  static std::mutex mutex;
  static std::map<Key, Sdpa> graphs;
  const std::lock_guard<std::mutex> lock(mutex);
  const Key key{s.heads, s.lq, s.lk, s.d, s.dv, causal, logit_scale};
  auto found = graphs.find(key);
  if (found == graphs.end()) found = graphs.emplace(key, build_sdpa(s, causal, logit_scale)).first;
  return found->second;
}

// x widened to float and rounded to bfloat16, to nearest even (exact for bfloat16 inputs).
template <class In>
__global__ void inputs_to_bfloat16_kernel(const In* x, __nv_bfloat16* y, std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) y[i] = __float2bfloat16_rn(widened(x[i]));
}

__global__ void widen_kernel(const __nv_bfloat16* x, float* y, std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) y[i] = __bfloat162float(x[i]);
}

DeviceArray<__nv_bfloat16> in_bfloat16(const DeviceInput& x, std::size_t count) {
  DeviceArray<__nv_bfloat16> out(count);
  x.visit([&](const auto* values) {
    inputs_to_bfloat16_kernel<<<blocks_for(count, kThreads), kThreads>>>(values, out.get(), count);
  });
  check_launch("inputs_to_bfloat16_kernel");
  return out;
}

// The forward on device-resident inputs: the rounding to bfloat16, the fused kernel, the widening of the output.
DeviceBuffer cudnn_forward(const Shape& s, const Sdpa& sdpa, const DeviceQkv& in) {
  const std::size_t nq = std::size_t(s.heads) * s.lq * s.d, nk = std::size_t(s.heads) * s.lk * s.d;
  const std::size_t nv = std::size_t(s.heads) * s.lk * s.dv, no = std::size_t(s.heads) * s.lq * s.dv;
  DeviceArray<__nv_bfloat16> q = in_bfloat16(in.q, nq), k = in_bfloat16(in.k, nk), v = in_bfloat16(in.v, nv);
  DeviceArray<__nv_bfloat16> o(no);
  DeviceArray<std::byte> workspace(static_cast<std::size_t>(sdpa.workspace));
  std::unordered_map<fe::graph::Tensor_attributes::uid_t, void*> pointers{
      {kQ, q.get()}, {kK, k.get()}, {kV, v.get()}, {kO, o.get()}};
  check_fe(sdpa.graph->execute(cudnn_handle(), pointers, workspace.get()), "execute");
  DeviceBuffer out(no);
  widen_kernel<<<blocks_for(no, kThreads), kThreads>>>(o.get(), out.get(), no);
  check_launch("widen_kernel");
  return out;
}

}  // namespace

bool cudnn_attention_built(std::string& reason) {
  if (!cudnn_library().empty()) {
    reason = cudnn_library();
    return false;
  }
  reason = "cuDNN " + std::to_string(fe::detail::get_backend_version()) + ", frontend " +
           std::to_string(CUDNN_FRONTEND_MAJOR_VERSION) + "." + std::to_string(CUDNN_FRONTEND_MINOR_VERSION);
  return true;
}

void exact_attention_cudnn(const Shape& s, bool causal, float logit_scale, const HostInputs& inputs, float* out) {
  const DeviceQkv in(s, inputs);
  cudnn_forward(s, sdpa_for(s, causal, logit_scale), in).download(out);  // synchronizes: a failure reports here
  check_cuda(cudaGetLastError(), "exact_attention_cudnn");
}

DeviceTiming time_exact_cudnn(const Shape& s, bool causal, float logit_scale, const HostInputs& inputs, int repeats) {
  const DeviceQkv in(s, inputs);
  const Sdpa& sdpa = sdpa_for(s, causal, logit_scale);  // built before the timing
  return time_forward(repeats, [&] { return cudnn_forward(s, sdpa, in); });
}

#else

bool cudnn_attention_built(std::string& reason) {
  reason = FAVORLAB_CUDNN_OFF_REASON;
  return false;
}

void exact_attention_cudnn(const Shape&, bool, float, const HostInputs&, float*) {
  throw std::runtime_error(std::string("exact attention in bfloat16 needs cuDNN: ") + FAVORLAB_CUDNN_OFF_REASON);
}

DeviceTiming time_exact_cudnn(const Shape&, bool, float, const HostInputs&, int) {
  throw std::runtime_error(std::string("exact attention in bfloat16 needs cuDNN: ") + FAVORLAB_CUDNN_OFF_REASON);
}

#endif

}  // namespace favorlab::cuda_detail
