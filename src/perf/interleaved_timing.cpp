#include "perf/interleaved_timing.hpp"

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "perf/cpu_time.hpp"

namespace favorlab {

InterleavedTimes time_interleaved_with_cpu(int repeats, const std::vector<std::function<void()>>& works,
                                           const std::function<void(int)>& before_repeat) {
  if (repeats < 1) throw std::invalid_argument("repeats must be at least 1, got " + std::to_string(repeats));
  InterleavedTimes t{std::vector<std::vector<double>>(works.size()), std::vector<std::vector<double>>(works.size())};
  for (int r = 0; r < repeats; ++r) {
    if (before_repeat) before_repeat(r);
    for (std::size_t i = 0; i < works.size(); ++i) {
      const std::size_t w = (i + static_cast<std::size_t>(r)) % works.size();
      const double cpu_start = process_cpu_seconds();
      const auto start = std::chrono::steady_clock::now();
      works[w]();
      t.wall[w].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      t.cpu[w].push_back(process_cpu_seconds() - cpu_start);
    }
  }
  return t;
}

std::vector<std::vector<double>> time_interleaved(int repeats, const std::vector<std::function<void()>>& works) {
  return time_interleaved_with_cpu(repeats, works).wall;
}

}  // namespace favorlab
