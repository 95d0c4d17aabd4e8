#pragma once
// favorlab's performance targets, as `favorlab speed` reports them over its points (perf/speed_points.hpp), each a
// ratio check (perf/ratio_checks.hpp). Timing targets are measurements, never verdicts: wall clock on a machine
// shared with other jobs (the load average is in every detail), or device time; the memory target is a count,
// judged.
//   CPU: FAVOR bidirectional ≤ 1.2× its four bare products; causal FAVOR ≤ 1.3× bidirectional at L ≥ 4096; 2 threads
//     ≥ 1.8× faster than 1 at L ≥ 4096 with 8 heads (FAVOR both ways, exact); PermuteFormer ≤ 1.1× FAVOR (both
//     ways); the tiled exact kernel's gain over the naive one; oprf and sderf ≤ 1.1× positive features at
//     L ≥ 1024; exact slower than FAVOR from L = 1024 (8 heads) and at L = 4096.
//   Device: causal FAVOR ≥ 10× faster than the tiled exact baseline at L = 65536 (d = 64, m = 256, 8 heads);
//     bidirectional FAVOR ≤ 2× its cuBLAS products; causal FAVOR with bfloat16 inputs against float32 (measured).
//   Memory: causal FAVOR's peak < 3× (inputs + outputs) at L = 65536, judged only at that length.
//   FMA peak: FLOP/s of FAVOR's four products over one core's peak per thread: the bare GEMMs >= 0.8,
//     bidirectional FAVOR >= 0.7, causal FAVOR >= 0.6.
#include <string>
#include <vector>

#include "perf/fma_peak.hpp"
#include "perf/speed_methods.hpp"
#include "perf/speed_points.hpp"
#include "stats/check.hpp"

namespace favorlab {

// The "regular" shape is the 8-head one the multi-thread and exact-vs-FAVOR targets name.
std::vector<Check> cpu_speed_checks(const SpeedPoints& points, const std::vector<std::string>& shapes);

// d and m: the run's; the 10× target names d = 64, m = 256, and the detail says when the run differs.
std::vector<Check> cuda_speed_checks(const SpeedPoints& points, const std::vector<std::string>& shapes, int d, int m);

// FLOP/s of FAVOR's four products over the FMA peak (per thread), at every shape, L and thread count, for the bare
// GEMMs (target >= 0.8), bidirectional FAVOR (>= 0.7) and causal FAVOR (>= 0.6): the forwards counted by the products
// they cannot avoid, so the fraction is what their feature maps, stabilizers and bookkeeping leave of the products.
std::vector<Check> fma_fraction_checks(const SpeedPoints& points, const std::vector<SpeedShape>& shapes, int d, int m,
                                       const FmaPeak& peak);

// Causal FAVOR's peak at the largest L of each shape (its first thread count): judged at L = 65536, listed below it.
Check causal_memory_check(const SpeedPoints& points, const std::vector<SpeedShape>& shapes, int d, int m, int max_l,
                          bool gpu);

}  // namespace favorlab
