// favorlab — command line entry: `favorlab <experiment> [options]`, `favorlab list`,
// `favorlab reproduce [--quick] [--backend cpu|cuda]`, `favorlab compare BASELINE.json NEW.json`,
// `favorlab --version`. Bad input: one line on stderr, exit status 2, no result file written.
#include <CLI/CLI.hpp>
#include <Eigen/Core>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "attention/backend.hpp"
#include "cli/attend_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/option_checks.hpp"
#include "cli/run_experiment.hpp"
#include "io/atomic_file.hpp"
#include "mc/distribution.hpp"
#include "stats/check.hpp"

namespace fl = favorlab;

namespace {

std::string version_text() {
  return std::string("favorlab ") + FAVORLAB_VERSION + " (" + fl::git_commit() + ", " + FAVORLAB_BUILD_TYPE +
         ", arch " + FAVORLAB_ARCH + ": " + fl::compiled_instruction_sets() + ")";
}

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
                 script.c_str());
    return 1;
  }
  const std::string cmd = "/usr/bin/python3 " + shell_quote(script.string()) + " --results " +
                          shell_quote(results.string()) + " --out " + shell_quote((results / "figures").string()) +
                          (quiet ? " --quiet" : "");
  const int status = std::system(cmd.c_str());
  if (status != 0) std::fprintf(stderr, "favorlab: error: figures failed (%s)\n", cmd.c_str());
  return status == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Every parallel loop in favorlab is an explicit OpenMP loop over fixed blocks (so numbers never depend on the
  // thread count); Eigen's own GEMM threads would nest inside them and oversubscribe the cores.
  Eigen::setNbThreads(1);
  fl::DistributedSession mpi(argc, argv);  // MPI only when started by mpirun/srun (mc/distribution.hpp)
  const fl::RankInfo ranks = fl::process_ranks();
  auto experiments = fl::make_experiments();

  CLI::App app{"favorlab: random-feature attention (Performers / FAVOR+, PermuteFormer) — estimators, theory checks, "
               "attention.\nEach experiment writes a JSON result (default results/<experiment>.json)."};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "List the experiments");
  bool families_json = false;
  auto* families = app.add_subcommand("families", "List the feature families (what --features and --estimators take)");
  families->add_flag("--json", families_json, "The table as JSON (plotting/families.json is this output)");

  std::string out_dir = "results";
  fl::CommonOptions reproduce_options;
  bool no_figures = false;
  auto* reproduce = app.add_subcommand("reproduce", "Run every experiment, write results/<experiment>.json and figures");
  reproduce->add_flag("--quick", reproduce_options.quick, "CI-sized runs (fewer trials)");
  reproduce->add_option("--seed", reproduce_options.seed, "Random seed")->capture_default_str();
  reproduce->add_option("--threads", reproduce_options.threads, "OpenMP threads (default: all processors)");
  reproduce->add_option("--max-memory", reproduce_options.max_memory,
                        "Refuse an experiment whose predicted peak memory exceeds this (default: the memory available)");
  reproduce->add_option("--out-dir", out_dir, "Directory for the result files and figures/")->capture_default_str();
  reproduce->add_flag("--no-figures", no_figures, "Skip the PNG figures");
  reproduce->add_flag("--quiet", reproduce_options.quiet, "No progress output");
  std::string reproduce_backend = "cpu";
  reproduce->add_option("--backend", reproduce_backend,
                        "cpu, or cuda: the experiments that take --backend run their attention on the GPU")
      ->capture_default_str();

  fl::AttendOptions attend_options;
  auto* attend = app.add_subcommand("attend", "Run one attention mechanism on .npy Q, K, V; write the output as .npy");
  fl::add_attend_options(*attend, attend_options);

  fl::CompareOptions compare_options;
  auto* compare = app.add_subcommand(
      "compare", "Did the statistics change? Two result files of one experiment; exit 1 if a figure moved significantly");
  fl::add_compare_options(*compare, compare_options);

  std::vector<fl::CommonOptions> common(experiments.size());
  std::vector<CLI::App*> subs;
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    auto* sub = app.add_subcommand(experiments[i]->name(), experiments[i]->summary());
    fl::add_common_options(*sub, common[i]);
    experiments[i]->add_options(*sub);
    subs.push_back(sub);
  }

  fl::add_strict_number_checks(app);

  if (argc > 1 && argv[1][0] != '-') {
    const std::string first = argv[1];
    bool known = first == "list" || first == "families" || first == "reproduce" || first == "attend" ||
                 first == "compare";
    for (const auto& e : experiments) known = known || e->name() == first;
    if (!known) {
      std::fprintf(stderr, "favorlab: error: unknown experiment '%s' (see favorlab list)\n", first.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "favorlab: error: %s (see favorlab --help)\n", e.what());
    return 2;
  }

  try {
    if (list->parsed()) {
      for (const auto& e : experiments) std::printf("%-19s %s\n", e->name().c_str(), e->summary().c_str());
      return 0;
    }
    if (families->parsed()) {
      if (families_json) {
        std::fputs(fl::families_json().c_str(), stdout);
        return 0;
      }
      for (const auto& f : fl::families())
        std::printf("%-12s %s\n", std::string(f.name).c_str(), std::string(f.description).c_str());
      return 0;
    }
    if (attend->parsed()) {
      fl::run_attend(attend_options);
      return 0;
    }
    if (compare->parsed()) return fl::run_compare(compare_options);
    if (reproduce->parsed()) {
      fl::require_backend(fl::parse_backend(reproduce_backend));  // before any work
      fl::resolve_threads(reproduce_options.threads);
      std::error_code ec;
      std::filesystem::create_directories(out_dir, ec);
      if (ec || !std::filesystem::is_directory(out_dir))
        throw std::invalid_argument("--out-dir " + out_dir + ": cannot create the directory" +
                                    (ec ? ": " + ec.message() : std::string(": a file of that name exists")));
      if (!reproduce_options.quiet && ranks.rank == 0) std::fputs(fl::verdict_legend(), stderr);
      for (auto& e : fl::make_experiments()) {  // fresh objects: every option at its default, but --backend
        if (ranks.size > 1 && e->distribution() == fl::Distribution::refused) {
          if (ranks.rank == 0)
            std::fprintf(stderr, "favorlab: note: %s skipped under MPI (it measures time)\n", e->name().c_str());
          continue;
        }
        CLI::App options;
        e->add_options(options);
        if (options.get_option_no_throw("--backend") != nullptr) options.parse({reproduce_backend, "--backend"});
        fl::CommonOptions o = reproduce_options;
        o.out = (std::filesystem::path(out_dir) / (e->name() + ".json")).string();
        fl::run_experiment(*e, o);
      }
      return no_figures || ranks.rank != 0 ? 0 : make_figures(out_dir, reproduce_options.quiet);
    }
    for (std::size_t i = 0; i < experiments.size(); ++i)
      if (subs[i]->parsed()) {
        fl::run_experiment(*experiments[i], common[i]);
        return 0;
      }
  } catch (const std::invalid_argument& e) {
    // Bad input is seen alike by every rank of an MPI job: rank 0 says it once.
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", e.what());
    return 2;
  } catch (const fl::OutputError& e) {
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that cannot be created or read: bad input.
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // Every command predicts its memory and refuses runs beyond the budget before allocating (perf/memory_budget.hpp);
    // this is what is left: the machine's memory taken by something else meanwhile, or a prediction too low.
    std::fprintf(stderr, "favorlab: error: out of memory%s: lower the sizes or --threads, or free memory\n",
                 ranks.size > 1 ? (" on rank " + std::to_string(ranks.rank)).c_str() : "");
    return 2;
  } catch (const std::exception& e) {
    if (ranks.size > 1)
      std::fprintf(stderr, "favorlab: internal error on rank %d of %d: %s\n", ranks.rank, ranks.size, e.what());
    else
      std::fprintf(stderr, "favorlab: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
