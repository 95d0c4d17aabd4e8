#include "attention/causal_favor_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention/attention_features.hpp"
#include "attention/values_with_ones.hpp"
#include "features/shifted_exp.hpp"

namespace favorlab {

namespace {

// Rows per window: the chunks of one window run in parallel (phases 1 and 3 below). A constant, never the thread
// count, so the arithmetic — and every bit of the output — is the same on any number of threads. Why 512: a window
// holds per chunk its query features and two m × (dv+1) states, ~130 KB per 64-row chunk at m = 256, dv = 64 in
// float, so 2048 rows (32 chunks, ~4 MB) spill the 1 MiB L2 of the development machine and 512 rows (~1 MB) about
// fit. Measured at L = 4096, d = 64, m = 256, float, best of 7: 8 heads at one thread 192–205 ms (2048 rows),
// 148–150 (1024), 143–152 (512), 146–197 (256); one head on two threads 13.6–14.1 ms (2048), 11.4–13.2 (512). 512
// still gives 8 chunks per window to the threads of one head.
constexpr Eigen::Index kWindowRows = 512;

template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;

// What one chunk computes on its own, before the state of earlier chunks is known. Everything is relative to the
// chunk's own running maximum r_j of the key log scales (r starts at −∞ at the chunk's first row).
template <class T>
struct ChunkPart {
  Matrix<T> queries;     // Q'_c (query features, relative to exp(query log scale))
  Column<T> query_scale; // query log scales
  Column<T> running;     // r_j, the chunk-local running maximum of key log scales
  Matrix<T> local;       // [num, den] of the keys inside the chunk, row i relative to exp(r_i)
  Matrix<T> state;       // Σ_j K'_j [V_j, 1] over the chunk, relative to exp(r_last)
};

template <class T>
ChunkPart<T> chunk_part(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                        const AttentionConfig& config, Eigen::Index first, Eigen::Index rows) {
  ChunkPart<T> part;
  // K̃_j relative to exp(r_j): the running maximum goes straight into the keys' exponents (one pass).
  ScaledFeatures<T> keys = relative_features_of_rows<T>(k, first, rows, w, config, [](const Column<T>& own) {
    return running_maxima(own, -std::numeric_limits<T>::infinity());
  });
  ScaledFeatures<T> queries = attention_features_of_rows(q, first, rows, w, config);
  part.running = std::move(keys.log_scale);

  Matrix<T> scores(rows, rows);
  scores.noalias() = queries.values * keys.values.transpose();
  // Query i weighs key j ≤ i by exp(r_j − r_i) ≤ 1. The running maximum only grows, so when its first and last
  // values agree every factor is exactly 1 and the products can be skipped — the common case once the maximum has
  // been reached. Column by column: contiguous entries and one vectorized exp per column.
  const bool constant = part.running(0) == part.running(rows - 1);
  Column<T> factor(rows);
  for (Eigen::Index j = 0; j < rows; ++j) {
    scores.col(j).head(j).setZero();  // queries before key j
    const Eigen::Index later = rows - j - 1;
    if (constant || later == 0) continue;
    auto weights = factor.head(later);
    exp_into(weights, part.running(j) - part.running.tail(later), T(1));
    scores.col(j).tail(later).array() *= weights;
  }
  const Matrix<T> values = values_with_ones(v, first, rows);
  part.local.noalias() = scores * values;

  const T last = part.running(rows - 1);
  if (!constant) {
    exp_into(factor, part.running - last, T(1));  // a column first: a broadcast exp would be one std::exp per entry
    keys.values.array().colwise() *= factor;
  }
  part.state.noalias() = keys.values.transpose() * values;
  part.queries = std::move(queries.values);
  part.query_scale = std::move(queries.log_scale);
  return part;
}

}  // namespace

template <class T>
Matrix<T> causal_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                                 const AttentionConfig& config, int threads) {
  const Eigen::Index length = q.rows(), dv = v.cols(), chunk = config.chunk;
  const Eigen::Index chunks = (length + chunk - 1) / chunk;
  const Eigen::Index window = std::max<Eigen::Index>(1, kWindowRows / chunk);
  Matrix<T> out(length, dv);
  Matrix<T> state;                                          // G before the window, relative to exp(carried)
  T carried = -std::numeric_limits<T>::infinity();          // M before the window (−∞: no keys yet)
  std::vector<ChunkPart<T>> parts;
  std::vector<Matrix<T>> incoming;  // per chunk of the window: G before it, relative to exp(incoming_scale)
  std::vector<T> incoming_scale;
  for (Eigen::Index w0 = 0; w0 < chunks; w0 += window) {
    const Eigen::Index count = std::min(window, chunks - w0);
    parts.assign(std::size_t(count), {});
    // Phase 1, in parallel: each chunk on its own.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (Eigen::Index c = 0; c < count; ++c) {
      const Eigen::Index first = (w0 + c) * chunk;
      parts[std::size_t(c)] = chunk_part(q, k, v, w, config, first, std::min(chunk, length - first));
    }
    // Phase 2, in order: the state entering each chunk. M only grows, so every factor exp(· − M_new) is ≤ 1.
    incoming.assign(std::size_t(count), {});
    incoming_scale.assign(std::size_t(count), carried);
    for (Eigen::Index c = 0; c < count; ++c) {
      const ChunkPart<T>& p = parts[std::size_t(c)];
      incoming[std::size_t(c)] = state;
      incoming_scale[std::size_t(c)] = carried;
      const T top = p.running(p.running.size() - 1);
      const T next = std::max(carried, top);
      if (state.size() == 0)
        state = p.state * std::exp(top - next);
      else
        state = state * std::exp(carried - next) + p.state * std::exp(top - next);
      carried = next;
    }
    // Phase 3, in parallel: each chunk's outputs from its own part and the state entering it. Row i is taken
    // relative to exp(M_i), M_i = max(incoming scale, r_i): the running maximum over keys 0..i, so output i depends
    // on keys and values 0..i only.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (Eigen::Index c = 0; c < count; ++c) {
      const ChunkPart<T>& p = parts[std::size_t(c)];
      const Eigen::Index first = (w0 + c) * chunk, rows = p.running.size();
      const T before = incoming_scale[std::size_t(c)];
      const Column<T> top = p.running.max(before);  // M_i
      Column<T> factor(rows);  // each exp as a column first: a broadcast exp would be one std::exp per entry
      exp_into(factor, p.running - top, T(1));
      Matrix<T> num = (p.local.array().colwise() * factor).matrix();
      if (incoming[std::size_t(c)].size() > 0) {
        exp_into(factor, before - top, T(1));
        num += ((p.queries * incoming[std::size_t(c)]).array().colwise() * factor).matrix();
      }
      if (config.renormalize)
        out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() / num.col(dv).array()).matrix();
      else
        out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() * (p.query_scale + top).exp()).matrix();
    }
  }
  return out;
}

template Matrix<float> causal_favor_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                                              const Matrix<float>&, const AttentionConfig&, int);
template Matrix<double> causal_favor_attention(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                               const Matrix<double>&, const AttentionConfig&, int);

}  // namespace favorlab
