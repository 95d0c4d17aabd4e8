#pragma once
// `favorlab compare BASELINE.json NEW.json`: did an experiment's statistics change between two runs?
// results/result_compare.hpp does the comparison; this prints one line per change (worst first) and a summary on stdout,
// optionally writes the report as JSON (--out, atomically), and returns the exit status: 0 nothing changed
// significantly, 1 something did or more than --max-uncompared of the statistics could not be compared. Bad input (unreadable or non-JSON files, documents that cannot be compared) throws
// std::invalid_argument naming the file and the problem (exit 2).
#include <CLI/CLI.hpp>

#include <string>

namespace favorlab {

struct CompareOptions {
  std::string baseline, fresh, out;
  double alpha = 1e-3;
  double tolerance = 1e-9;
  double max_uncompared = 0.05;  // results/result_compare.hpp kDefaultMaxUncompared
  std::size_t max_lines = 50;
};

void add_compare_options(CLI::App& app, CompareOptions& options);

int run_compare(const CompareOptions& options);

}  // namespace favorlab
