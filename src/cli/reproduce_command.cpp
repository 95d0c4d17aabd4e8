#include "cli/reproduce_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/backend.hpp"
#include "cli/option_checks.hpp"
#include "experiments/experiment.hpp"
#include "io/atomic_file.hpp"
#include "io/input_file.hpp"  // printable
#include "io/json_file.hpp"
#include "ledger/ledger.hpp"
#include "mc/distribution.hpp"
#include "stats/check.hpp"

namespace favorlab {

namespace {

// The figure scripts: FAVORLAB_PLOTTING_DIR, else the source tree's plotting/ (FAVORLAB_SOURCE_DIR is defined for
// this file only, CMakeLists.txt).
std::filesystem::path plotting_dir() {
  if (const char* env = std::getenv("FAVORLAB_PLOTTING_DIR")) return env;
  return std::filesystem::path(FAVORLAB_SOURCE_DIR) / "plotting";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs plotting/make_figures.py over a results directory; returns its exit status.
int make_figures(const std::filesystem::path& results, bool quiet) {
  const auto script = plotting_dir() / "make_figures.py";
  if (!std::filesystem::exists(script)) {
    std::fprintf(stderr, "favorlab: error: plotting script not found: %s (set FAVORLAB_PLOTTING_DIR)\n",
                 printable(script.string()).c_str());
    return 1;
  }
  const std::string cmd = "/usr/bin/python3 " + shell_quote(script.string()) + " --results " +
                          shell_quote(results.string()) + " --out " + shell_quote((results / "figures").string()) +
                          (quiet ? " --quiet" : "");
  const int status = std::system(cmd.c_str());
  if (status != 0) std::fprintf(stderr, "favorlab: error: figures failed (%s)\n", printable(cmd).c_str());
  return status == 0 ? 0 : 1;
}

// The ledger of every result file in the directory, written there as CLAIMS.md, and a summary of at most 25 lines
// on stderr.
void write_claims(const std::filesystem::path& results, double wall_seconds, bool quiet) {
  const Ledger ledger = read_ledger(results);
  const auto path = results / "CLAIMS.md";
  AtomicFileWriter(path).commit(ledger_markdown(ledger));
  if (quiet) return;
  std::fputs(("\n" + ledger_summary(ledger, 21)).c_str(), stderr);
  std::fprintf(stderr, "ledger: %s (favorlab claims %s for the terminal); figures: %s\n",
               printable(path.string()).c_str(), printable(results.string()).c_str(),
               printable((results / "figures").string()).c_str());
  std::fprintf(stderr, "reproduce: done in %.0f s\n", wall_seconds);
}

// Every *.json in the output directory enters the ledger written at the end. The files reproduce writes are
// replaced; any other must be a result of an experiment reproduce does not run (peer-speed.json) or a ledger, else
// the ledger would refuse it (or count an experiment twice) after every experiment had run: refused now instead.
void check_other_results(const std::filesystem::path& out_dir,
                         const std::vector<std::unique_ptr<Experiment>>& experiments) {
  std::vector<std::string> written;
  for (const auto& e : experiments) written.push_back(e->name());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir, ec)) {
    const auto& path = entry.path();
    if (path.extension() != ".json") continue;
    if (std::find(written.begin(), written.end(), path.stem().string()) != written.end()) continue;
    const auto doc = read_json_file(path, "--out-dir:");
    const auto text_field = [&doc](const char* key) {
      const auto it = doc.is_object() ? doc.find(key) : doc.end();
      return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string schema = text_field("schema");
    if (schema == kClaimsSchema) continue;
    const std::string name = printable(path.filename().string());
    if (schema != "favorlab.result/1")
      throw std::invalid_argument("--out-dir " + printable(out_dir.string()) + " holds " + name +
                                  ", which is not a favorlab result; the ledger written at the end would refuse it "
                                  "(move it out of the directory)");
    const std::string experiment = text_field("experiment");
    if (std::find(written.begin(), written.end(), experiment) != written.end())
      throw std::invalid_argument("--out-dir " + printable(out_dir.string()) + " holds " + name + ", a result of " +
                                  printable(experiment) + " beside the " + printable(experiment) +
                                  ".json reproduce writes; the ledger would count it twice (move it out)");
  }
}

}  // namespace

void add_reproduce_options(CLI::App& app, ReproduceOptions& options) {
  CommonOptions& common = options.common;
  app.add_flag("--quick", common.quick, "CI-sized runs (fewer trials)");
  app.add_option("--seed", common.seed, "Random seed")->capture_default_str();
  app.add_option("--threads", common.threads, "OpenMP threads (default: all processors)");
  app.add_option("--max-memory", common.max_memory,
                 "Refuse an experiment whose predicted peak memory exceeds this (default: the memory available)");
  app.add_option("--out-dir", options.out_dir, "Directory for the result files and figures/")->capture_default_str();
  app.add_flag("--no-figures", options.no_figures, "Skip the PNG figures");
  app.add_flag("--quiet", common.quiet, "No progress output");
  app.add_flag("--verbose", options.verbose, "One line per check of every experiment (the ledger has them all)");
  add_look_options(app, common, true);
  app.add_option("--backend", options.backend,
                 "cpu, or cuda: the experiments that take --backend run their attention on the GPU")
      ->capture_default_str();
}

int run_reproduce(const ReproduceOptions& options) {
  const RankInfo ranks = process_ranks();
  require_backend(parse_backend(options.backend));  // before any work
  resolve_threads(options.common.threads);
  const std::string& out_dir = options.out_dir;
  // The paper-sized run spends trials where points are still open: looks after each pilot, within one budget shared
  // by the experiments that take them (each gets the rest divided by those still to run).
  CommonOptions common = options.common;
  const bool looks_asked = common.until_conclusive || common.max_looks > 0 || common.budget_seconds > 0;
  if (!common.quick && !looks_asked) common.until_conclusive = true;
  if (!common.quick && common.budget_seconds == 0) common.budget_seconds = kDefaultFullBudgetSeconds;
  // Each experiment's options: fresh objects, every option at its default but --backend; looks only where taken.
  const auto options_for = [&](Experiment& e, double budget_share) {
    CLI::App experiment_options;
    e.add_options(experiment_options);
    if (experiment_options.get_option_no_throw("--backend") != nullptr)
      experiment_options.parse({options.backend, "--backend"});
    CommonOptions o = common;
    o.out = (std::filesystem::path(out_dir) / (e.name() + ".json")).string();
    o.check_lines = options.verbose;
    if (!e.takes_looks()) {
      o.until_conclusive = false;
      o.max_looks = 0;
      o.budget_seconds = 0;
    } else if (common.budget_seconds > 0) {
      o.budget_seconds = budget_share;
    }
    return o;
  };
  // Every experiment's options and memory before anything is printed or created.
  for (auto& e : make_experiments())
    if (!(ranks.size > 1 && e->distribution() == Distribution::refused))
      check_experiment_options(*e, options_for(*e, common.budget_seconds));
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec || !std::filesystem::is_directory(out_dir))
    throw std::invalid_argument("--out-dir " + out_dir + ": cannot create the directory" +
                                (ec ? ": " + ec.message() : std::string(": a file of that name exists")));
  check_other_results(out_dir, make_experiments());
  // The ledger describes the result files beside it: once they start to be replaced, an earlier CLAIMS.md would
  // contradict them if the run were interrupted. It goes now and is written again when every experiment has run.
  if (ranks.rank == 0) std::filesystem::remove(std::filesystem::path(out_dir) / "CLAIMS.md", ec);
  if (!options.common.quiet && ranks.rank == 0) std::fputs(verdict_legend(), stderr);
  auto experiments = make_experiments();
  // kernels first: a second's work, so a newcomer's first result file appears right after the build (unbiased, first
  // in the list, takes a minute); the rest in the listed order. It takes no looks, so the looks' budget shares stay.
  std::stable_partition(experiments.begin(), experiments.end(), [](const auto& e) { return e->name() == "kernels"; });
  std::size_t looking = 0;
  for (const auto& e : experiments) looking += e->takes_looks() ? 1 : 0;
  double look_seconds = 0;
  std::size_t looked = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto& e : experiments) {  // fresh objects: every option at its default, but --backend
    if (ranks.size > 1 && e->distribution() == Distribution::refused) {
      if (ranks.rank == 0) std::fprintf(stderr, "favorlab: note: %s skipped under MPI (it measures time)\n", e->name().c_str());
      continue;
    }
    LookPlan whole;
    whole.budget_seconds = common.budget_seconds;
    // A share of 0 s still runs the pilot; a budget must be positive, so the smallest positive share stands in.
    const CommonOptions o =
        options_for(*e, std::max(whole.share(looked, looking, look_seconds).budget_seconds, 1e-3));
    const ExperimentRun run = run_experiment(*e, o);
    if (e->takes_looks()) {
      look_seconds += run.look_seconds;
      ++looked;
    }
  }
  if (ranks.rank != 0) return 0;
  const int figures = options.no_figures ? 0 : make_figures(out_dir, options.common.quiet);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_claims(out_dir, wall, options.common.quiet);
  return figures;
}

}  // namespace favorlab
