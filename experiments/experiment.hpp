#pragma once
// An experiment subcommand: a thin driver that reads its options, calls the library and returns a Result.
// Options are bound to members by add_options (CLI11); run() validates them (std::invalid_argument → exit 2).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mc/run_context.hpp"
#include "perf/memory_estimate.hpp"
#include "results/result.hpp"

namespace favorlab {

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
