#pragma once
// The rows of `favorlab speed` (docs/results-format.md): per measured point a "time" row — its times, its ratios to
// exact, identity and gemm at the same (shape, threads, L), its peak memory against inputs + outputs, and for gemm
// and favor_bidirectional the GEMM FLOP/s of the bare products, also as a fraction of the FMA peak; per (shape,
// threads, method) a "fit" row — the log-log slope of time against L (stats/loglog_slope.hpp) on L ≥ fit_from and why
// the method was dropped, if it was; per (shape, threads) a "crossover" row — the L from which exact is slower than
// bidirectional FAVOR (perf/crossover.hpp).
#include <optional>
#include <vector>

#include "results/result.hpp"
#include "perf/fma_peak.hpp"
#include "perf/speed_sweep.hpp"

namespace favorlab {

struct SpeedRowSettings {
  int d = 64, m = 256;  // d = dv
  int fit_from = 1024;  // the fits use L ≥ this
  bool gpu = false;     // device times and device peaks
  std::optional<FmaPeak> peak;  // the CPU's one-core peak (none on the device)
};

// FLOPs of the four bare products of bidirectional FAVOR at (heads, L), all heads.
double speed_gemm_flops(int heads, int l, int d, int m);

// Appends the rows of every shape (in the order given), thread count, method and L to `rows`.
void add_speed_rows(Json& rows, const SpeedSweep& sweep, const std::vector<SpeedShape>& shapes,
                    const SpeedRowSettings& settings);

}  // namespace favorlab
