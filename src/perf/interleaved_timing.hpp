#pragma once
// Timing of several pieces of work, interleaved: repeat r runs every work once, in an order rotated by r (for two
// works: a b, b a, a b, …), so a drift in the machine's load hits all of them alike. Returns the seconds of every run,
// per work in the order given ([work][repeat]). Timings are measurements, never unit tests.
#include <functional>
#include <vector>

namespace favorlab {

struct InterleavedTimes {
  std::vector<std::vector<double>> wall;  // [work][repeat]: wall-clock seconds (steady clock)
  std::vector<std::vector<double>> cpu;   // [work][repeat]: process CPU seconds, every thread (perf/cpu_time.hpp)
};

// Wall-clock and process CPU time of every run; before_repeat(r), when given, is called just before repeat r starts
// (to sample what is recorded beside the timings, such as the load average). The CPU clock is read outside the wall
// clock's interval, so the wall times do not include its reading. Throws std::invalid_argument when repeats < 1.
InterleavedTimes time_interleaved_with_cpu(int repeats, const std::vector<std::function<void()>>& works,
                                           const std::function<void(int)>& before_repeat = {});

// Wall-clock seconds alone.
std::vector<std::vector<double>> time_interleaved(int repeats, const std::vector<std::function<void()>>& works);

}  // namespace favorlab
