#pragma once
// Runs `trials` independent Monte Carlo trials on OpenMP threads with a reduction whose order never depends on the
// thread count: trials are cut into fixed blocks of kBlock, each block is accumulated sequentially into its own
// accumulator, and blocks are merged in index order, a wave of kWave blocks at a time (bounded memory).
// Together with counter-based streams (a trial's randomness depends on its index only) this makes results
// bit-identical for any --threads.
//   Acc:  copyable, with merge(const Acc&)
//   body: void(std::int64_t trial, Acc& acc)     must not depend on anything but the trial index and acc
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace favorlab {

using ProgressFn = std::function<void(std::int64_t done, std::int64_t total)>;

// Progress of part `part` (0-based) of `parts` equal parts, reported as progress of the whole.
inline ProgressFn part_progress(const ProgressFn& whole, std::size_t part, std::size_t parts) {
  if (!whole) return {};
  return [=](std::int64_t done, std::int64_t total) {
    whole(static_cast<std::int64_t>(part) * total + done, static_cast<std::int64_t>(parts) * total);
  };
}

template <class Acc, class Body>
Acc run_parallel_trials(std::int64_t trials, int threads, const Acc& zero, Body&& body,
                        const ProgressFn& progress = {}) {
  constexpr std::int64_t kBlock = 32, kWave = 512;
  const std::int64_t blocks = (trials + kBlock - 1) / kBlock;
  Acc total = zero;
  std::exception_ptr failure;
  for (std::int64_t wave = 0; wave < blocks; wave += kWave) {
    const std::int64_t count = std::min(kWave, blocks - wave);
    std::vector<Acc> parts(static_cast<std::size_t>(count), zero);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) {
      try {
        const std::int64_t first = (wave + i) * kBlock, last = std::min(trials, first + kBlock);
        for (std::int64_t t = first; t < last; ++t) body(t, parts[static_cast<std::size_t>(i)]);
      } catch (...) {
#pragma omp critical(favorlab_trial_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    for (const Acc& part : parts) total.merge(part);
    if (progress) progress(std::min(trials, (wave + count) * kBlock), trials);
  }
  return total;
}

}  // namespace favorlab
