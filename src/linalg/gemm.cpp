#include "linalg/gemm.hpp"

#include <omp.h>

#include <stdexcept>
#include <type_traits>

#ifdef FAVORLAB_HAVE_ONEDNN
#include <dnnl.h>
#endif

namespace favorlab {

namespace {

template <class T>
Eigen::Index op_rows(const GemmIn<T>& x, Op op) {
  return op == Op::none ? x.rows() : x.cols();
}
template <class T>
Eigen::Index op_cols(const GemmIn<T>& x, Op op) {
  return op == Op::none ? x.cols() : x.rows();
}

template <class T>
void check_shapes(const GemmIn<T>& a, Op op_a, const GemmIn<T>& b, Op op_b, const GemmOut<T>& c) {
  const auto shape = [](Eigen::Index r, Eigen::Index k) { return std::to_string(r) + "×" + std::to_string(k); };
  if (op_rows(a, op_a) != c.rows())
    throw std::invalid_argument("gemm: op(a) is " + shape(op_rows(a, op_a), op_cols(a, op_a)) + " but c has " +
                                std::to_string(c.rows()) + " rows");
  if (op_cols(b, op_b) != c.cols())
    throw std::invalid_argument("gemm: op(b) is " + shape(op_rows(b, op_b), op_cols(b, op_b)) + " but c has " +
                                std::to_string(c.cols()) + " columns");
  if (op_rows(b, op_b) != op_cols(a, op_a))
    throw std::invalid_argument("gemm: op(a) is " + shape(op_rows(a, op_a), op_cols(a, op_a)) + " and op(b) is " +
                                shape(op_rows(b, op_b), op_cols(b, op_b)) + ": inner dimensions differ");
}

// Eigen's product, written as the callers wrote it before (`c.noalias() = a * b`), so double keeps its bits.
template <class T>
void eigen_gemm(const GemmIn<T>& a, Op op_a, const GemmIn<T>& b, Op op_b, T beta, GemmOut<T>& c) {
  const auto into = [&](const auto& x, const auto& y) {
    if (beta == T(0)) {
      c.noalias() = x * y;
    } else {
      if (beta != T(1)) c *= beta;
      c.noalias() += x * y;
    }
  };
  if (op_a == Op::none)
    op_b == Op::none ? into(a, b) : into(a, b.transpose());
  else
    op_b == Op::none ? into(a.transpose(), b) : into(a.transpose(), b.transpose());
}

#ifdef FAVORLAB_HAVE_ONEDNN
// oneDNN runs a product on omp_get_max_threads() threads unless it is already inside an active parallel region; a
// favorlab loop at --threads 1 is an inactive one, so the calling thread's team size is set to 1 for the call (a
// per-thread setting) and restored.
class OneThread {
 public:
  OneThread() : saved_(omp_get_max_threads()) {
    if (saved_ != 1) omp_set_num_threads(1);
  }
  ~OneThread() {
    if (saved_ != 1) omp_set_num_threads(saved_);
  }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int saved_;
};

// oneDNN is row-major; a column-major C (M × N) is a row-major Cᵀ = op(B)ᵀ op(A)ᵀ, and the memory of a column-major
// X read row-major is Xᵀ, so B goes first and each operand keeps its own transpose flag.
void onednn_gemm(const GemmIn<float>& a, Op op_a, const GemmIn<float>& b, Op op_b, float beta, GemmOut<float>& c) {
  const OneThread one_thread;
  const auto flag = [](Op op) { return op == Op::none ? 'N' : 'T'; };
  const dnnl_status_t status =
      dnnl_sgemm(flag(op_b), flag(op_a), c.cols(), c.rows(), op_cols(a, op_a), 1.0f, b.data(), b.outerStride(),
                 a.data(), a.outerStride(), beta, c.data(), c.outerStride());
  if (status != dnnl_success)
    throw std::runtime_error("gemm: oneDNN's sgemm failed (status " + std::to_string(int(status)) + ")");
}
#endif

}  // namespace

template <class T>
void gemm_column_major(const GemmIn<T>& a, Op op_a, const GemmIn<T>& b, Op op_b, T beta, GemmOut<T> c) {
  check_shapes(a, op_a, b, op_b, c);
  if (c.size() == 0) return;
  if (op_cols(a, op_a) == 0) {  // an empty sum: C ← beta·C (beta = 0 overwrites, NaN included)
    if (beta == T(0))
      c.setZero();
    else
      c *= beta;
    return;
  }
#ifdef FAVORLAB_HAVE_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    onednn_gemm(a, op_a, b, op_b, beta, c);
    return;
  }
#endif
  eigen_gemm(a, op_a, b, op_b, beta, c);
}

std::string gemm_engine() {
  const std::string eigen = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                            std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
#ifdef FAVORLAB_HAVE_ONEDNN
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         " sgemm (float), " + eigen + " (double)";
#else
  return eigen;
#endif
}

template void gemm_column_major(const GemmIn<float>&, Op, const GemmIn<float>&, Op, float, GemmOut<float>);
template void gemm_column_major(const GemmIn<double>&, Op, const GemmIn<double>&, Op, double, GemmOut<double>);

}  // namespace favorlab
