#pragma once
// The common options of every experiment (DESIGN.md) and the run → result file path shared by the experiment
// subcommands and `reproduce`.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "experiments/experiment.hpp"

namespace favorlab {

struct CommonOptions {
  std::uint64_t seed = 2021;
  std::int64_t trials = 0;  // 0: the experiment's default (smaller with --quick)
  int threads = 0;          // 0: all processors
  std::string out;          // empty: results/<experiment>.json
  bool quick = false;
  bool quiet = false;
};

void add_common_options(CLI::App& app, CommonOptions& options);

// Validates the options, opens the output (before any work, so an unwritable path fails at once), runs the
// experiment with progress on stderr, and writes the result atomically. Returns the path written.
// Throws std::invalid_argument or OutputError for bad input.
std::filesystem::path run_experiment(Experiment& experiment, const CommonOptions& options);

int resolve_threads(int requested);

}  // namespace favorlab
