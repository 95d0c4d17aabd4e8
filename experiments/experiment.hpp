#pragma once
// An experiment subcommand: a thin driver that reads its options, calls the library and returns a Result.
// Options are bound to members by add_options (CLI11); run() validates them (std::invalid_argument → exit 2).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mc/parallel_trials.hpp"
#include "mc/sequential_looks.hpp"
#include "perf/memory_estimate.hpp"
#include "results/result.hpp"

namespace favorlab {

struct RunContext {
  std::uint64_t seed = 2021;
  std::int64_t trials = 0;  // resolved: never 0 here
  int threads = 1;
  bool quick = false;
  ProgressFn progress;      // may be empty
  LookPlan looks;           // --until-conclusive: looks after the pilot of `trials` (experiments that take_looks())
};

// How an experiment runs under `mpirun -np N` (mc/distribution.hpp):
//   trial_blocks  every rank runs it; its Monte Carlo trial blocks are split over the ranks (rows bit-identical to one
//                 process);
//   rank0         rank 0 runs it alone (exact arithmetic, few expensive draws, attention engines); the others wait;
//   refused       it measures time, which other ranks on the same machine would distort: exit 2 under N > 1.
enum class Distribution { trial_blocks, rank0, refused };

class Experiment {
 public:
  virtual ~Experiment() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::int64_t default_trials(bool quick) const = 0;
  virtual void add_options(CLI::App& app) = 0;
  virtual Result run(const RunContext& ctx) = 0;
  virtual Distribution distribution() const { return Distribution::rank0; }
  // Whether run() honours ctx.looks: its open points get more trials in looks of doubling size
  // (mc/sequential_looks.hpp). The others refuse --until-conclusive.
  virtual bool takes_looks() const { return false; }
  // The peak memory run(ctx) will need, from the options alone (the memory model: perf/memory_estimate.hpp); called
  // after the options are parsed and before run(). The default is for experiments whose memory no option can make
  // large.
  virtual MemoryEstimate memory_estimate(const RunContext& ctx) const {
    (void)ctx;
    return {};
  }
  // The files the run reads, as (option, path): the result file may not be one of them.
  virtual std::vector<std::pair<std::string, std::string>> input_files() const { return {}; }
};

// Every experiment, in the order `favorlab list` and `favorlab reproduce` use.
std::vector<std::unique_ptr<Experiment>> make_experiments();

}  // namespace favorlab
