#include "attention/exact_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "features/shifted_exp.hpp"
#include "runtime/eigen_threads.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {

// Query rows per task and keys per tile. The logits tile (kQueryBlock × kKeyTile, 128 KiB in float) and the
// accumulator stay in the core's 1 MiB L2 while a block streams over its keys. 128 × 256 is a middle choice, not a
// measured optimum: no size swept was clearly faster (docs/performance.md#tried-and-dropped).
constexpr Eigen::Index kQueryBlock = 128;
constexpr Eigen::Index kKeyTile = 256;

template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T>
using RowTile = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace

template <class T>
Matrix<T> exact_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, bool causal, bool renormalize,
                          int threads) {
  // The accumulator Σ_j exp(s_ij − top_i) v_j can reach (keys) · max|v| before the division by the row sum, so V near
  // the type's largest values (1e308 in double) would overflow where the normalized answer, a convex combination of
  // V's rows, is finite. Such V is scaled by a power of two (exact) and the output scaled back; other V is untouched.
  if (renormalize && v.size() > 0) {
    const T largest = v.cwiseAbs().maxCoeff();
    if (largest > std::numeric_limits<T>::max() / T(2 * (k.rows() + 1))) {
      const int e = std::ilogb(largest) + 1;  // largest · 2^−e < 1
      Matrix<T> scaled = v;
      for (Eigen::Index i = 0; i < scaled.size(); ++i) scaled.data()[i] = std::scalbn(scaled.data()[i], -e);
      Matrix<T> out = exact_attention(q, k, scaled, causal, renormalize, threads);
      for (Eigen::Index i = 0; i < out.size(); ++i) out.data()[i] = std::scalbn(out.data()[i], e);
      return out;
    }
  }
  const Eigen::Index lq = q.rows(), dv = v.cols();
  const T scale = T(1 / std::sqrt(double(q.cols())));
  Matrix<T> out(lq, dv);
  const EigenSingleThread eigen_single_thread;  // the query blocks are the parallelism (same bits on any --threads)
  const Eigen::Index blocks = (lq + kQueryBlock - 1) / kQueryBlock;
  parallel_for(blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * kQueryBlock, rows = std::min(kQueryBlock, lq - first);
    const Eigen::Index keys = causal ? first + rows : k.rows();  // a causal block never reads later keys
    const Matrix<T> scaled_q = q.middleRows(first, rows) * scale;
    // Row-major logits: each query's row of a tile is contiguous, so its maximum, its exponentials and their sum are
    // one pass over 1 KiB in L1 per row, not strided passes over the whole tile in L2
    // (docs/performance.md#tried-and-dropped).
    RowTile<T> tile_buffer(rows, std::min(kKeyTile, keys));
    Matrix<T> acc = Matrix<T>::Zero(rows, dv);  // Σ_j exp(s_ij − top_i) v_j over the keys so far
    // Running row maxima (−∞ before a row's first key) and Σ_j exp(s_ij − top_i); factor_i rescales a row's sums
    // when its maximum grows.
    Column<T> top = Column<T>::Constant(rows, -std::numeric_limits<T>::infinity()), total = Column<T>::Zero(rows);
    Column<T> factor(rows);
    for (Eigen::Index first_key = 0; first_key < keys; first_key += kKeyTile) {
      const Eigen::Index cols = std::min(kKeyTile, keys - first_key);
      auto tile = tile_buffer.leftCols(cols);
      tile.noalias() = scaled_q * k.middleRows(first_key, cols).transpose();
      bool grew = false;
      for (Eigen::Index i = 0; i < rows; ++i) {
        // Causal: keys after query first + i get weight exactly 0 (no output sees a later key).
        const Eigen::Index visible =
            causal ? std::clamp<Eigen::Index>(first + i + 1 - first_key, 0, cols) : cols;
        Eigen::Map<Column<T>> row(tile.row(i).data(), cols);
        row.tail(cols - visible).setZero();
        factor(i) = T(1);
        if (visible == 0) continue;
        auto seen = row.head(visible);
        const T tile_top = seen.maxCoeff();
        if (tile_top > top(i)) {  // a new maximum: what was summed so far is rescaled (by 0 before the first key)
          factor(i) = std::exp(top(i) - tile_top);
          top(i) = tile_top;
          grew = true;
        }
        exp_into(seen, seen - top(i), T(1));  // SIMD exp, exact underflow (features/shifted_exp.hpp)
        total(i) = total(i) * factor(i) + seen.sum();
      }
      if (grew) acc.array().colwise() *= factor;
      acc.noalias() += tile * v.middleRows(first_key, cols);
    }
    if (renormalize)
      out.middleRows(first, rows) = (acc.array().colwise() / total).matrix();
    else
      out.middleRows(first, rows) = (acc.array().colwise() * top.exp()).matrix();
  });
  return out;
}

template Matrix<float> exact_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&, bool, bool,
                                       int);
template Matrix<double> exact_attention(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&, bool,
                                        bool, int);

}  // namespace favorlab
