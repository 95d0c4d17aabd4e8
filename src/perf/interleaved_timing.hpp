#pragma once
// Wall-clock timing of several pieces of work, interleaved: repeat r runs every work once, in an order rotated by r
// (for two works: a b, b a, a b, …), so a drift in the machine's load hits all of them alike. Returns the seconds of
// every run, per work in the order given ([work][repeat]). Timings are measurements, never unit tests.
#include <chrono>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace favorlab {

inline std::vector<std::vector<double>> time_interleaved(int repeats, const std::vector<std::function<void()>>& works) {
  if (repeats < 1) throw std::invalid_argument("repeats must be at least 1, got " + std::to_string(repeats));
  std::vector<std::vector<double>> seconds(works.size());
  for (int r = 0; r < repeats; ++r)
    for (std::size_t i = 0; i < works.size(); ++i) {
      const std::size_t w = (i + static_cast<std::size_t>(r)) % works.size();
      const auto start = std::chrono::steady_clock::now();
      works[w]();
      seconds[w].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  return seconds;
}

}  // namespace favorlab
