#pragma once
// Shared by the CUDA sources: error checks that throw, an owning device array that counts the bytes it holds, the
// inputs in their storage format, a cuBLAS handle, the timing of a device-resident forward, block reductions.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "attention/cuda/cuda_kernels.hpp"

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

// Device bytes held by DeviceBuffers now, and the most held since reset_device_peak() (cuda_device.cu). The count is
// of favorlab's own buffers: cuBLAS's internal workspace is not in it.
void count_device_bytes(std::size_t bytes, bool allocated);
std::size_t device_live_bytes();
std::size_t device_peak_bytes();
void reset_device_peak();

// Whether DeviceBuffers come from the device's stream-ordered memory pool (cudaMallocAsync). The first call (once
// per process) checks that the device supports pools and makes the default pool keep freed memory for reuse instead of
// returning it at the next synchronization: after the first forward, a forward's buffers then cost no cudaMalloc and
// no implicit synchronization, as with any caching allocator. Without pool support, plain cudaMalloc/cudaFree.
bool pooled_device_memory();

// Owns count elements of device memory (freed on every exit path, so an exception never leaks). Pooled buffers are
// stream-ordered on the default stream, where all of favorlab's device work runs in order.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(count), pooled_(count > 0 && pooled_device_memory()) {
    if (count_ > 0) {
      void** where = reinterpret_cast<void**>(&data_);
      if (pooled_)
        check_cuda(cudaMallocAsync(where, bytes(), cudaStream_t{}), "cudaMallocAsync");
      else
        check_cuda(cudaMalloc(where, bytes()), "cudaMalloc");
      count_device_bytes(bytes(), true);
    }
  }
  DeviceArray(DeviceArray&& other) noexcept : count_(other.count_), pooled_(other.pooled_), data_(other.data_) {
    other.count_ = 0;
    other.data_ = nullptr;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray& operator=(DeviceArray&&) = delete;
  ~DeviceArray() {
    if (data_ != nullptr) {
      if (pooled_)
        cudaFreeAsync(data_, cudaStream_t{});
      else
        cudaFree(data_);
      count_device_bytes(bytes(), false);
    }
  }
  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  void upload(const T* host) {
    if (count_ > 0) check_cuda(cudaMemcpy(data_, host, bytes(), cudaMemcpyHostToDevice), "upload");
  }
  void download(T* host) const {
    if (count_ > 0) check_cuda(cudaMemcpy(host, data_, bytes(), cudaMemcpyDeviceToHost), "download");
  }
  void zero() {
    if (count_ > 0) check_cuda(cudaMemset(data_, 0, bytes()), "cudaMemset");
  }

 private:
  std::size_t bytes() const { return count_ * sizeof(T); }
  std::size_t count_;
  bool pooled_;
  T* data_ = nullptr;
};

using DeviceBuffer = DeviceArray<float>;

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

// gemm_heads with the operands in `format`: float32 is gemm_heads; tf32 runs on the tensor cores (cuBLAS's
// CUBLAS_COMPUTE_32F_FAST_TF32: each float operand cut to tf32 inside the product); bfloat16 first rounds the parts of
// A and B the product reads to bfloat16 (to nearest even, into scratch arrays), then multiplies bfloat16 × bfloat16
// into float32 C. Every sum is float32. product_gemm.cu.
void gemm_heads(ProductFormat format, cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k,
                const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b, float beta,
                float* c, int ldc, long long stride_c, int heads);

// count elements copied from the host to a new device array.
template <class T>
DeviceArray<T> uploaded(const T* host, std::size_t count) {
  DeviceArray<T> buffer(count);
  buffer.upload(host);
  return buffer;
}

