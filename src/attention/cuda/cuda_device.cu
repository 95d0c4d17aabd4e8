// Device discovery, the process-wide cuBLAS handle and the count of device bytes held (cuda_support.cuh,
// cuda_kernels.hpp).
#include <algorithm>
#include <cstdint>
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
  const cudaError_t read = cudaGetDeviceProperties(&properties, 0);
  if (read != cudaSuccess) {  // a device the runtime counts but cannot describe is not usable: say so, do not throw
    reason = std::string("CUDA device 0 is not usable (") + cudaGetErrorString(read) + ")";
    cudaGetLastError();
    return false;
  }
  reason = std::string("CUDA device 0: ") + properties.name + " (compute capability " +
           std::to_string(properties.major) + "." + std::to_string(properties.minor) + ")";
  return true;
}

namespace {
struct DeviceBytes {
  std::mutex mutex;
  std::size_t live = 0, peak = 0;
};
DeviceBytes& device_bytes() {
  static DeviceBytes bytes;
  return bytes;
}
}  // namespace

bool pooled_device_memory() {
  static std::once_flag once;
  static bool pooled = false;
  std::call_once(once, [] {  // a throw leaves the flag unset, so the next buffer tries again
    int device = 0, supported = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device), "cudaDeviceGetAttribute");
    if (supported == 0) return;
    cudaMemPool_t pool = nullptr;
    check_cuda(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    std::uint64_t keep_all = UINT64_MAX;
    check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all), "cudaMemPoolSetAttribute");
    pooled = true;
  });
  return pooled;
}

void count_device_bytes(std::size_t bytes, bool allocated) {
  DeviceBytes& b = device_bytes();
  const std::lock_guard<std::mutex> lock(b.mutex);
  b.live = allocated ? b.live + bytes : b.live - std::min(bytes, b.live);
  b.peak = std::max(b.peak, b.live);
}

std::size_t device_live_bytes() {
  DeviceBytes& b = device_bytes();
  const std::lock_guard<std::mutex> lock(b.mutex);
  return b.live;
}

std::size_t device_peak_bytes() {
  DeviceBytes& b = device_bytes();
  const std::lock_guard<std::mutex> lock(b.mutex);
  return b.peak;
}

void reset_device_peak() {
  DeviceBytes& b = device_bytes();
  const std::lock_guard<std::mutex> lock(b.mutex);
  b.peak = b.live;
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
