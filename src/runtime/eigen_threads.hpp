#pragma once
// Keeps Eigen's own GEMM threads off while a favorlab routine runs its own OpenMP loops.
// Why: Eigen (built with OpenMP) splits a large enough product over omp_get_max_threads() threads whenever it sees a
// team of one — and a `#pragma omp parallel num_threads(1)` region, which every favorlab loop opens at --threads 1,
// is such a team. So at --threads 1 each product would start a nested team of its own: the run would use every core
// anyway and pay a thread handoff per small GEMM on a loaded machine (docs/performance.md#tried-and-dropped).
// favorlab's parallelism is its own loops; --threads is the whole budget.
// The guard sets Eigen's thread count to 1 and restores it; inside an active parallel region it does nothing (Eigen
// does not nest there, and the setting is process-wide).
#include <Eigen/Core>
#include <omp.h>

namespace favorlab {

class EigenSingleThread {
 public:
  EigenSingleThread() : active_(!omp_in_parallel()), saved_(Eigen::nbThreads()) {
    if (active_) Eigen::setNbThreads(1);
  }
  ~EigenSingleThread() {
    if (active_) Eigen::setNbThreads(saved_);
  }
  EigenSingleThread(const EigenSingleThread&) = delete;
  EigenSingleThread& operator=(const EigenSingleThread&) = delete;

 private:
  bool active_;
  int saved_;
};

}  // namespace favorlab