// An input's element as float: exact for all three formats.
__device__ inline float widened(float x) { return x; }
__device__ inline float widened(__half x) { return __half2float(x); }
__device__ inline float widened(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class E>
constexpr InputFormat format_of() {
  if constexpr (std::is_same_v<E, __half>) return InputFormat::float16;
  else if constexpr (std::is_same_v<E, __nv_bfloat16>) return InputFormat::bfloat16;
  else return InputFormat::float32;
}

// One of Q, K, V on the device in its format (HostInputs): float32, or the 16-bit patterns of float16 / bfloat16,
// read as __half / __nv_bfloat16 (the same two bytes). Kernels take the element type as a template parameter.
class DeviceInput {
 public:
  DeviceInput(InputFormat format, const void* host, std::size_t count)
      : format_(format),
        floats_(format == InputFormat::float32 ? uploaded(static_cast<const float*>(host), count) : DeviceBuffer(0)),
        bits_(format == InputFormat::float32 ? DeviceArray<std::uint16_t>(0)
                                             : uploaded(static_cast<const std::uint16_t*>(host), count)) {}
  // The array as E (float, __half or __nv_bfloat16), which must be the input's format.
  template <class E>
  const E* data() const {
    if (format_of<E>() != format_) throw std::logic_error("DeviceInput: read in a format it is not held in");
    if constexpr (std::is_same_v<E, float>) return floats_.get();
    else return reinterpret_cast<const E*>(bits_.get());
  }
  // f(data<E>()) for the input's element type E.
  template <class F>
  void visit(F&& f) const {
    switch (format_) {
      case InputFormat::float16: f(data<__half>()); break;
      case InputFormat::bfloat16: f(data<__nv_bfloat16>()); break;
      case InputFormat::float32: f(data<float>()); break;
    }
  }

 private:
  InputFormat format_;
  DeviceBuffer floats_;
  DeviceArray<std::uint16_t> bits_;
};

// Q (heads×lq×d), K (heads×lk×d) and V (heads×lk×dv) of one call on the device, in their host format.
struct DeviceQkv {
  DeviceInput q, k, v;
  DeviceQkv(const Shape& s, const HostInputs& h)
      : q(h.format, h.q, std::size_t(s.heads) * s.lq * s.d),
        k(h.format, h.k, std::size_t(s.heads) * s.lk * s.d),
        v(h.format, h.v, std::size_t(s.heads) * s.lk * s.dv) {}
};

// A CUDA event, destroyed on every exit path.
class DeviceEvent {
 public:
  DeviceEvent() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;
  ~DeviceEvent() { cudaEventDestroy(event_); }
  void record() { check_cuda(cudaEventRecord(event_), "cudaEventRecord"); }
  // Seconds from `start` to this event (both recorded; waits for this one).
  double seconds_since(const DeviceEvent& start) const {
    check_cuda(cudaEventSynchronize(event_), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime");
    return 1e-3 * double(ms);
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// Times forward(), a device-resident computation that returns its output as a DeviceBuffer (inputs already on the
// device): one untimed run first — the warm-up, which also gives the peak of device memory allocated above what was
// held before it, output included — then `repeats` runs, each between two events on the default stream, so a
// time is the device's wall time of the whole forward, its allocations included. `first` is the output's first
// entry (the work stays observable, and a test compares it with attend_cuda's).
template <class Forward>
DeviceTiming time_forward(int repeats, Forward&& forward) {
  DeviceTiming timing;
  const std::size_t before = device_live_bytes();
  reset_device_peak();
  {
    const DeviceBuffer out = forward();
    check_cuda(cudaDeviceSynchronize(), "warm-up forward");
    timing.peak_bytes = device_peak_bytes() - before;
    if (out.size() > 0)
      check_cuda(cudaMemcpy(&timing.first, out.get(), sizeof(float), cudaMemcpyDeviceToHost), "download");
  }
  DeviceEvent start, stop;
  for (int r = 0; r < repeats; ++r) {
    start.record();
    const DeviceBuffer out = forward();
    stop.record();
    timing.seconds.push_back(stop.seconds_since(start));
  }
  check_cuda(cudaGetLastError(), "timed forward");
  return timing;
}

// Grid size for a grid-stride loop over `count` items with `threads` per block.
inline unsigned blocks_for(std::size_t count, unsigned threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

// A grid-stride loop's first item and step.
__device__ inline std::size_t first_index() { return std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline std::size_t grid_stride() { return std::size_t(blockDim.x) * gridDim.x; }

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
