#pragma once
// Building blocks of Experiment::memory_estimate (experiment.hpp): the peak bytes of the library's large buffers as
// functions of their sizes, each read off the code named beside it. Sizes are doubles, so absurd options give huge
// numbers and never wrap. Each block is an upper bound of what that code holds at once; an experiment adds up the
// blocks that are alive together and takes the largest of the phases that run one after another.
// Calibrated against the resident set of the release binary (tests/perf/test_memory_estimates.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "experiments/experiment.hpp"
#include "features/feature_family.hpp"
#include "features/projection.hpp"
#include "io/npy.hpp"

namespace favorlab::memory {

inline constexpr double kDouble = 8, kFloat = 4;

// The estimate an experiment returns, with a margin for the allocator (freed blocks kept, page rounding): never
// negative (invalid options, which run() refuses, may give any size).
inline MemoryEstimate estimate(double bytes, std::string lower) {
  return {std::max(0.0, 1.15 * bytes + 8 * 1024 * 1024), std::move(lower)};
}

// run_parallel_trials (mc/parallel_trials.hpp): blocks of 32 trials, one block per thread at a time.
inline double block_workers(double trials, double threads) {
  return std::max(1.0, std::min(threads, std::ceil(trials / 32)));
}

// One task per thread at a time (run_indexed_trials, OpenMP loops over tasks).
inline double task_workers(double tasks, double threads) { return std::max(1.0, std::min(threads, tasks)); }

// run_parallel_trials' accumulators: a wave of up to 512 blocks, each with its own copy, plus the zero and the total.
inline double wave_accumulators(double trials, double accumulator_bytes) {
  return (std::min(512.0, std::ceil(trials / 32)) + 2) * accumulator_bytes;
}

// Result rows as JSON (nlohmann objects, ≈ 48 B a field and 160 B a row): Result::rows, result_json's copy of them,
// the dumped text (≈ 30 B a field) and its copy with the final newline. Measured: 2.6 KB a row of 17 fields, 3.6 KB of
// 21, 5.7 KB of 40.
inline double rows_bytes(double rows, double fields_per_row) { return rows * (160 * fields_per_row + 400); }

// Feature columns of φ(U) for a family with m projection rows in dimension d (attention_config.cpp's
// feature_columns, in double): 2m for trig and hyperbolic, m for the others, d for a generalized kernel without
// projection.
inline double feature_columns_of(Family f, double m, double d, bool project = true) {
  if (!estimates_softmax(f)) return project ? m : d;
  return family_info(f).columns_per_row * m;
}

// The most feature columns per projection row among the named families (either spelling); 2 for a name that does not
// parse (run() rejects it).
inline double widest_columns_per_row(const std::vector<std::string>& names) {
  double widest = 1;
  for (const std::string& name : names) {
    try {
      widest = std::max<double>(widest, family_info(parse_family(name, "feature map", [](Family) { return true; },
                                                                 true)).columns_per_row);
    } catch (const std::exception&) {
      widest = 2;
    }
  }
  return widest;
}

// Whether a generalized kernel (relu, exp, …: not an estimator of the softmax kernel) is among the named families.
inline bool any_generalized(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    try {
      if (!estimates_softmax(parse_family(name, "feature map", [](Family) { return true; }, true))) return true;
    } catch (const std::exception&) {
    }
  }
  return false;
}

// A projection W (m×d) from draw_projection (features/projection.cpp, structured_projection.cpp): W, plus what a
// block coupling holds while it draws a block — orthogonal: the d×d Gaussian, its QR and Q (3d² while W is untouched
// for m ≤ d); simplex: also the d×d vertices and the rotated block; givens: the dense d×d block and its d·⌈log₂ d⌉
// rotations (24 B) per block; hadamard: 3 sign vectors per block. Measured: orthogonal d = 2048, 3000 within 20 %.
inline double projection_bytes(Coupling coupling, double m, double d) {
  const double w = m * d * kDouble, blocks = std::ceil(m / std::max(d, 1.0)), rows = std::max(m, d);
  switch (coupling) {
    case Coupling::iid: return w;
    case Coupling::orthogonal: return (rows * d + 2 * d * d) * kDouble;
    case Coupling::simplex: return (rows * d + 4 * d * d) * kDouble;
    case Coupling::hadamard: return w + (3 * blocks * d + m + d) * kDouble;
    case Coupling::givens:
      return w + (d * d + m + d) * kDouble + blocks * d * std::ceil(std::log2(std::max(d, 2.0))) * 24;
  }
  return (rows * d + 4 * d * d) * kDouble;
}

// The largest projection_bytes among the named couplings (a name that does not parse counts as simplex: run()
// rejects it).
inline double widest_projection_bytes(const std::vector<std::string>& couplings, double m, double d) {
  double widest = 0;
  for (const std::string& name : couplings) {
    Coupling c = Coupling::simplex;
    try {
      c = parse_coupling(name);
    } catch (const std::exception&) {
    }
    widest = std::max(widest, projection_bytes(c, m, d));
  }
  return widest;
}

