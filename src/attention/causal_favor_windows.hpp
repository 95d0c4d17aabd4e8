#pragma once
// The windowed algorithm behind causal FAVOR, shared by plain FAVOR and PermuteFormer (as
// bidirectional_favor_blocks.hpp is for the bidirectional side). The variation is passed in:
//   features.queries(first, rows)          → {values (rows × columns), log_scale: one per row}
//   features.causal_keys(first, rows, −∞)  → {values: φ(k_j)·exp(−running_j), running: the running maximum of the
//                                            key log scales from row `first` on}
// and a decay r ∈ (0, 1] weighting key j for query i ≥ j by r^(i−j) (PermuteFormer's relative-position decay; r = 1
// is FAVOR, whose arithmetic then has no decay factor at all). FavorFeatures (attention/favor_features.hpp) for FAVOR;
// PermutedFeatures (attention/permuted_features.hpp) for PermuteFormer.
//
// A head runs in windows of kCausalWindowRows rows (whole feature blocks): phase 1 forms each feature block's
// features and each of its chunks' own part in parallel; phase 2 chains the chunk states in order; phase 3 finishes
// each chunk's outputs in parallel, together with phase 1 of the next window. Every size is a constant or the chunk,
// never the thread count, so the arithmetic — and every bit of the output — is the same on any number of threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "attention/attention_config.hpp"
#include "attention/attention_features.hpp"
#include "attention/favor_features.hpp"
#include "attention/values_with_ones.hpp"
#include "features/shifted_exp.hpp"
#include "linalg/gemm.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

// Rows per window (whole feature blocks): the blocks and chunks of one window run in parallel (phases 1 and 3
// below). A constant, never the thread count, so the arithmetic — and every bit of the output — is the same on any
// number of threads. Why 512: a window holds its query features and one m × (dv+1) state per chunk, ~1 MB at
// m = 256, dv = 64 in float, about the 1 MiB L2 of the development machine; 2048 rows spill it
// (docs/performance.md#tried-and-dropped).
inline constexpr Eigen::Index kCausalWindowRows = 512;

// Rows per feature block: the queries' and keys' features are formed for whole chunks, this many rows (at least one
// chunk) at a time, then cut into chunks. So the chunk, which sets the within-chunk work (∝ chunk per row), is chosen
// apart from the size of the feature GEMMs, and two blocks per window keep two threads of one head busy. A constant,
// like kCausalWindowRows.
inline constexpr Eigen::Index kCausalFeatureRows = 256;

