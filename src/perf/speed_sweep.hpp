#pragma once
// The measurements of `favorlab speed`: every method of the table (perf/speed_methods.hpp) at every (shape, L) and,
// on the CPU, every thread count.
// CPU: per (shape, threads, L), `repeats` timed forwards of every method, interleaved (perf/interleaved_timing.hpp:
// repeat r runs all methods in an order rotated by r), so a load burst on a shared machine hits all methods alike;
// median and min of the wall clock, median of the process CPU time, the load average sampled before each repeat.
// Eigen's own threads are off meanwhile: the engine's threads are what is measured. Peak memory: one extra forward
// per (method, shape, L) in a forked child at one thread (runtime/peak_memory.hpp: libgomp's pool does not survive fork,
// so the child cannot run a team of 2): the rise of the resident set above the inputs, outputs included.
// Device: one untimed warm-up forward, then `repeats` forwards each timed by CUDA events (device time of the whole
// forward, its allocations included), one point per (shape, L) at threads = 1; peak memory: the device bytes one
// forward allocates above its inputs, output included.
// The drop rule: a method is dropped at the next L when its predicted forward time (its time at L/2 × the growth, 4
// for quadratic methods and 2 otherwise; CPU time per thread — an idle machine's wall time, so the grid does not
// depend on the load — or device time) passes time_cap, or its predicted peak memory passes memory_cap_gb.
// Timings are measurements, never unit tests.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attention/attention_config.hpp"
#include "attention/backend.hpp"
#include "mc/parallel_trials.hpp"
#include "perf/speed_methods.hpp"
#include "perf/speed_points.hpp"

namespace favorlab {

struct SpeedSweepConfig {
  std::vector<SpeedShape> shapes;
  std::vector<int> lengths;        // ascending powers of 2 (the drop rule reads the point at L/2)
  std::vector<int> thread_counts;  // CPU; the device runs one point per (shape, L)
  AttentionConfig favor;           // the features, m and chunk every method starts from
  int d = 64;                      // = dv
  int repeats = 3;
  double time_cap = 1;             // seconds
  double memory_cap_gb = 16;       // GiB
  bool measure_memory = true;
  Backend backend = Backend::cpu;
  std::uint64_t seed = 2021;
  ProgressFn progress;             // per (shape, L); may be empty
};

struct SpeedSweep {
  SpeedPoints points;                                                 // every shape has an entry
  std::map<std::string, std::map<std::string, std::string>> dropped;  // shape → method → why
  double checksum = 0;  // the sum of every forward's returned number, so no work is optimized away
};

SpeedSweep run_speed_sweep(const SpeedSweepConfig& config);

// Why `method` must not run at length l (empty: it may), from its points at l/2 at any thread count.
std::string speed_drop_reason(const SpeedThreadPoints& shape_points, const SpeedMethod& method, int l,
                              double time_cap, double memory_cap_gb, bool gpu);

}  // namespace favorlab
