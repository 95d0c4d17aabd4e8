// FAVOR's products in a reduced format (cuda_support.cuh's gemm_heads with a ProductFormat): tf32 through cuBLAS's
// tensor-core compute type, bfloat16 by rounding the operands first and multiplying bfloat16 × bfloat16 into float32.
// The error bound these formats give: attention/reduced_precision_favor.hpp (gpu_rounding_of).
#include <cstddef>

#include "attention/cuda/cuda_support.cuh"

namespace favorlab::cuda_detail {

namespace {

constexpr unsigned kThreads = 256;

// The part of a column-major operand a product reads (rows × cols of every batch entry), as bfloat16.
struct Operand16 {
  DeviceArray<__nv_bfloat16> values;
  int ld = 0;
  long long stride = 0;
};

// dst[h, col, row] = bfloat16(src[h·stride + col·ld + row]), to nearest even; dst_ld ≥ rows, one matrix when the
// source stride is 0 (an operand shared by every head).
__global__ void to_bfloat16_kernel(const float* src, int ld, long long stride, __nv_bfloat16* dst, int dst_ld,
                                   int rows, int cols, std::size_t count) {
  for (std::size_t t = first_index(); t < count; t += grid_stride()) {
    const std::size_t per = std::size_t(rows) * std::size_t(cols);
    const std::size_t h = t / per, e = t % per, col = e / std::size_t(rows), row = e % std::size_t(rows);
    dst[(h * std::size_t(cols) + col) * std::size_t(dst_ld) + row] =
        __float2bfloat16_rn(src[std::size_t(h) * std::size_t(stride) + col * std::size_t(ld) + row]);
  }
}

// Only what the product reads is rounded (a causal chunk's rows of V, not all of V), with its leading dimension
// padded to a multiple of 8 entries (16 bytes), which the tensor-core kernels need for full speed.
Operand16 bfloat16_operand(const float* src, int rows, int cols, int ld, long long stride, int heads) {
  const int matrices = stride == 0 ? 1 : heads;
  const int dst_ld = (rows + 7) / 8 * 8;
  Operand16 out{DeviceArray<__nv_bfloat16>(std::size_t(matrices) * cols * dst_ld), dst_ld,
                stride == 0 ? 0 : (long long)dst_ld * cols};
  const std::size_t count = std::size_t(matrices) * rows * cols;
  to_bfloat16_kernel<<<blocks_for(count, kThreads), kThreads>>>(src, ld, stride, out.values.get(), dst_ld, rows, cols,
                                                                count);
  check_launch("to_bfloat16_kernel");
  return out;
}

}  // namespace

void gemm_heads(ProductFormat format, cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k,
                const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b, float beta,
                float* c, int ldc, long long stride_c, int heads) {
  const float alpha = 1.0f;
  switch (format) {
    case ProductFormat::float32:
      gemm_heads(op_a, op_b, m, n, k, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, heads);
      return;
    case ProductFormat::tf32:
      check_cublas(cublasGemmStridedBatchedEx(cublas_handle(), op_a, op_b, m, n, k, &alpha, a, CUDA_R_32F, lda,
                                              stride_a, b, CUDA_R_32F, ldb, stride_b, &beta, c, CUDA_R_32F, ldc,
                                              stride_c, heads, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmStridedBatchedEx (tf32)");
      return;
    case ProductFormat::bfloat16: {
      // op(A) is m × k: A itself is m × k untransposed, k × m transposed (column-major); likewise B.
      const bool ta = op_a != CUBLAS_OP_N, tb = op_b != CUBLAS_OP_N;
      const Operand16 a16 = bfloat16_operand(a, ta ? k : m, ta ? m : k, lda, stride_a, heads);
      const Operand16 b16 = bfloat16_operand(b, tb ? n : k, tb ? k : n, ldb, stride_b, heads);
      check_cublas(cublasGemmStridedBatchedEx(cublas_handle(), op_a, op_b, m, n, k, &alpha, a16.values.get(),
                                              CUDA_R_16BF, a16.ld, a16.stride, b16.values.get(), CUDA_R_16BF, b16.ld,
                                              b16.stride, &beta, c, CUDA_R_32F, ldc, stride_c, heads,
                                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmStridedBatchedEx (bfloat16)");
      return;
    }
  }
}

}  // namespace favorlab::cuda_detail