namespace causal_detail {

// What one chunk computes on its own, before the state of earlier chunks is known. Everything is relative to the
// running maximum r_j of the key log scales over the chunk's feature block (r starts at −∞ at the block's first
// row, so it never depends on later keys): once the block's maximum is reached r is flat over whole chunks, whose
// exp factors are then exactly 1 — without decay their within-chunk weights and key rescaling are skipped.
template <class T>
struct ChunkPart {
  Column<T> running;  // r_j, the running maximum of key log scales since the feature block's first row
  Matrix<T> local;    // [num, den] of the keys inside the chunk, row i relative to exp(r_i)
  Matrix<T> state;    // Σ_j K'_j [V_j, 1] over the chunk, relative to exp(r_last), decayed to the next chunk's start
};

// A feature block: whole chunks, queries kept for phase 3.
template <class T, class Queries>
struct BlockPart {
  Queries queries;  // Q' (relative to exp(query log scale)) and the query log scales of the block's rows
  std::vector<ChunkPart<T>> chunks;
};

// The within-chunk part of a chunk from its queries' and keys' features and its [V, 1] (row blocks of the feature
// block's); keys holds K̃_j relative to exp(r_j) and is rescaled in place. decay holds r^0 … r^chunk, or nothing
// for r = 1.
template <class T, class Queries, class Keys, class Values>
ChunkPart<T> chunk_part(const Queries& queries, Keys&& keys, Column<T> running, const Values& values,
                        const Column<T>& decay) {
  const Eigen::Index rows = queries.rows();
  ChunkPart<T> part;
  part.running = std::move(running);
  // Scores of query i and key j ≤ i only, as two halves: the first h queries against the first h keys, the others
  // against all; the top-right h × (rows − h) corner (keys after every query of the upper half) is never formed —
  // the mask below zeroes it — which saves a quarter of the scores' and of the local product's multiply-adds.
  const Eigen::Index h = rows / 2;
  Matrix<T> scores(rows, rows);
  gemm<T>(queries.topRows(h), Op::none, keys.topRows(h), Op::transpose, T(0), scores.topLeftCorner(h, h));
  gemm<T>(queries.bottomRows(rows - h), Op::none, keys, Op::transpose, T(0), scores.bottomRows(rows - h));
  // Query i weighs key j ≤ i by exp(r_j − r_i) · r^(i−j) ≤ 1. The running maximum only grows, so when its first
  // and last values agree every exp factor is exactly 1 and, without decay, the products can be skipped — the common
  // case once the maximum has been reached. Column by column: contiguous entries and one vectorized exp per column.
  const bool constant = part.running(0) == part.running(rows - 1), decayed = decay.size() > 0;
  Column<T> factor(rows);
  for (Eigen::Index j = 0; j < rows; ++j) {
    scores.col(j).head(j).setZero();  // queries before key j
    const Eigen::Index later = rows - j - 1;
    if (later == 0 || (constant && !decayed)) continue;
    auto weights = factor.head(later);
    if (constant) {
      weights = decay.segment(1, later);
    } else {
      exp_into(weights, part.running(j) - part.running.tail(later), T(1));
      if (decayed) weights *= decay.segment(1, later);
    }
    scores.col(j).tail(later).array() *= weights;
  }
  part.local.resize(rows, values.cols());
  gemm<T>(scores.topLeftCorner(h, h), Op::none, values.topRows(h), Op::none, T(0), part.local.topRows(h));
  gemm<T>(scores.bottomRows(rows - h), Op::none, values, Op::none, T(0), part.local.bottomRows(rows - h));

  // The keys carried to the next chunk's start: × exp(r_j − r_last) · r^(rows − j).
  const T last = part.running(rows - 1);
  if (!constant || decayed) {
    if (constant)
      factor.setOnes();
    else
      exp_into(factor, part.running - last, T(1));  // a column first: a broadcast exp would be one std::exp per entry
    if (decayed) factor *= decay.segment(1, rows).reverse();
    keys.array().colwise() *= factor;
  }
  part.state.resize(keys.cols(), values.cols());
  gemm<T>(keys, Op::transpose, values, Op::none, T(0), part.state);
  return part;
}

template <class Features>
using QueriesOf = decltype(std::declval<const Features&>().queries(0, 0));

// Feature block [first, first + rows) of whole chunks: features of its queries and keys in one pass each (keys
// relative to their running maximum since the block's first row), then each chunk's part.
template <class T, class Features>
BlockPart<T, QueriesOf<Features>> block_part(const Features& features, const Matrix<T>& v, Eigen::Index chunk,
                                                const Column<T>& decay, Eigen::Index first, Eigen::Index rows) {
  auto keys = features.causal_keys(first, rows, -std::numeric_limits<T>::infinity());
  BlockPart<T, QueriesOf<Features>> block;
  block.queries = features.queries(first, rows);
  const Matrix<T> values = values_with_ones(v, first, rows);
  for (Eigen::Index c = 0; c < rows; c += chunk) {
    const Eigen::Index n = std::min(chunk, rows - c);
    block.chunks.push_back(chunk_part<T>(block.queries.values.middleRows(c, n), keys.values.middleRows(c, n),
                                         keys.running.segment(c, n), values.middleRows(c, n), decay));
  }
  return block;
}

// Phase 2, in order: the state entering each chunk of the window's blocks, into incoming (relative to exp of
// incoming_scale), from `state`: G before the window, relative to exp(carried) (empty: no keys yet). M only grows, so
// every factor exp(· − M_new) is ≤ 1. Each chunk's state becomes, in place, G after it (the chunk after it reads
// that), relative to exp(M after it) and decayed to the next chunk's start (the state before it by r^rows). Returns
// G after the window's last chunk; carried becomes M after it.
template <class T, class Queries>
const Matrix<T>* chain_window(std::vector<BlockPart<T, Queries>>& blocks, const Matrix<T>& state, T& carried,
                              const Column<T>& decay, std::vector<const Matrix<T>*>& incoming,
                              std::vector<T>& incoming_scale) {
  incoming.clear();
  incoming_scale.clear();
  const Matrix<T>* before = state.size() > 0 ? &state : nullptr;
  for (auto& block : blocks)
    for (ChunkPart<T>& p : block.chunks) {
      incoming.push_back(before);
      incoming_scale.push_back(carried);
      const T top = p.running(p.running.size() - 1);
      const T next = std::max(carried, top);
      if (before == nullptr)
        p.state *= std::exp(top - next);
      else if (decay.size() == 0)
        p.state = *before * std::exp(carried - next) + p.state * std::exp(top - next);
      else
        p.state = *before * (std::exp(carried - next) * decay(p.running.size())) + p.state * std::exp(top - next);
      carried = next;
      before = &p.state;
    }
  return before;
}

// Phase 3 of one chunk, chunk `index` of `block` (chunk rows each): its outputs, rows [first, first + rows) of out,
// from its own part and g, the state entering it relative to exp(scale) (null: no keys before it), read by the
// chunk's row i with r^i. Row i is taken relative to exp(M_i), M_i = max(scale, r_i): the running maximum over keys
// 0..i, so output i depends on keys and values 0..i only.
template <class T, class Queries>
void finish_chunk(const BlockPart<T, Queries>& block, Eigen::Index index, Eigen::Index chunk, const Matrix<T>* g,
                  T scale, const Column<T>& decay, bool renormalize, Eigen::Index first, Matrix<T>& out) {
  const ChunkPart<T>& p = block.chunks[std::size_t(index)];
  const Eigen::Index dv = out.cols(), offset = index * chunk, rows = p.running.size();
  const Column<T> top = p.running.max(scale);  // M_i
  Column<T> factor(rows);  // each exp as a column first: a broadcast exp would be one std::exp per entry
  exp_into(factor, p.running - top, T(1));
  Matrix<T> num = (p.local.array().colwise() * factor).matrix();
  if (g != nullptr) {
    exp_into(factor, scale - top, T(1));
    if (decay.size() > 0) factor *= decay.head(rows);
    Matrix<T> carried(rows, g->cols());
    gemm<T>(block.queries.values.middleRows(offset, rows), Op::none, *g, Op::none, T(0), carried);
    num += (carried.array().colwise() * factor).matrix();
  }
  if (renormalize)
    out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() / num.col(dv).array()).matrix();
  else
    out.middleRows(first, rows) =
        (num.leftCols(dv).array().colwise() * (block.queries.log_scale.segment(offset, rows) + top).exp()).matrix();
}

}  // namespace causal_detail

