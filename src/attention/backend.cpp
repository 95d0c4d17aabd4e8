#include "attention/backend.hpp"

#include <stdexcept>

#ifdef FAVORLAB_HAVE_CUDA
#include "attention/cuda/cuda_attention.hpp"
#endif

namespace favorlab {

std::string_view backend_name(Backend backend) { return backend == Backend::cuda ? "cuda" : "cpu"; }

Backend parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  throw std::invalid_argument("--backend must be cpu or cuda (got '" + std::string(name) + "')");
}

CudaAvailability cuda_available() {
#ifdef FAVORLAB_HAVE_CUDA
  CudaAvailability status;
  status.available = cuda_device_present(status.reason);
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
  return attend_cuda<float>(q, k, v, w, config, half);
#else
  throw std::logic_error("unreachable: CUDA reported available in a build without CUDA");
#endif
}

Heads<float> attend_on_backend(Backend backend, const AttentionInputs<float>& in, int threads, HalfInputs half) {
  if (backend == Backend::cpu) return attend(in, threads);
  require_backend(backend);
#ifdef FAVORLAB_HAVE_CUDA
  return attend_cuda(in, half);
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
  return time_cuda(work, q, k, v, w, config, repeats, half);
#else
  (void)work, (void)q, (void)k, (void)v, (void)w, (void)config, (void)half;
  throw std::logic_error("unreachable: CUDA reported available in a build without CUDA");
#endif
}

}  // namespace favorlab