// The heads, rows and columns of an (L, d) or (H, L, d) .npy file, from its header alone (io/npy.hpp); nullopt for a
// file that cannot be read or has another rank (run() names the problem).
struct NpyHeads {
  double heads = 0, rows = 0, cols = 0;
  double values() const { return heads * rows * cols; }
};
inline std::optional<NpyHeads> npy_heads(const std::string& path) {
  try {
    const NpyHeader h = read_npy_header(path);
    if (h.shape.size() == 2) return NpyHeads{1, static_cast<double>(h.shape[0]), static_cast<double>(h.shape[1])};
    if (h.shape.size() == 3)
      return NpyHeads{static_cast<double>(h.shape[0]), static_cast<double>(h.shape[1]),
                      static_cast<double>(h.shape[2])};
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// Reading one file into heads of doubles (io/npy.cpp read_npy, then npy_to_heads): the raw data and the converted
// values (≤ 16 B a value), then the values and the heads' copy of them.
inline double npy_read_bytes(double values) { return 16 * values; }

// One attend()/permute_attend() call (attention/attend.cpp, permute_attention.cpp) on `heads` heads of Lq queries and
// Lk keys: the heads' outputs, W cast to the precision (and a prepared projection), and the working set of the heads
// that run at once — min(threads, heads) single-threaded heads, or one head on `threads` threads:
//   exact       per thread a block of 128 queries: its scaled queries, a 256-key logits tile, the accumulator
//               (exact_attention.cpp: independent of Lk);
//   FAVOR       one [V, 1]-state of columns × (dv+1) per 512 keys, per thread a 512-row block's features (1.5 ×
//               columns: trig and hyperbolic fill 2m columns from an m-column projection; 3 × for a generalized
//               kernel's f(Wu) + ε_k) (bidirectional_favor_blocks.hpp, attention_features.cpp); causal: a window of
//               512 rows' query features, one state per chunk and the carried state, and per thread a feature
//               block's (256 rows of whole chunks) keys, [V, 1] and projection and a chunk × chunk scores
//               (causal_favor_attention.cpp);
//   PermuteFormer  also the gathered copies of a block's features (the index maps of the current token are O(columns)
//               and no table of powers is kept: attention/position_permutation.hpp).
struct AttendShape {
  double heads = 1, lq = 0, lk = 0, d = 0, dv = 0;
  double m = 0, columns = 0;  // FAVOR: projection rows and feature columns
  bool exact = false, causal = false, permute = false;
  bool generalized = false;   // a generalized kernel (relu, exp, …) among the feature maps
  double chunk = 48;          // causal FAVOR's rows per chunk
  double scalar = kDouble;    // bytes per entry: kDouble, or kFloat for attend<float>
};

inline double attend_head_working_bytes(const AttendShape& a, double workers) {
  const double c = a.columns, dv1 = a.dv + 1, block_features = (a.generalized ? 3 : 1.5) * c;
  double entries = 0;
  if (a.exact) {
    entries = workers * 128 * (std::min(a.lk, 256.0) + a.d + 2 * a.dv + 8);
  } else if (!a.causal) {
    entries = (std::ceil(a.lk / 512) + 1) * c * dv1 +
              workers * 512 * (a.d + block_features + 2 * dv1 + (a.permute ? 2 * c : 0));
  } else {
    const double chunk = std::max(1.0, a.chunk), block = chunk * std::max(1.0, std::floor(256 / chunk));
    const double window = std::min(block * std::max(1.0, std::floor(512 / block)), std::ceil(a.lk / chunk) * chunk);
    entries = (std::ceil(window / chunk) + 1) * c * dv1 + window * (c + dv1 + 2) +
              workers * (block * (a.d + (a.generalized ? 5 : 3) * c + 2 * dv1) +
                         chunk * (chunk + 2 * dv1 + (a.permute ? 2 * c : 0)));
  }
  return entries * a.scalar;
}

// attend's heads passed braced, attend({q}, {k}, {v}, …): each head copied twice (the initializer_list's array and
// the vector's element) for the duration of the call.
inline double braced_heads_bytes(const AttendShape& a) {
  return 2 * a.heads * (a.lq * a.d + a.lk * a.d + a.lk * a.dv) * a.scalar;
}

inline double attend_bytes(const AttendShape& a, double threads) {
  const double outputs = a.heads * a.lq * a.dv * a.scalar;
  const double projection = a.exact ? 0 : a.m * (a.d + 1) * (a.scalar + kDouble);
  const double working = a.heads >= threads ? std::min(threads, a.heads) * attend_head_working_bytes(a, 1)
                                            : attend_head_working_bytes(a, threads);
  return outputs + projection + working;
}

}  // namespace favorlab::memory
