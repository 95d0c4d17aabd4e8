#pragma once
// `favorlab claims [RESULTS_DIR]`: the ledger of what favorlab found (ledger/ledger.hpp) for a terminal (text), as
// Markdown (results/CLAIMS.md) or as JSON; `--findings` prints the README's short table instead. Bad input (a
// directory without result files, a file that is not a favorlab result, an unknown format) throws
// std::invalid_argument naming it (exit 2). Output goes to stdout, or atomically to --out.
#include <CLI/CLI.hpp>

#include <string>

namespace favorlab {

struct ClaimsOptions {
  std::string results_dir = "results";
  std::string format = "text";
  std::string out = "-";  // "-": stdout
  bool findings = false;
};

void add_claims_options(CLI::App& app, ClaimsOptions& options);

int run_claims(const ClaimsOptions& options);

}  // namespace favorlab
