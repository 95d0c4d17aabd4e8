#pragma once
// Shared by the CUDA sources: error checks that throw, an owning device buffer, a cuBLAS handle, block reductions.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace favorlab::cuda_detail {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}

inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(status));
}

// A kernel launch reports configuration errors at once and execution errors at the next synchronizing call.
inline void check_launch(const char* kernel) { check_cuda(cudaGetLastError(), kernel); }

// Owns count floats of device memory (freed on every exit path, so an exception never leaks).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) check_cuda(cudaMalloc(reinterpret_cast<void**>(&data_), count_ * sizeof(float)), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  float* get() const { return data_; }
  std::size_t size() const { return count_; }
  void upload(const float* host) {
    if (count_ > 0) check_cuda(cudaMemcpy(data_, host, count_ * sizeof(float), cudaMemcpyHostToDevice), "upload");
  }
  void download(float* host) const {
    if (count_ > 0) check_cuda(cudaMemcpy(host, data_, count_ * sizeof(float), cudaMemcpyDeviceToHost), "download");
  }
  void zero() {
    if (count_ > 0) check_cuda(cudaMemset(data_, 0, count_ * sizeof(float)), "cudaMemset");
  }

 private:
  std::size_t count_;
  float* data_ = nullptr;
};

// One cuBLAS handle per process, created on first use and deliberately never destroyed: destroying it from a static
// destructor can run after the CUDA runtime has shut down. Default math mode: float32 compute, no TF32.
cublasHandle_t cublas_handle();

// C = op(A) op(B) (column-major, as cuBLAS sees it) for every head, with head strides; beta = 0 or 1.
inline void gemm_heads(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k, const float* a, int lda,
                       long long stride_a, const float* b, int ldb, long long stride_b, float beta, float* c, int ldc,
                       long long stride_c, int heads) {
  const float alpha = 1.0f;
  check_cublas(cublasSgemmStridedBatched(cublas_handle(), op_a, op_b, m, n, k, &alpha, a, lda, stride_a, b, ldb,
                                         stride_b, &beta, c, ldc, stride_c, heads),
               "cublasSgemmStridedBatched");
}

// Grid size for a grid-stride loop over `count` items with `threads` per block.
inline unsigned blocks_for(std::size_t count, unsigned threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Reduces one value per thread over the block. blockDim.x must be a multiple of 32 (≤ 1024); every thread must
// call it; scratch holds 33 floats of shared memory and may be reused after the call.
template <class Op>
__device__ float block_reduce(float value, Op op, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = scratch[0];
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) total = op(total, scratch[w]);
    scratch[32] = total;
  }
  __syncthreads();
  const float result = scratch[32];
  __syncthreads();
  return result;
}

}  // namespace favorlab::cuda_detail
