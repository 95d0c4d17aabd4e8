#include "perf/favor_products.hpp"

#include <algorithm>

#include "attention/bidirectional_favor_blocks.hpp"
#include "attention/head_parallel.hpp"
#include "linalg/gemm.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {

template <class T>
Matrix<T> one_head(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w, int threads) {
  const Eigen::Index lk = k.rows(), lq = q.rows(), dv = v.cols();
  const Eigen::Index key_blocks = (lk + kBidirectionalBlock - 1) / kBidirectionalBlock;
  std::vector<Matrix<T>> states(static_cast<std::size_t>(key_blocks));
  parallel_for(key_blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * kBidirectionalBlock, rows = std::min(kBidirectionalBlock, lk - first);
    Matrix<T> values(rows, dv + 1);  // [V_b, 1], as FAVOR builds it
    values.leftCols(dv) = v.middleRows(first, rows);
    values.col(dv).setOnes();
    Matrix<T> p(rows, w.rows());
    gemm<T>(k.middleRows(first, rows), Op::none, w, Op::transpose, T(0), p);
    Matrix<T> s(w.rows(), dv + 1);
    gemm<T>(p, Op::transpose, values, Op::none, T(0), s);
    states[std::size_t(b)] = std::move(s);
  });
  Matrix<T> state = Matrix<T>::Zero(w.rows(), dv + 1);
  for (const Matrix<T>& s : states) state += s;
  Matrix<T> out(lq, dv + 1);
  const Eigen::Index query_blocks = (lq + kBidirectionalBlock - 1) / kBidirectionalBlock;
  parallel_for(query_blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * kBidirectionalBlock, rows = std::min(kBidirectionalBlock, lq - first);
    Matrix<T> r(rows, w.rows());
    gemm<T>(q.middleRows(first, rows), Op::none, w, Op::transpose, T(0), r);
    gemm<T>(r, Op::none, state, Op::none, T(0), out.middleRows(first, rows));
  });
  return out;
}

}  // namespace

template <class T>
std::vector<Matrix<T>> favor_bare_products(const std::vector<Matrix<T>>& q, const std::vector<Matrix<T>>& k,
                                           const std::vector<Matrix<T>>& v, const Matrix<T>& w, int threads) {
  std::vector<Matrix<T>> out(q.size());
  for_each_head(static_cast<int>(q.size()), threads, [&](int h, int inner_threads) {
    const std::size_t s = static_cast<std::size_t>(h);
    out[s] = one_head(q[s], k[s], v[s], w, inner_threads);
  });
  return out;
}

double favor_bare_product_flops(double lq, double lk, double d, double m, double dv) {
  return 2 * (lk * d * m + lk * m * (dv + 1) + lq * d * m + lq * m * (dv + 1));
}

template std::vector<Matrix<float>> favor_bare_products(const std::vector<Matrix<float>>&,
                                                        const std::vector<Matrix<float>>&,
                                                        const std::vector<Matrix<float>>&, const Matrix<float>&, int);
template std::vector<Matrix<double>> favor_bare_products(const std::vector<Matrix<double>>&,
                                                         const std::vector<Matrix<double>>&,
                                                         const std::vector<Matrix<double>>&, const Matrix<double>&,
                                                         int);

}  // namespace favorlab
