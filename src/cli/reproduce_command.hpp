#pragma once
// `favorlab reproduce`: every experiment at its defaults (or --quick), each result written to <out-dir>/<name>.json,
// the paper-sized run (without --quick) with looks until conclusive (mc/sequential_looks.hpp) within --budget
// (default kDefaultFullBudgetSeconds for the looks of all experiments together; --max-looks 1 turns them off),
// then the figures (plotting/make_figures.py) and the claims ledger (<out-dir>/CLAIMS.md) with a short summary on
// stderr. Under MPI the experiments that measure time are skipped with a note. Bad options throw
// std::invalid_argument (exit 2) before any experiment runs.
#include <CLI/CLI.hpp>

#include <string>

#include "cli/run_experiment.hpp"

namespace favorlab {

struct ReproduceOptions {
  CommonOptions common;  // --quick, --seed, --threads, --max-memory, --quiet for every experiment
  std::string out_dir = "results";
  bool no_figures = false;
  bool verbose = false;  // one line per check instead of the ledger's summary
  std::string backend = "cpu";
};

void add_reproduce_options(CLI::App& app, ReproduceOptions& options);

// Returns the exit status: 0, or 1 when the figures failed (the results and the ledger are written regardless).
int run_reproduce(const ReproduceOptions& options);

}  // namespace favorlab
