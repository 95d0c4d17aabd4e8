#pragma once
// Runs `trials` independent trials on OpenMP threads, one trial per task, and returns their results in trial order.
// For expensive trials that are few (tens of attention-matrix draws), where run_parallel_trials' blocks of 32 would
// leave threads idle. Each result lands in its own slot, so the output — and anything reduced from it in index order —
// never depends on the thread count, provided body(t) depends on t only (counter-based streams).
//   body: Result(std::int64_t trial)
#include <omp.h>

#include <cstdint>
#include <exception>
#include <vector>

#include "mc/parallel_trials.hpp"

namespace favorlab {

template <class Result, class Body>
std::vector<Result> run_indexed_trials(std::int64_t trials, int threads, Body&& body, const ProgressFn& progress = {}) {
  std::vector<Result> out(static_cast<std::size_t>(trials));
  std::exception_ptr failure;
  std::int64_t done = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t t = 0; t < trials; ++t) {
    try {
      out[static_cast<std::size_t>(t)] = body(t);
    } catch (...) {
#pragma omp critical(favorlab_indexed_trial_failure)
      if (!failure) failure = std::current_exception();
    }
#pragma omp critical(favorlab_indexed_trial_progress)
    if (progress) progress(++done, trials);
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace favorlab
