#include "attention/exact_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "features/row_maxima.hpp"
#include "features/shifted_exp.hpp"
#include "linalg/gemm.hpp"
#include "runtime/eigen_threads.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {

// Query rows per task and keys per tile. The logits tile (kQueryBlock × kKeyTile, 128 KiB in float) and the
// accumulator stay in the core's 1 MiB L2 while a block streams over its keys. 128 × 256 is a middle choice, not a
// measured optimum: no size swept was clearly faster (docs/performance.md#tried-and-dropped).
constexpr Eigen::Index kQueryBlock = 128;
constexpr Eigen::Index kKeyTile = 256;

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
  constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
  Matrix<T> out(lq, dv);
  const EigenSingleThread eigen_single_thread;  // the query blocks are the parallelism (same bits on any --threads)
  const Eigen::Index blocks = (lq + kQueryBlock - 1) / kQueryBlock;
  parallel_for(blocks, threads, [&](Eigen::Index b) {
    const Eigen::Index first = b * kQueryBlock, rows = std::min(kQueryBlock, lq - first);
    const Eigen::Index keys = causal ? first + rows : k.rows();  // a causal block never reads later keys
    const Matrix<T> scaled_q = q.middleRows(first, rows) * scale;
    // The logits tile is column-major, as both products want it (tile = Q Kᵀ, acc += tile V, no transposed operand);
    // the softmax sweeps it column by column, each column contiguous and the per-row running values in L1.
    Matrix<T> tile_buffer(rows, std::min(kKeyTile, keys));
    Matrix<T> acc = Matrix<T>::Zero(rows, dv);  // Σ_j exp(s_ij − top_i) v_j over the keys so far
    // Running row maxima (−∞ before a row's first key) and Σ_j exp(s_ij − top_i); factor_i rescales a row's sums
    // when its maximum grows. Every row sees key 0 in the first tile, so top is finite from then on.
    Column<T> top = Column<T>::Constant(rows, kMinusInf), total = Column<T>::Zero(rows);
    Column<T> tile_top(rows), factor(rows), tile_sum(rows);
    for (Eigen::Index first_key = 0; first_key < keys; first_key += kKeyTile) {
      const Eigen::Index cols = std::min(kKeyTile, keys - first_key);
      auto tile = tile_buffer.leftCols(cols);
      gemm<T>(scaled_q, Op::none, k.middleRows(first_key, cols), Op::transpose, T(0), tile);
      // Causal: key first_key + j is later than queries i < first_key + j − first, which get −∞ (weight exactly 0).
      if (causal)
        for (Eigen::Index j = 0; j < cols; ++j)
          tile.col(j).head(std::clamp<Eigen::Index>(first_key + j - first, 0, rows)).setConstant(kMinusInf);
      tile_top = row_maxima<T>(tile.array());
      const bool grew = (tile_top > top).any();
      if (grew) {  // rows with a new maximum rescale what they summed so far (by 0 before the first key)
        tile_top = tile_top.max(top);
        exp_into(factor, top - tile_top, T(1));
        top = tile_top;
      }
      tile_sum.setZero();
      // shifted_exp's column sweep (features/shifted_exp.hpp), with the row sums taken while each column is in L1.
      for (Eigen::Index j = 0; j < cols; ++j) {
        auto column = tile.col(j);
        exp_into(column, column.array() - top, T(1));  // SIMD exp, exact underflow
        tile_sum += column.array();
      }
      if (grew) {
        total = total * factor + tile_sum;
        acc.array().colwise() *= factor;
      } else {
        total += tile_sum;
      }
      gemm<T>(tile, Op::none, v.middleRows(first_key, cols), Op::none, T(1), acc);
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
