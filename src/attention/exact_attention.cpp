#include "attention/exact_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "features/shifted_exp.hpp"
#include "perf/eigen_threads.hpp"

namespace favorlab {

namespace {

// Query rows per task and keys per tile. The logits tile (kQueryBlock × kKeyTile, 128 KiB in float) and the
// accumulator stay in the core's 1 MiB L2 while a block streams over its keys. A sweep of 64–256 rows × 128–1024 keys
// (2 heads, L = 4096, one thread, on the shared 2-core machine) gave 0.19–0.30 s for every pair, within its noise:
// 128 × 256 is a middle choice, not a measured optimum.
constexpr Eigen::Index kQueryBlock = 128;
constexpr Eigen::Index kKeyTile = 256;

template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;

// Entries (i, j) of a causal tile whose key first_key + j lies after query first_query + i, set to `value`.
template <class T, class Tile>
void mask_later_keys(Tile&& tile, Eigen::Index first_query, Eigen::Index first_key, T value) {
  const Eigen::Index cols = tile.cols();
  for (Eigen::Index i = 0; i < tile.rows(); ++i) {
    const Eigen::Index visible = std::clamp<Eigen::Index>(first_query + i + 1 - first_key, 0, cols);
    tile.row(i).tail(cols - visible).setConstant(value);
  }
}

}  // namespace

template <class T>
Matrix<T> exact_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, bool causal, bool renormalize,
                          int threads) {
  const Eigen::Index lq = q.rows(), dv = v.cols();
  const T scale = T(1 / std::sqrt(double(q.cols())));
  Matrix<T> out(lq, dv);
  const EigenSingleThread eigen_single_thread;  // the query blocks are the parallelism (same bits on any --threads)
  const Eigen::Index blocks = (lq + kQueryBlock - 1) / kQueryBlock;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index first = b * kQueryBlock, rows = std::min(kQueryBlock, lq - first);
    const Eigen::Index keys = causal ? first + rows : k.rows();  // a causal block never reads later keys
    const Matrix<T> scaled_q = q.middleRows(first, rows) * scale;
    Matrix<T> tile_buffer(rows, std::min(kKeyTile, keys));
    Matrix<T> acc = Matrix<T>::Zero(rows, dv);  // Σ_j exp(s_ij − top_i) v_j over the keys so far
    Column<T> top(rows), total = Column<T>::Zero(rows);  // running row maxima and Σ_j exp(s_ij − top_i)
    // Tiles in key order: the first holds key 0, which every query sees, so every row's maximum is finite from the
    // first tile on (a causal row may see no key of a later tile: its tile maximum is −∞ and changes nothing).
    for (Eigen::Index first_key = 0; first_key < keys; first_key += kKeyTile) {
      const Eigen::Index cols = std::min(kKeyTile, keys - first_key);
      auto tile = tile_buffer.leftCols(cols);
      tile.noalias() = scaled_q * k.middleRows(first_key, cols).transpose();
      const bool masked = causal && first_key + cols - 1 > first;  // some key of the tile is later than some query
      if (masked) mask_later_keys(tile, first, first_key, -std::numeric_limits<T>::infinity());
      const Column<T> tile_top = tile.rowwise().maxCoeff().array();
      if (first_key == 0) {
        top = tile_top;
      } else if ((tile_top > top).any()) {  // a new maximum: rescale what was summed relative to the old one
        const Column<T> new_top = top.max(tile_top);
        const Column<T> factor = (top - new_top).exp();
        acc.array().colwise() *= factor;
        total *= factor;
        top = new_top;
      }
      // Eigen's SIMD exp turns −∞ into a tiny positive number, so masked entries are zeroed again: no output sees
      // a later key.
      shifted_exp(tile.array(), top, T(1));
      if (masked) mask_later_keys(tile, first, first_key, T(0));
      total += tile.rowwise().sum().array();
      acc.noalias() += tile * v.middleRows(first_key, cols);
    }
    if (renormalize)
      out.middleRows(first, rows) = (acc.array().colwise() / total).matrix();
    else
      out.middleRows(first, rows) = (acc.array().colwise() * top.exp()).matrix();
  }
  return out;
}

template Matrix<float> exact_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&, bool, bool,
                                       int);
template Matrix<double> exact_attention(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&, bool,
                                        bool, int);

}  // namespace favorlab
