// Device discovery and the process-wide cuBLAS handle (cuda_support.cuh, cuda_kernels.hpp).
#include <mutex>

#include "attention/cuda/cuda_kernels.hpp"
#include "attention/cuda/cuda_support.cuh"

namespace favorlab::cuda_detail {

bool cuda_device_present(std::string& reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // No driver, or a driver without devices: the runtime says which; clear the sticky-free error state.
    reason = std::string("no CUDA device present (") + cudaGetErrorString(status) + ")";
    cudaGetLastError();
    return false;
  }
  if (count == 0) {
    reason = "no CUDA device present";
    return false;
  }
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  reason = std::string("CUDA device 0: ") + properties.name + " (compute capability " +
           std::to_string(properties.major) + "." + std::to_string(properties.minor) + ")";
  return true;
}

cublasHandle_t cublas_handle() {
  static std::mutex mutex;
  static cublasHandle_t handle = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (handle == nullptr) {
    check_cublas(cublasCreate(&handle), "cublasCreate");
    check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
  return handle;
}

}  // namespace favorlab::cuda_detail
