#pragma once
// What a run draws on, resolved by the command line before it starts: the seed, the pilot's trials per point, the
// threads, the size preset, the progress callback and the plan of looks. In this layer so that library pieces that run
// a whole measurement (evaluation/) take the same context as the drivers.
#include <cstdint>

#include "mc/parallel_trials.hpp"
#include "mc/sequential_looks.hpp"

namespace favorlab {

struct RunContext {
  std::uint64_t seed = 2021;
  std::int64_t trials = 0;  // resolved: never 0 here
  int threads = 1;
  bool quick = false;
  ProgressFn progress;      // may be empty
  LookPlan looks;           // --until-conclusive: looks after the pilot of `trials` (experiments that take_looks())
};

}  // namespace favorlab
