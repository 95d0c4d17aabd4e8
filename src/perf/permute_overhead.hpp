#pragma once
// PermuteFormer's cost over plain FAVOR: both forwards (positive features, float32, one thread) on the same Q, K, V,
// timed interleaved with the order alternating so that drifts in machine load hit both alike, median of `repeats`
// each. Informational: a wall clock on a possibly shared machine, so the target line is a measured check, never judged.
#include <cstdint>
#include <vector>

#include "results/result.hpp"

namespace favorlab {

struct PermuteOverheadGrid {
  std::vector<std::int64_t> lengths;  // L
  std::vector<int> m;                 // features; the target line reads m = 256
  int d = 64;
  int chunk = 48;    // causal chunk
  double r = 1;      // PermuteFormer's decay in the causal mode (1 in the bidirectional one)
  int repeats = 3;
  double target = 1.1;  // the time ratio PermuteFormer / FAVOR the target line compares with
  std::uint64_t seed = 0;
  std::uint64_t input_stream = 0;  // + 0 Q, + 1 K, + 2 V
  std::uint64_t perm_stream = 0;   // π
};

// Appends a row per (mode, m, L) ("kind": "overhead"), one measured target line per mode, and the sum of one output
// entry of every forward as result.measurements["overhead_checksum"] (so that no forward can be optimized away).
void measure_permute_overhead(const PermuteOverheadGrid& grid, Result& result);

// The largest memory one of those measurements takes, in bytes.
double permute_overhead_bytes(const PermuteOverheadGrid& grid);

}  // namespace favorlab
