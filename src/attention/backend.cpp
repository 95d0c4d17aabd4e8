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

Heads<float> attend_on_backend(Backend backend, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                               const Eigen::MatrixXd& w, const AttentionConfig& config, int threads) {
  if (backend == Backend::cpu) return attend<float>(q, k, v, w, config, threads);
  const CudaAvailability cuda = cuda_available();
  if (!cuda.available) throw std::invalid_argument("--backend cuda: " + cuda.reason);
#ifdef FAVORLAB_HAVE_CUDA
  return attend_cuda<float>(q, k, v, w, config);
#else
  throw std::logic_error("unreachable: CUDA reported available in a build without CUDA");
#endif
}

}  // namespace favorlab
