#include "attention/backend.hpp"

#include <stdexcept>

#ifdef FAVORLAB_HAVE_CUDA
#include <dlfcn.h>

#include <filesystem>

#include "attention/cuda/cuda_attention.hpp"
#endif

namespace favorlab {

#ifdef FAVORLAB_HAVE_CUDA
namespace {

// The CUDA module, loaded on first use: the executable's own directory first (favorlab and libfavorlab_cuda.so are
// built side by side), then the build directory (the test programs live below it). Loaded once; a failure (the
// module or a CUDA library missing, or too little address space to map them) is kept as the reason the backend is
// unavailable.
struct LoadedCudaModule {
  const CudaModule* table = nullptr;
  std::string reason;
};

LoadedCudaModule load_cuda_module() {
  std::vector<std::filesystem::path> candidates;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path() / "libfavorlab_cuda.so");
  candidates.push_back(std::filesystem::path(FAVORLAB_CUDA_MODULE_DIR) / "libfavorlab_cuda.so");
  std::string errors;
  for (const auto& path : candidates) {
    if (!std::filesystem::exists(path, ec)) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      errors = why != nullptr ? why : path.string() + ": cannot be loaded";
      continue;
    }
    using Entry = const CudaModule* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "favorlab_cuda_module"));
    if (entry == nullptr) {
      errors = path.string() + " has no favorlab_cuda_module";
      continue;
    }
    return {entry(), ""};
  }
  return {nullptr, "cannot load the CUDA backend (" +
                       (errors.empty() ? std::string("libfavorlab_cuda.so not found beside the executable") : errors) +
                       ")"};
}

const LoadedCudaModule& cuda_module() {
  static const LoadedCudaModule module = load_cuda_module();
  return module;
}

// The loaded table; only after require_backend(Backend::cuda) has succeeded.
const CudaModule& cuda() { return *cuda_module().table; }

}  // namespace
#endif

std::string_view backend_name(Backend backend) { return backend == Backend::cuda ? "cuda" : "cpu"; }

Backend parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  throw std::invalid_argument("--backend must be cpu or cuda (got '" + std::string(name) + "')");
}

CudaAvailability cuda_available() {
#ifdef FAVORLAB_HAVE_CUDA
  const LoadedCudaModule& module = cuda_module();
  if (module.table == nullptr) return {false, module.reason};
  CudaAvailability status;
  status.available = module.table->device_present(status.reason);
  return status;
#else
  // FAVORLAB_CUDA_OFF_CODE comes from CMake (cmake/cuda_backend_option.cmake): why the backend was not built.
#if defined(FAVORLAB_CUDA_OFF_CODE) && FAVORLAB_CUDA_OFF_CODE == 1
  return {false, "favorlab was built without CUDA (FAVORLAB_CUDA=OFF)"};
#elif defined(FAVORLAB_CUDA_OFF_CODE) && FAVORLAB_CUDA_OFF_CODE == 3
  return {false, "favorlab was built without CUDA (cuBLAS not found)"};
#else
  return {false, "favorlab was built without CUDA (nvcc not found)"};
#endif
#endif
}

CudaAvailability cudnn_available() {
  CudaAvailability status = cuda_available();
  if (!status.available) return status;
#ifdef FAVORLAB_HAVE_CUDA
  status.available = cuda().cudnn_built(status.reason);
#endif
  return status;
}

int default_chunk(Backend backend) { return backend == Backend::cuda ? 512 : AttentionConfig{}.chunk; }

void require_backend(Backend backend) {
  if (backend == Backend::cpu) return;
  const CudaAvailability cuda = cuda_available();
  if (!cuda.available) throw std::invalid_argument("--backend cuda: " + cuda.reason);
}

Heads<float> attend_on_backend(Backend backend, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                               const Eigen::MatrixXd& w, const AttentionConfig& config, int threads, HalfInputs half) {
  if (backend == Backend::cpu) {
    if (half == HalfInputs::off) return attend<float>(q, k, v, w, config, threads);
    return attend<float>(rounded_to(half, q, "Q"), rounded_to(half, k, "K"), rounded_to(half, v, "V"), w, config,
                         threads);
  }
  require_backend(backend);
#ifdef FAVORLAB_HAVE_CUDA
  return cuda().attend(q, k, v, w, config, half);
#else
  throw std::logic_error("unreachable: CUDA reported available in a build without CUDA");
#endif
}

Heads<float> attend_on_backend(Backend backend, const AttentionInputs<float>& in, int threads, HalfInputs half) {
  if (backend == Backend::cpu) return attend(in, threads);
  require_backend(backend);
#ifdef FAVORLAB_HAVE_CUDA
  return cuda().attend_inputs(in, half);
#else
  (void)half;
  throw std::logic_error("unreachable: CUDA reported available in a build without CUDA");
#endif
}

Heads<double> attend_double_on_backend(Backend backend, const Heads<double>& q, const Heads<double>& k,
                                       const Heads<double>& v, const Eigen::MatrixXd& w,
                                       const AttentionConfig& config, int threads) {
  if (backend == Backend::cpu) return attend<double>(q, k, v, w, config, threads);
  const auto to_float = [](const Heads<double>& x) {
    Heads<float> y;
    for (const auto& head : x) y.push_back(head.cast<float>());
    return y;
  };
  Heads<double> out;
  for (const auto& head : attend_on_backend(backend, to_float(q), to_float(k), to_float(v), w, config))
    out.push_back(head.cast<double>());
  return out;
}

std::string_view backend_precision(Backend backend) { return backend == Backend::cpu ? "float64" : "float32"; }

int host_threads_for(Backend backend, int threads) { return backend == Backend::cpu ? threads : 1; }

CudaTiming time_on_cuda(CudaWork work, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                        const Eigen::MatrixXd& w, const AttentionConfig& config, int repeats, HalfInputs half) {
  require_backend(Backend::cuda);
  if (repeats < 1) throw std::invalid_argument("time_on_cuda: repeats must be positive");
  if (half != HalfInputs::off && work != CudaWork::attention)
    throw std::invalid_argument("time_on_cuda: 16-bit inputs are timed for attention only (the floors are float32)");
#ifdef FAVORLAB_HAVE_CUDA
  return cuda().time(work, q, k, v, w, config, repeats, half);
#else
  (void)work, (void)q, (void)k, (void)v, (void)w, (void)config, (void)half;
  throw std::logic_error("unreachable: CUDA reported available in a build without CUDA");
#endif
}

}  // namespace favorlab
