#pragma once
// How a multi-head call spends its threads: heads in parallel (one thread each) when there are at least as many
// heads as threads, otherwise one head after another with all threads inside it (its row blocks). Either way every
// head's numbers are those of a fixed block order, so the output does not depend on the thread count.
// fn(h, inner_threads) computes head h. Eigen's own GEMM threads stay off meanwhile (runtime/eigen_threads.hpp).
#include <omp.h>

#include "runtime/eigen_threads.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

template <class Fn>
void for_each_head(int heads, int threads, const Fn& fn) {
  const EigenSingleThread eigen_single_thread;  // heads or row blocks are the parallelism
  if (heads >= threads) {
    parallel_for(heads, threads, [&](int h) { fn(h, 1); });
  } else {
    for (int h = 0; h < heads; ++h) fn(h, threads);
  }
}

}  // namespace favorlab
