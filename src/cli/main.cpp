// favorlab — command line entry: `favorlab <experiment> [options]`, `favorlab list`,
// `favorlab reproduce [--quick] [--backend cpu|cuda]`, `favorlab compare BASELINE.json NEW.json`,
// `favorlab claims [RESULTS_DIR]`, `favorlab --version`. Bad input: one line on stderr, exit status 2, no result file written.
#include <CLI/CLI.hpp>
#include <Eigen/Core>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "attention/backend.hpp"
#include "cli/cli_app.hpp"
#include "cli/option_checks.hpp"
#include "io/atomic_file.hpp"
#include "io/input_file.hpp"  // printable: a value with a raw newline stays one line
#include "ledger/ledger.hpp"
#include "mc/distribution.hpp"
#include "perf/allocator.hpp"
#include "stats/check.hpp"

namespace fl = favorlab;

namespace {

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
                 fl::printable(script.string()).c_str());
    return 1;
  }
  const std::string cmd = "/usr/bin/python3 " + shell_quote(script.string()) + " --results " +
                          shell_quote(results.string()) + " --out " + shell_quote((results / "figures").string()) +
                          (quiet ? " --quiet" : "");
  const int status = std::system(cmd.c_str());
  if (status != 0) std::fprintf(stderr, "favorlab: error: figures failed (%s)\n", fl::printable(cmd).c_str());
  return status == 0 ? 0 : 1;
}

// The end of `favorlab reproduce`: the ledger of every result file in the directory, written there as the ledger file
// (results/CLAIMS.md for the default directory), and a summary of at most 25 lines on stderr.
void write_claims(const std::filesystem::path& results, double wall_seconds, bool quiet) {
  const fl::Ledger ledger = fl::read_ledger(results);
  const auto path = results / "CLAIMS.md";
  fl::AtomicFileWriter(path).commit(fl::ledger_markdown(ledger));
  if (quiet) return;
  std::fputs(("\n" + fl::ledger_summary(ledger, 21)).c_str(), stderr);
  std::fprintf(stderr, "ledger: %s (favorlab claims %s for the terminal); figures: %s\n",
               fl::printable(path.string()).c_str(), fl::printable(results.string()).c_str(),
               fl::printable((results / "figures").string()).c_str());
  std::fprintf(stderr, "reproduce: done in %.0f s\n", wall_seconds);
}

}  // namespace

int main(int argc, char** argv) {
  // Every parallel loop in favorlab is an explicit OpenMP loop over fixed blocks (so numbers never depend on the
  // thread count); Eigen's own GEMM threads would nest inside them and oversubscribe the cores.
  Eigen::setNbThreads(1);
  fl::keep_freed_memory();  // blocked kernels reuse large temporaries: no page faults for each (perf/allocator.hpp)
  fl::DistributedSession mpi(argc, argv);  // MPI only when started by mpirun/srun (mc/distribution.hpp)
  const fl::RankInfo ranks = fl::process_ranks();
  fl::CliApp cli;  // every subcommand and option (cli/cli_app.hpp)
  CLI::App& app = cli.app;

  if (argc > 1 && argv[1][0] != '-' && !cli.has_subcommand(argv[1])) {
    std::fprintf(stderr, "favorlab: error: unknown experiment '%s' (see favorlab list)\n", fl::printable(argv[1]).c_str());
    return 2;
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
    std::fprintf(stderr, "favorlab: error: %s (see favorlab --help)\n", fl::printable(e.what()).c_str());
    return 2;
  }

  try {
    if (cli.list->parsed()) {
      for (const auto& e : cli.experiments) std::printf("%-19s %s\n", e->name().c_str(), e->summary().c_str());
      return 0;
    }
    if (cli.families->parsed()) {
      if (cli.families_json) {
        std::fputs(fl::families_json().c_str(), stdout);
        return 0;
      }
      for (const auto& f : fl::families())
        std::printf("%-12s %s\n", std::string(f.name).c_str(), std::string(f.description).c_str());
      return 0;
    }
    if (cli.attend->parsed()) {
      fl::run_attend(cli.attend_options);
      return 0;
    }
    if (cli.compare->parsed()) return fl::run_compare(cli.compare_options);
    if (cli.claims->parsed()) return fl::run_claims(cli.claims_options);
    if (cli.reproduce->parsed()) {
      const fl::CommonOptions& reproduce_options = cli.reproduce_options;
      const std::string& reproduce_backend = cli.reproduce_backend;
      const std::string& out_dir = cli.out_dir;
      fl::require_backend(fl::parse_backend(reproduce_backend));  // before any work
      fl::resolve_threads(reproduce_options.threads);
      std::error_code ec;
      std::filesystem::create_directories(out_dir, ec);
      if (ec || !std::filesystem::is_directory(out_dir))
        throw std::invalid_argument("--out-dir " + out_dir + ": cannot create the directory" +
                                    (ec ? ": " + ec.message() : std::string(": a file of that name exists")));
      if (!reproduce_options.quiet && ranks.rank == 0) std::fputs(fl::verdict_legend(), stderr);
      const auto start = std::chrono::steady_clock::now();
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
        o.check_lines = cli.reproduce_verbose;
        fl::run_experiment(*e, o);
      }
      if (ranks.rank != 0) return 0;
      const int figures = cli.no_figures ? 0 : make_figures(out_dir, reproduce_options.quiet);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      write_claims(out_dir, wall, reproduce_options.quiet);
      return figures;
    }
    for (std::size_t i = 0; i < cli.experiments.size(); ++i)
      if (cli.subs[i]->parsed()) {
        fl::run_experiment(*cli.experiments[i], cli.common[i]);
        return 0;
      }
  } catch (const std::invalid_argument& e) {
    // Bad input is seen alike by every rank of an MPI job: rank 0 says it once.
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", fl::printable(e.what()).c_str());
    return 2;
  } catch (const fl::OutputError& e) {
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", fl::printable(e.what()).c_str());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that cannot be created or read: bad input.
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", fl::printable(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    // Every command predicts its memory and refuses runs beyond the budget before allocating (perf/memory_budget.hpp);
    // this is what is left: the machine's memory taken by something else meanwhile, or a prediction too low.
    std::fprintf(stderr, "favorlab: error: out of memory%s: lower the sizes or --threads, or free memory\n",
                 ranks.size > 1 ? (" on rank " + std::to_string(ranks.rank)).c_str() : "");
    return 2;
  } catch (const std::exception& e) {
    if (ranks.size > 1)
      std::fprintf(stderr, "favorlab: internal error on rank %d of %d: %s\n", ranks.rank, ranks.size,
                   fl::printable(e.what()).c_str());
    else
      std::fprintf(stderr, "favorlab: internal error: %s\n", fl::printable(e.what()).c_str());
    return 1;
  }
  return 0;
}
