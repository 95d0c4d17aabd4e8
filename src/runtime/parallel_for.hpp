#pragma once
// A parallel loop that an exception may leave. An exception escaping an OpenMP region calls std::terminate (SIGABRT,
// nothing said, a half-written state), so favorlab's loops run through parallel_for: the first exception a body throws
// (std::bad_alloc under a memory limit, a refusal from a library) is kept, iterations not yet started skip their work,
// and it is rethrown on the calling thread after the region, where the CLI turns it into one line and exit status 2.
// Iterations are handed out one at a time (dynamic, 1); which thread runs one never changes its arithmetic.
#include <omp.h>

#include <atomic>
#include <exception>

namespace favorlab {

template <class Index, class Body>
void parallel_for(Index n, int threads, const Body& body) {
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (Index i = 0; i < n; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      body(i);
    } catch (...) {
#pragma omp critical(favorlab_parallel_for_failure)
      if (!failure) failure = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace favorlab
