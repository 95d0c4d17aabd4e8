#pragma once
// C ← op(A)·op(B) + beta·C, the matrix product behind attention's hot loops (exact tiles, FAVOR's feature blocks and
// states, the causal windows, the projections). One function, two engines chosen when favorlab is built
// (FAVORLAB_GEMM, the configure line names it; gemm_engine() says which at run time):
//   float  → oneDNN's sgemm where the build has it: at attention's shapes (k = 64 … 512, a few hundred rows) it
//            runs near one core's FMA peak where Eigen's product reaches about 0.75 of it
//            (docs/performance.md#the-gemm-engine);
//   double, and float without oneDNN → Eigen's product, the same bits as `c.noalias() = a * b`.
// Every call runs on the calling thread alone: the callers' own loops are the parallelism, so the bits never depend
// on --threads. C must not overlap A or B (as with Eigen's noalias()).
#include <Eigen/Core>

#include <string>
#include <type_traits>

namespace favorlab {

enum class Op { none, transpose };

// Column-major operands with unit inner stride: a Matrix, or a block of one (middleRows, leftCols, topLeftCorner…).
template <class T>
using GemmOut = Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;
template <class T>
using GemmIn = Eigen::Ref<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;

// The product on column-major operands. op(A) is rows(C) × k and op(B) is k × cols(C); otherwise
// std::invalid_argument naming the operand. beta = 0 ignores C's old contents (NaN included), as BLAS does.
template <class T>
void gemm_column_major(const GemmIn<T>& a, Op op_a, const GemmIn<T>& b, Op op_b, T beta, GemmOut<T> c);

namespace gemm_detail {

inline Op flipped(Op op) { return op == Op::none ? Op::transpose : Op::none; }

// A row-major matrix or block with its own memory: read column-major, that memory is its transpose.
template <class X>
inline constexpr bool kRowMajorMemory =
    std::decay_t<X>::IsRowMajor && (std::decay_t<X>::Flags & Eigen::DirectAccessBit) != 0;

template <class X>
auto transposed_memory(X&& x) {
  using Plain = Eigen::Matrix<typename std::decay_t<X>::Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Target = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(x.data())>>, const Plain, Plain>;
  return Eigen::Map<Target, 0, Eigen::OuterStride<>>(x.data(), x.cols(), x.rows(),
                                                     Eigen::OuterStride<>(x.outerStride()));
}

}  // namespace gemm_detail

// C ← op(A)·op(B) + beta·C for any operands. A row-major operand (a RowMajor matrix or a block of one) goes in as the
// column-major transpose of its own memory with its op flipped, never copied; a row-major C as Cᵀ = op(B)ᵀ op(A)ᵀ.
// Any other expression is evaluated into a temporary first.
template <class T, class A, class B, class C>
void gemm(const A& a, Op op_a, const B& b, Op op_b, T beta, C&& c) {
  using namespace gemm_detail;
  if constexpr (kRowMajorMemory<C>)
    gemm<T>(b, flipped(op_b), a, flipped(op_a), beta, transposed_memory(c));
  else if constexpr (kRowMajorMemory<A>)
    gemm<T>(transposed_memory(a), flipped(op_a), b, op_b, beta, c);
  else if constexpr (kRowMajorMemory<B>)
    gemm<T>(a, op_a, transposed_memory(b), flipped(op_b), beta, c);
  else
    gemm_column_major<T>(a, op_a, b, op_b, beta, c);
}

// "oneDNN 2.6.3 sgemm (float), Eigen 3.4.0 (double)" or "Eigen 3.4.0": what this build multiplies with (provenance).
std::string gemm_engine();

}  // namespace favorlab
