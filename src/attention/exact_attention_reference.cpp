#include "attention/exact_attention_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/eigen_threads.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {
constexpr Eigen::Index kReferenceQueryBlock = 128;
}

template <class T>
Matrix<T> exact_attention_reference(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, bool causal,
                                    bool renormalize, int threads) {
  const Eigen::Index lq = q.rows(), dv = v.cols();
  const T scale = T(1 / std::sqrt(double(q.cols())));
  Matrix<T> out(lq, dv);
  const EigenSingleThread eigen_single_thread;  // the query blocks are the parallelism (same bits on any --threads)
  const Eigen::Index blocks = (lq + kReferenceQueryBlock - 1) / kReferenceQueryBlock;
  parallel_for(blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * kReferenceQueryBlock, rows = std::min(kReferenceQueryBlock, lq - first);
    const Eigen::Index keys = causal ? first + rows : k.rows();  // a causal block never reads later keys
    Matrix<T> logits = (q.middleRows(first, rows) * k.topRows(keys).transpose()) * scale;
    if (causal)
      for (Eigen::Index i = 0; i < rows; ++i)
        logits.row(i).tail(keys - (first + i + 1)).setConstant(-std::numeric_limits<T>::infinity());
    const Eigen::Array<T, Eigen::Dynamic, 1> top = logits.rowwise().maxCoeff().array();
    // In place and in two steps: exp of the broadcast expression (logits.colwise() − top).exp() would run one scalar
    // std::exp at a time; a plain .exp() uses Eigen's SIMD exp. That exp clamps −∞ to a tiny positive number, so the
    // masked entries are zeroed again afterwards: a causal output must not see later keys even at 1e-38.
    logits.array().colwise() -= top;
    logits.array() = logits.array().exp();
    if (causal)
      for (Eigen::Index i = 0; i < rows; ++i) logits.row(i).tail(keys - (first + i + 1)).setZero();
    const Matrix<T>& weights = logits;
    Matrix<T> num = weights * v.topRows(keys);
    if (renormalize)
      num.array().colwise() /= weights.rowwise().sum().array();
    else
      num.array().colwise() *= top.exp();
    out.middleRows(first, rows) = num;
  });
  return out;
}

template Matrix<float> exact_attention_reference(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                                                 bool, bool, int);
template Matrix<double> exact_attention_reference(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                                  bool, bool, int);

}  // namespace favorlab