// Causal attention of one head over `length` rows (queries and keys alike) with values v, decay r ∈ (0, 1].
template <class T, class Features>
Matrix<T> causal_favor_windows(Eigen::Index length, const Matrix<T>& v, const AttentionConfig& config, int threads,
                               const Features& features, double r = 1) {
  using namespace causal_detail;
  using Block = BlockPart<T, QueriesOf<Features>>;
  const Eigen::Index dv = v.cols(), chunk = std::min<Eigen::Index>(config.chunk, std::max<Eigen::Index>(1, length));
  const Eigen::Index block_rows = chunk * std::max<Eigen::Index>(1, kCausalFeatureRows / chunk);  // whole chunks
  const Eigen::Index window_rows = block_rows * std::max<Eigen::Index>(1, kCausalWindowRows / block_rows);
  const Eigen::Index per_block = block_rows / chunk;
  // decay(t) = r^t for 0 ≤ t ≤ chunk: the only powers of r ever used (each ≤ 1; far ones underflow to 0, the correctly
  // rounded value of a weight below the smallest subnormal). Empty for r = 1: no decay factor at all.
  Column<T> decay(r == 1 ? 0 : chunk + 1);
  for (Eigen::Index t = 0; t < decay.size(); ++t) decay(t) = static_cast<T>(std::pow(r, static_cast<double>(t)));
  Matrix<T> out(length, dv);
  Matrix<T> state;                                          // G before the window, relative to exp(carried)
  T carried = -std::numeric_limits<T>::infinity();          // M before the window (−∞: no keys yet)
  std::vector<Block> blocks, ahead;        // the window's feature blocks; the next window's, formed during phase 3
  std::vector<const Matrix<T>*> incoming;  // per chunk of the window: G before it, relative to exp(incoming_scale)
  std::vector<T> incoming_scale;

  const auto blocks_of = [&](Eigen::Index w0) {  // the number of feature blocks of the window starting at row w0
    return w0 >= length ? Eigen::Index(0) : (std::min(window_rows, length - w0) + block_rows - 1) / block_rows;
  };
  // Phase 1 of the window at w0, block b: its features and each of its chunks on their own.
  const auto form_block = [&](std::vector<Block>& into, Eigen::Index w0, Eigen::Index b) {
    const Eigen::Index first = w0 + b * block_rows;
    into[std::size_t(b)] = block_part<T>(features, v, chunk, decay, first, std::min(block_rows, length - first));
  };
  // Phase 3 of the window at w0, chunk c: its outputs from its own part and the state entering it.
  const auto finish = [&](Eigen::Index w0, Eigen::Index c) {
    finish_chunk(blocks[std::size_t(c / per_block)], c % per_block, chunk, incoming[std::size_t(c)],
                 incoming_scale[std::size_t(c)], decay, config.renormalize, w0 + c * chunk, out);
  };

  // The first window's feature blocks, then for each window: its chain (phase 2), then one parallel pass that
  // finishes its chunks (phase 3) and forms the next window's blocks (phase 1), which need nothing of this window —
  // the larger tasks first. One pass instead of two halves the points where every thread waits for the slowest, and a
  // window's two blocks are not a pass of their own, two tasks for two threads with nothing to balance them.
  // On one thread the pass would form the next blocks while this window's still hold their memory, so there the
  // phases run in order (docs/performance.md#tried-and-dropped). Which thread runs a task never changes its arithmetic.
  blocks.resize(std::size_t(blocks_of(0)));
  parallel_for(Eigen::Index(blocks.size()), threads, [&](Eigen::Index b) { form_block(blocks, 0, b); });
  for (Eigen::Index w0 = 0; w0 < length; w0 += window_rows) {
    // Phase 2: G after the window's last chunk.
    const Matrix<T>* const before = chain_window(blocks, state, carried, decay, incoming, incoming_scale);
    const Eigen::Index next = w0 + window_rows, formed = blocks_of(next), chunks = Eigen::Index(incoming.size());
    if (threads == 1) {  // in order: the next window's blocks then reuse the memory this window's free
      for (Eigen::Index c = 0; c < chunks; ++c) finish(w0, c);
      state = *before;
      blocks.clear();
      blocks.resize(std::size_t(formed));
      for (Eigen::Index b = 0; b < formed; ++b) form_block(blocks, next, b);
      continue;
    }
    ahead.clear();
    ahead.resize(std::size_t(formed));
    parallel_for(Eigen::Index(formed + chunks), threads, [&](Eigen::Index t) {
      if (t < formed)
        form_block(ahead, next, t);
      else
        finish(w0, t - formed);
    });
    state = *before;  // after phase 3, which reads the window's first incoming state: that may be `state` itself
    std::swap(blocks, ahead);
  }
  return out;
}

}  // namespace favorlab
