#pragma once
// The memory model: the peak bytes of the library's large buffers as functions of their sizes, each read off the code
// named beside it, from which every command predicts its peak memory before it allocates anything sized by its
// options (Experiment::memory_estimate, `favorlab attend`; runtime/memory_budget.hpp refuses a run that would not fit).
// Sizes are doubles, so absurd options give huge numbers and never wrap. Each block is an upper bound of what that
// code holds at once; a command adds up the blocks that are alive together and takes the largest of the phases that
// run one after another.
// Calibrated against the resident set of the release binary (tests/perf/test_memory_estimates.cpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "features/feature_family.hpp"
#include "features/projection.hpp"

namespace favorlab {

// The peak memory a run will need, predicted from its options alone before anything is allocated.
struct MemoryEstimate {
  double bytes = 0;    // working set beyond the process's baseline; a double, so absurd options give a huge number,
                       // never an overflow (options that are invalid anyway may give any non-negative value)
  std::string lower;   // the options that drive it, for the refusal message: "--m or --L"
};

}  // namespace favorlab

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
double feature_columns_of(Family f, double m, double d, bool project = true);

// The most feature columns per projection row among the named families (either spelling); 2 for a name that does not
// parse (run() rejects it).
double widest_columns_per_row(const std::vector<std::string>& names);

// Whether a generalized kernel (relu, exp, …: not an estimator of the softmax kernel) is among the named families.
bool any_generalized(const std::vector<std::string>& names);

// A projection W (m×d) from draw_projection (features/projection.cpp, structured_projection.cpp): W, plus what a
// block coupling holds while it draws a block — orthogonal: the d×d Gaussian, its QR and Q (3d² while W is untouched
// for m ≤ d); simplex: also the d×d vertices and the rotated block; givens: the dense d×d block and its d·⌈log₂ d⌉
// rotations (24 B) per block; hadamard: 3 sign vectors per block. Measured: orthogonal d = 2048, 3000 within 20 %.
double projection_bytes(Coupling coupling, double m, double d);

// The largest projection_bytes among the named couplings (a name that does not parse counts as simplex: run()
// rejects it).
double widest_projection_bytes(const std::vector<std::string>& couplings, double m, double d);

// The heads, rows and columns of an (L, d) or (H, L, d) .npy file, from its header alone (io/npy.hpp); nullopt for a
// file that cannot be read or has another rank (run() names the problem).
struct NpyHeads {
  double heads = 0, rows = 0, cols = 0;
  double values() const { return heads * rows * cols; }
};
std::optional<NpyHeads> npy_heads(const std::string& path);

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

double attend_head_working_bytes(const AttendShape& a, double workers);

// attend's heads passed braced, attend({q}, {k}, {v}, …): each head copied twice (the initializer_list's array and
// the vector's element) for the duration of the call.
inline double braced_heads_bytes(const AttendShape& a) {
  return 2 * a.heads * (a.lq * a.d + a.lk * a.d + a.lk * a.dv) * a.scalar;
}

double attend_bytes(const AttendShape& a, double threads);

// One run of evaluation/permute_long_run.cpp at length L: Q and K in double and float32, V = 1, the exact features'
// norms, the causal float32 PermuteFormer forward (one thread) and the 4096-row blocks of features in double.
double permute_long_run_bytes(double L, double d, double m, double columns, double chunk, bool generalized);

// One layer of an attention report (evaluation/attention_report.cpp), its heads read and copied, then one head at a
// time: float32 and bfloat16-rounded copies, the exact outputs, for L ≤ matrix_max_L the Lq×L matrix A (one-hot V =
// I_L) and its SVD, and per concurrent (arm, m, draw) task a projection and a FAVOR forward (with the matrix, Â from a
// forward of width L). square: an L×L matrix the layer's synthesis keeps (0 for read layers). The phases run one after
// another; the largest counts.
struct ReportLayerSize {
  double heads = 1, lq = 0, lk = 0, d = 0, dv = 0;
};
double report_layer_bytes(const ReportLayerSize& l, double max_m, double columns, bool any_causal,
                          double matrix_max_L, const std::vector<std::string>& couplings, double tasks, double threads,
                          double square);

}  // namespace favorlab::memory
