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

namespace favorlab {

enum class Op { none, transpose };

// Column-major operands with unit inner stride: a Matrix, or a block of one (middleRows, leftCols, topLeftCorner…).
template <class T>
using GemmOut = Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;
template <class T>
using GemmIn = Eigen::Ref<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;

// op(A) is rows(C) × k and op(B) is k × cols(C); otherwise std::invalid_argument naming the operand. beta = 0 ignores
// C's old contents (NaN included), as BLAS does.
template <class T>
void gemm(const GemmIn<T>& a, Op op_a, const GemmIn<T>& b, Op op_b, T beta, GemmOut<T> c);

// "oneDNN 2.6.3 sgemm (float), Eigen 3.4.0 (double)" or "Eigen 3.4.0": what this build multiplies with (provenance).
std::string gemm_engine();

}  // namespace favorlab
