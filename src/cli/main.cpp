// favorlab — command line entry: `favorlab <experiment> [options]`, `favorlab list`,
// `favorlab reproduce [--quick] [--backend cpu|cuda]`, `favorlab compare BASELINE.json NEW.json`,
// `favorlab claims [RESULTS_DIR]`, `favorlab --version`. Bad input: one line on stderr, exit status 2, no result file written.
#include <CLI/CLI.hpp>
#include <Eigen/Core>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_app.hpp"
#include "io/atomic_file.hpp"  // OutputError
#include "io/input_file.hpp"  // printable: a value with a raw newline stays one line
#include "mc/distribution.hpp"
#include "runtime/allocator.hpp"

namespace fl = favorlab;

// Bad input. Under MPI every rank usually meets it alike, and rank 0 says it once. Another rank waits a moment for
// rank 0 to end the job with that line; if it is still running, the refusal is this rank's alone (its own options or
// files), and this rank says it, naming itself, before the job ends.
void say_bad_input(const fl::RankInfo& ranks, const char* what) {
  if (ranks.rank != 0) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::fprintf(stderr, "favorlab: error: rank %d of %d: %s\n", ranks.rank, ranks.size, fl::printable(what).c_str());
    return;
  }
  std::fprintf(stderr, "favorlab: error: %s\n", fl::printable(what).c_str());
}

// Runs the parsed command; its exit status (bad input: one line, 2). `failed`: the status is a failure, not a
// verdict (compare's 1 for a change is a verdict).
int dispatch(fl::CliApp& cli, const fl::RankInfo& ranks, bool& failed) {
  try {
    if (cli.list->parsed()) {
      fl::require_standard_output("the list");
      for (const auto& e : cli.experiments) std::printf("%-19s %s\n", e->name().c_str(), e->summary().c_str());
      return 0;
    }
    if (cli.families->parsed()) {
      fl::require_standard_output("the list of families");
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
    if (cli.reproduce->parsed()) return fl::run_reproduce(cli.reproduce_options);
    for (std::size_t i = 0; i < cli.experiments.size(); ++i)
      if (cli.subs[i]->parsed()) {
        fl::run_experiment(*cli.experiments[i], cli.common[i]);
        return 0;
      }
  } catch (const std::invalid_argument& e) {
    say_bad_input(ranks, e.what());
    failed = true;
    return 2;
  } catch (const fl::OutputError& e) {
    say_bad_input(ranks, e.what());
    failed = true;
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    say_bad_input(ranks, e.what());  // a path the user gave that cannot be created or read
    failed = true;
    return 2;
  } catch (const std::bad_alloc&) {
    // Every command predicts its memory and refuses runs beyond the budget before allocating (runtime/memory_budget.hpp);
    // this is what is left: the machine's memory taken by something else meanwhile, or a prediction too low.
    std::fprintf(stderr, "favorlab: error: out of memory%s: lower the sizes or --threads, or free memory\n",
                 ranks.size > 1 ? (" on rank " + std::to_string(ranks.rank)).c_str() : "");
    failed = true;
    return 2;
  } catch (const std::exception& e) {
    if (ranks.size > 1)
      std::fprintf(stderr, "favorlab: internal error on rank %d of %d: %s\n", ranks.rank, ranks.size,
                   fl::printable(e.what()).c_str());
    else
      std::fprintf(stderr, "favorlab: internal error: %s\n", fl::printable(e.what()).c_str());
    failed = true;
    return 1;
  }
  return 0;
}

// Parses and runs the command line; the process's exit status, `failed` as for dispatch.
int parse_and_run(int argc, char** argv, const fl::RankInfo& ranks, bool& failed) {
  fl::CliApp cli;  // every subcommand and option (cli/cli_app.hpp)
  CLI::App& app = cli.app;

  std::string parse_error;
  if (argc > 1 && argv[1][0] != '-' && !cli.has_subcommand(argv[1])) {
    parse_error = "unknown experiment '" + fl::printable(argv[1]) + "' (see favorlab list)";
  } else {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      parse_error = fl::printable(e.what()) + " (see favorlab --help)";
    }
  }
  // Under MPI the ranks compare their command lines' fate: one line from rank 0, however many ranks refuse it (an
  // MPMD launch may give one rank alone a bad option).
  if (ranks.size > 1) {
    const std::vector<std::string> all = fl::all_gather_bytes(parse_error);
    for (std::size_t r = 0; r < all.size() && parse_error.empty(); ++r)
      if (!all[r].empty()) parse_error = "rank " + std::to_string(r) + ": " + all[r];
  }
  if (!parse_error.empty()) {
    if (ranks.rank == 0) std::fprintf(stderr, "favorlab: error: %s\n", parse_error.c_str());
    failed = true;
    return 2;
  }

  const int status = dispatch(cli, ranks, failed);
  // What a command printed on standard output and could not write (a full disk, /dev/full) is lost: not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (status != 0) return status;
    std::fprintf(stderr, "favorlab: error: standard output: the output could not be written (%s)\n", std::strerror(errno));
    failed = true;
    return 2;
  }
  return status;
}

int main(int argc, char** argv) {
  // Every parallel loop in favorlab is an explicit OpenMP loop over fixed blocks (so numbers never depend on the
  // thread count); Eigen's own GEMM threads would nest inside them and oversubscribe the cores.
  Eigen::setNbThreads(1);
  fl::keep_freed_memory();  // blocked kernels reuse large temporaries: no page faults for each (runtime/allocator.hpp)
  fl::DistributedSession mpi(argc, argv);  // MPI only when started by mpirun/srun (mc/distribution.hpp)
  const fl::RankInfo ranks = fl::process_ranks();
  bool failed = false;
  const int status = parse_and_run(argc, argv, ranks, failed);
  // Under MPI a failure may be this rank's alone (its own options, its output, its memory), with the others waiting
  // in a collective it will not reach and MPI_Finalize waiting for them: the whole job ends with its status.
  if (failed && ranks.size > 1) {
    std::fflush(stdout);
    std::fflush(stderr);
    fl::end_job(status);
  }
  return status;
}
