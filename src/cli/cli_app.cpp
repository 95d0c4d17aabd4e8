#include "cli/cli_app.hpp"

#include "cli/option_checks.hpp"
#include "linalg/gemm.hpp"
#include "results/result.hpp"

namespace favorlab {

std::string version_text() {
  return std::string("favorlab ") + FAVORLAB_VERSION + " (" + git_commit() + ", " + FAVORLAB_BUILD_TYPE + ", arch " +
         FAVORLAB_ARCH + ": " + compiled_instruction_sets() + "; GEMM: " + gemm_engine() + ")";
}

CliApp::CliApp()
    : app("favorlab: random-feature attention (Performers / FAVOR+, PermuteFormer) — estimators, theory checks, "
          "attention.\nEach experiment writes a JSON result (default results/<experiment>.json)."),
      experiments(make_experiments()) {
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);

  list = app.add_subcommand("list", "List the experiments");
  families = app.add_subcommand("families", "List the feature families (what --features and --estimators take)");
  families->add_flag("--json", families_json, "The table as JSON (plotting/families.json is this output)");

  reproduce = app.add_subcommand("reproduce", "Run every experiment, write results/<experiment>.json and figures");
  add_reproduce_options(*reproduce, reproduce_options);

  attend = app.add_subcommand("attend", "Run one attention mechanism on .npy Q, K, V; write the output as .npy");
  add_attend_options(*attend, attend_options);

  compare = app.add_subcommand(
      "compare", "Did the statistics change? Two result files of one experiment; exit 1 if a figure moved significantly");
  add_compare_options(*compare, compare_options);

  claims = app.add_subcommand(
      "claims", "What favorlab found: every claim of the result files, its source and verdict (the claims ledger)");
  add_claims_options(*claims, claims_options);

  common.resize(experiments.size());
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    auto* sub = app.add_subcommand(experiments[i]->name(), experiments[i]->summary());
    add_common_options(*sub, common[i]);
    experiments[i]->add_options(*sub);
    subs.push_back(sub);
  }

  add_strict_number_checks(app);
  add_named_option_checks(app);
  // After parsing, before any command runs: a list holding one value twice (a ParseError: one line, exit 2).
  app.parse_complete_callback([this] {
    try {
      check_list_duplicates(app);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError(e.what());
    }
  });
}

bool CliApp::has_subcommand(const std::string& name) const {
  if (name == "list" || name == "families" || name == "reproduce" || name == "attend" || name == "compare" ||
      name == "claims")
    return true;
  for (const auto& e : experiments)
    if (e->name() == name) return true;
  return false;
}

}  // namespace favorlab
