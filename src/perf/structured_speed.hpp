#pragma once
// The speed of applying a structured projection W to a batch of vectors, x ↦ Wx: a dense GEMM against the fast
// Hadamard (SORF blocks √d·H D₁ H D₂ H D₃) and Givens applies, one thread for every method so that the ratios compare
// algorithms rather than parallel efficiency, median of `repeats` interleaved runs, ratios to dense from the same run.
// A timing, reported and never judged.
#include <cstdint>
#include <vector>

#include "results/result.hpp"

namespace favorlab {

// Appends three rows ("kind": "speed", methods dense, hadamard, givens) per d in `dims` (powers of 2), and the sum
// of one output entry of every run as result.measurements["speed_checksum"] (the timed work stays observable). Rows
// carry null geometry and estimator fields: the key fields of the point rows beside them.
void measure_structured_speed(const std::vector<int>& dims, int batch, int repeats, std::uint64_t seed, Result& result);

// The most memory one d takes: the dense W, the input and the outputs, and the Givens rotations.
double structured_speed_bytes(const std::vector<int>& dims, int batch);

}  // namespace favorlab
