#include "perf/speed_sweep.hpp"

#include <algorithm>
#include <functional>

#include "io/format_number.hpp"
#include "runtime/eigen_threads.hpp"
#include "perf/interleaved_timing.hpp"
#include "runtime/load_average.hpp"
#include "runtime/peak_memory.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

namespace {

// Every active method on the device at one (shape, L).
void time_on_device(const SpeedSweepConfig& c, const SpeedInputs& in, const std::map<std::string, bool>& active,
                    int l, SpeedThreadPoints& points, double& checksum) {
  for (const SpeedMethod& m : speed_methods()) {
    if (!active.at(m.name)) continue;
    const CudaTiming t = m.cuda(in, c.favor, c.repeats);
    SpeedPoint& p = points[1][m.name][l];
    p.seconds_median = sample_median(t.seconds);
    p.seconds_min = *std::min_element(t.seconds.begin(), t.seconds.end());
    p.cap_seconds = p.seconds_median;
    p.load = load_average();
    if (c.measure_memory) p.peak_bytes = t.peak_bytes;
    checksum += t.first;
  }
}

// Every active method on the CPU at one (shape, L): interleaved timings at each thread count, then the peaks.
void time_on_cpu(const SpeedSweepConfig& c, const SpeedInputs& in, const std::map<std::string, bool>& active, int l,
                 SpeedThreadPoints& points, double& checksum) {
  std::vector<const SpeedMethod*> run;
  for (const SpeedMethod& m : speed_methods())
    if (active.at(m.name)) run.push_back(&m);
  for (int threads : c.thread_counts) {
    std::vector<std::function<void()>> works;
    for (const SpeedMethod* m : run) works.push_back([&, m, threads] { checksum += m->run(in, c.favor, threads); });
    std::vector<double> loads;
    const InterleavedTimes t = time_interleaved_with_cpu(c.repeats, works, [&](int) { loads.push_back(load_average()); });
    for (std::size_t i = 0; i < run.size(); ++i) {
      SpeedPoint& p = points[threads][run[i]->name][l];
      p.seconds_median = sample_median(t.wall[i]);
      p.seconds_min = *std::min_element(t.wall[i].begin(), t.wall[i].end());
      p.cpu_seconds_median = sample_median(t.cpu[i]);
      p.cap_seconds = p.cpu_seconds_median / threads;
      p.load = sample_median(loads);
    }
  }
  if (!c.measure_memory) return;
  for (const SpeedMethod* m : run) {
    const PeakMemory pm = measure_peak_memory([&] { return m->run(in, c.favor, 1); });
    checksum += pm.value;
    for (int threads : c.thread_counts) {
      SpeedPoint& p = points[threads][m->name][l];
      p.peak_bytes = pm.peak_increase_bytes;
      p.peak_exact = pm.exact;
    }
  }
}

}  // namespace

std::string speed_drop_reason(const SpeedThreadPoints& shape_points, const SpeedMethod& method, int l,
                              double time_cap, double memory_cap_gb, bool gpu) {
  const double growth = method.quadratic ? 4.0 : 2.0;
  for (const auto& [threads, by_method] : shape_points) {
    const auto it = by_method.find(method.name);
    if (it == by_method.end()) continue;
    const auto prev = it->second.find(l / 2);
    if (prev == it->second.end()) continue;
    const double t = prev->second.cap_seconds * growth;
    if (t > time_cap)
      return "predicted forward time " + format_number(t, 3) + " s (" + (gpu ? "device time" : "CPU time per thread") +
             ") at L=" + std::to_string(l) + " (" + std::to_string(threads) + " thread(s)) passes --time-cap " +
             format_number(time_cap, 3);
    const double mem = double(prev->second.peak_bytes) * growth;
    if (mem > memory_cap_gb * double(1 << 30))
      return "predicted peak memory " + format_number(mem / double(1 << 30), 3) + " GiB at L=" + std::to_string(l) +
             " passes --memory-cap-gb " + format_number(memory_cap_gb, 3);
  }
  return {};
}

SpeedSweep run_speed_sweep(const SpeedSweepConfig& c) {
  const bool gpu = c.backend == Backend::cuda;
  const EigenSingleThread eigen_off;
  SpeedSweep sweep;
  const std::int64_t total = std::int64_t(c.shapes.size() * c.lengths.size());
  std::int64_t done = 0;
  for (const SpeedShape& shape : c.shapes) {
    SpeedThreadPoints& points = sweep.points[shape.name];
    std::map<std::string, bool> active;
    for (const SpeedMethod& m : speed_methods()) active[m.name] = m.runs_on(c.backend);
    for (int l : c.lengths) {
      const SpeedInputs in = make_speed_inputs(shape.heads, l, c.d, c.favor.m, c.seed);
      for (const SpeedMethod& m : speed_methods()) {
        if (!active[m.name]) continue;
        const std::string why = speed_drop_reason(points, m, l, c.time_cap, c.memory_cap_gb, gpu);
        if (!why.empty()) active[m.name] = false, sweep.dropped[shape.name][m.name] = why;
      }
      if (gpu)
        time_on_device(c, in, active, l, points, sweep.checksum);
      else
        time_on_cpu(c, in, active, l, points, sweep.checksum);
      if (c.progress) c.progress(++done, total);
    }
  }
  return sweep;
}

}  // namespace favorlab
