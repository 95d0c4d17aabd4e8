#pragma once
// The common options of every experiment (docs/results-format.md#common-options) and the run → result file path shared
// by the experiment subcommands and `reproduce`.
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
  std::string out;          // empty: results/<experiment>.json; "-": the JSON on stdout
  std::string max_memory;   // empty: the memory available (runtime/memory_budget.hpp)
  bool quick = false;
  bool quiet = false;
  bool check_lines = true;  // one stderr line per check after the run (reproduce prints them with --verbose only)
  // Looks after the pilot (mc/sequential_looks.hpp), for the experiments that take them:
  bool until_conclusive = false;
  int max_looks = 0;            // 0: kDefaultMaxLooks with --until-conclusive or --budget, else 1 (fixed trials)
  double budget_seconds = 0;    // 0: no budget; else the wall-clock for the looks (--budget, parsed while parsing)
};

// The looks an experiment takes: none (max_looks 1) unless --until-conclusive, --max-looks or --budget asks; then
// kDefaultMaxLooks unless --max-looks says otherwise. kMaxLooks keeps pilot · 2^(looks − 1) within reach.
constexpr int kDefaultMaxLooks = 12, kMaxLooks = 40;
// `reproduce` without --quick takes looks by default, within this budget for all experiments' looks together.
constexpr double kDefaultFullBudgetSeconds = 3600;

// Throws std::invalid_argument when looks are asked of an experiment that does not take them, or when the last
// look's trials, trials · 2^(max_looks − 1), would pass kMaxTrials.
LookPlan resolve_looks(const CommonOptions& options, const Experiment& experiment, std::int64_t trials);

struct ExperimentRun {
  std::filesystem::path out;
  double look_seconds = 0;  // the wall-clock its looks took (0: none)
};

void add_common_options(CLI::App& app, CommonOptions& options);
// --until-conclusive, --max-looks and --budget alone; `reproduce` adds them with its own defaults (for_reproduce).
void add_look_options(CLI::App& app, CommonOptions& options, bool for_reproduce = false);

// Validates the options, opens the output (before any work, so an unwritable path fails at once), runs the
// experiment with progress on stderr, and writes the result atomically. Returns the path written and the looks' time.
// Throws std::invalid_argument or OutputError for bad input.
ExperimentRun run_experiment(Experiment& experiment, const CommonOptions& options);

// The checks run_experiment makes before any work that need no file (threads, trials, looks, the predicted memory
// against --max-memory): `reproduce` makes them for every experiment before it prints or creates anything.
void check_experiment_options(Experiment& experiment, const CommonOptions& options);

// 0 → all processors; refuses a negative count or more than kMaxThreadsPerProcessor × the processors (OpenMP
// would start them all, each with its own stack, for nothing: a team that large only slows the run), and a count the
// process cannot start (runtime/thread_start.hpp).
constexpr int kMaxThreadsPerProcessor = 16;
int resolve_threads(int requested);

}  // namespace favorlab
