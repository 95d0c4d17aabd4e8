#pragma once
// Peak memory of a piece of work: runs it in a forked child process and reports how far the child's resident set
// rose above where it stood just before the work started (bytes). Linux only (/proc).
// How: the child releases the allocator's free pages (malloc_trim), resets its high-water mark VmHWM to the current
// resident set by writing "5" to /proc/self/clear_refs, reads VmRSS, runs the work, reads VmHWM; the difference is
// the peak increase. Everything resident before the call (inputs built by the caller, libraries) is the baseline, so
// the figure is the work's own working set at its peak, outputs included. Where clear_refs cannot reset VmHWM (an
// old kernel, a restricted /proc), the child's VmHWM before the work stands in as the baseline: the figure is then
// max(0, peak − earlier peak), a lower bound, and `exact` says so.
// The parent's memory is never touched: the work's results do not come back (only its peak and an optional double
// for keeping the work observable).
// OpenMP: libgomp's thread pool does not survive fork (a team of 2 in the child hangs once the parent has run one), so
// the child sets its default thread count and Eigen's to 1; work must not ask for more than one thread explicitly
// (num_threads(1) teams are fine).
#include <cstdint>
#include <functional>

namespace favorlab {

struct PeakMemory {
  std::int64_t peak_increase_bytes = 0;  // max resident set during the work − resident set just before it
  std::int64_t baseline_bytes = 0;       // resident set just before the work
  bool exact = true;                     // false: VmHWM could not be reset (peak_increase is a lower bound)
  double value = 0;                      // what the work returned
};

// Runs work() in a forked child. Throws std::runtime_error if fork fails, the child dies, or the work throws (the
// message carries the child's exception text).
PeakMemory measure_peak_memory(const std::function<double()>& work);

// The current process's resident set and high-water mark (bytes), from /proc/self/status; -1 if unavailable.
std::int64_t resident_bytes();
std::int64_t resident_high_water_bytes();

}  // namespace favorlab
