#pragma once
// The favorlab command line as one object: every subcommand and option, bound to the fields below. src/cli/main.cpp
// parses argv with it and runs what parsed; fuzz/cli_fuzz.cpp parses with the very same object and runs nothing, so
// the fuzzer always sees the user's command line.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cli/attend_command.hpp"
#include "cli/claims_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/reproduce_command.hpp"
#include "cli/run_experiment.hpp"
#include "experiments/experiment.hpp"

namespace favorlab {

// "favorlab VERSION (commit, build type, arch ARCH: instruction sets)", what --version prints.
std::string version_text();

struct CliApp {
  CLI::App app;
  std::vector<std::unique_ptr<Experiment>> experiments;
  bool families_json = false;
  ReproduceOptions reproduce_options;
  AttendOptions attend_options;
  CompareOptions compare_options;
  ClaimsOptions claims_options;
  std::vector<CommonOptions> common;  // one per experiment, in the order of `experiments` and `subs`
  std::vector<CLI::App*> subs;
  CLI::App* list = nullptr;
  CLI::App* families = nullptr;
  CLI::App* reproduce = nullptr;
  CLI::App* attend = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* claims = nullptr;

  CliApp();  // builds every subcommand and option, then add_strict_number_checks
  CliApp(const CliApp&) = delete;
  CliApp& operator=(const CliApp&) = delete;

  // Whether `name` is a subcommand (a built-in command or an experiment).
  bool has_subcommand(const std::string& name) const;
};

}  // namespace favorlab
