#include "cli/run_experiment.hpp"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "cli/progress.hpp"
#include "io/atomic_file.hpp"
#include "io/input_file.hpp"
#include "io/json_file.hpp"
#include "ledger/claim_sources.hpp"
#include "mc/distribution.hpp"
#include "runtime/duration.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/peak_memory.hpp"
#include "runtime/thread_start.hpp"

namespace favorlab {

namespace {
std::string looking_experiments() {
  std::string names;
  for (const auto& e : make_experiments())
    if (e->takes_looks()) names += (names.empty() ? "" : ", ") + e->name();
  return names;
}
}  // namespace

void add_common_options(CLI::App& app, CommonOptions& o) {
  app.add_option("--seed", o.seed, "Random seed; the same seed gives the same numbers at any thread count")
      ->capture_default_str();
  app.add_option("--trials", o.trials, "Monte Carlo trials per point (default: the experiment's; less with --quick)");
  app.add_option("--threads", o.threads, "OpenMP threads (default: all processors)");
  app.add_option("--out", o.out, "Result file (default: results/<experiment>.json; - writes the JSON to stdout)");
  app.add_option("--max-memory", o.max_memory,
                 "Refuse to start when the predicted peak memory exceeds this (e.g. 8G; default: the memory available)");
  app.add_flag("--quick", o.quick, "CI-sized run: fewer trials");
  app.add_flag("--quiet", o.quiet, "No progress output");
  add_look_options(app, o);
}

void add_look_options(CLI::App& app, CommonOptions& o, bool for_reproduce) {
  app.add_flag("--until-conclusive", o.until_conclusive,
               std::string(for_reproduce ? "The experiments that take looks (" + looking_experiments() + ") give" :
                                           "After the pilot of --trials, give") +
                   " each open point looks of doubling size until it settles (docs/judging.md#looks-until-conclusive)" +
                   (for_reproduce ? "; on by default without --quick" : ""));
  app.add_option("--max-looks", o.max_looks,
                 "Looks in all, the pilot included (default " + std::to_string(kDefaultMaxLooks) +
                     " with --until-conclusive; 1: fixed trials); implies --until-conclusive");
  app.add_option_function<std::string>(
      "--budget", [&o](const std::string& text) { o.budget_seconds = parse_duration_seconds(text); },
      std::string("Wall-clock for the looks after the pilot, e.g. 15m or 1.5h; implies --until-conclusive") +
          (for_reproduce ? " (default without --quick: " + std::to_string(static_cast<int>(kDefaultFullBudgetSeconds / 60)) +
                                "m for the looks of all experiments together)"
                          : ""));
}

LookPlan resolve_looks(const CommonOptions& o, const Experiment& experiment, std::int64_t trials) {
  LookPlan plan;
  const bool asked = o.until_conclusive || o.max_looks > 0 || o.budget_seconds > 0;
  if (!asked) return plan;
  plan.max_looks = o.max_looks > 0 ? o.max_looks : kDefaultMaxLooks;
  if (plan.max_looks > kMaxLooks)
    throw std::invalid_argument("--max-looks must lie in [1, " + std::to_string(kMaxLooks) + "], got " +
                                std::to_string(plan.max_looks));
  if (plan.max_looks > 1 && !experiment.takes_looks())
    throw std::invalid_argument(experiment.name() + " runs a fixed number of trials: --until-conclusive, --max-looks "
                                "and --budget apply to " + looking_experiments());
  if (look_trials(trials, plan.max_looks - 1) > kMaxTrials)
    throw std::invalid_argument("--max-looks " + std::to_string(plan.max_looks) + " with " + std::to_string(trials) +
                                " pilot trials would reach " + "more than 1e15 trials per point at the last look");
  if (o.budget_seconds > 0) plan.budget_seconds = o.budget_seconds;
  return plan;
}

int resolve_threads(int requested) {
  if (requested < 0) throw std::invalid_argument("--threads must be at least 1, got " + std::to_string(requested));
  const int processors = omp_get_num_procs();
  if (requested > kMaxThreadsPerProcessor * processors)
    throw std::invalid_argument("--threads must be at most " + std::to_string(kMaxThreadsPerProcessor * processors) +
                                " (" + std::to_string(kMaxThreadsPerProcessor) + " per processor, " +
                                std::to_string(processors) + " here), got " + std::to_string(requested));
  const int threads = requested == 0 ? processors : requested;
  check_threads_can_start(threads);  // before any work: libgomp would otherwise exit(1) mid-run with its own line
  return threads;
}

namespace {

// The run's threads, trials per point and looks, each checked.
struct RunSize {
  int threads;
  std::int64_t trials;
  LookPlan looks;
};
RunSize resolve_run_size(const Experiment& experiment, const CommonOptions& o) {
  const int threads = resolve_threads(o.threads);
  if (o.trials < 0 || o.trials == 1 || o.trials > kMaxTrials)
    throw std::invalid_argument("--trials must be between 2 and 1e15, got " + std::to_string(o.trials));
  const std::int64_t trials = o.trials > 0 ? o.trials : experiment.default_trials(o.quick);
  return {threads, trials, resolve_looks(o, experiment, trials)};
}

// Every input path that exists is a regular file, before the memory prediction reads its header (a FIFO would
// block it). A missing one is left to the experiment, which names what else is missing with it.
void check_existing_inputs(const Experiment& experiment) {
  for (const auto& [option, path] : experiment.input_files()) {
    std::error_code ec;
    if (!path.empty() && std::filesystem::exists(path, ec)) check_input_file(path, option);
  }
}

// Runs attempt (the memory check and opening the output) on every rank and refuses on all of them when any one does.
// The ranks agree before the work: a refusal one rank alone meets (rank 0's output path, one rank's memory) would
// leave the others waiting in the first collective for ever. Every rank then refuses; rank 0 says why.
template <class Attempt>
void refuse_on_every_rank(const Attempt& attempt) {
  std::string refusal;
  try {
    attempt();
  } catch (const std::invalid_argument& e) {
    refusal = e.what();
  } catch (const OutputError& e) {
    refusal = e.what();
  }
  const std::vector<std::string> all = all_gather_bytes(refusal);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) throw std::invalid_argument(r == 0 ? all[r] : "rank " + std::to_string(r) + ": " + all[r]);
}

// The terminal's lines after a run (none with --quiet): each check's verdict where check lines are asked for, then
// where the result went and how long the run took.
void print_run_summary(const Experiment& experiment, const CommonOptions& o, const Result& result,
                       const std::filesystem::path& out, double wall) {
  if (!o.quiet) {
    for (const Check& c : result.checks) {
      if (!o.check_lines) break;
      std::fprintf(stderr, "  %-12s %s [%s]: %s\n", verdict_name(c.status), c.claim.c_str(), c.where.c_str(),
                   check_summary(c).c_str());
    }
    std::fprintf(stderr, "%s: wrote %s (%.1fs)\n", experiment.name().c_str(), printable(out.string()).c_str(), wall);
  }
}

}  // namespace

void check_experiment_options(Experiment& experiment, const CommonOptions& o) {
  const RunSize size = resolve_run_size(experiment, o);
  const RunContext ctx{o.seed, size.trials, size.threads, o.quick, {}, size.looks};
  const MemoryEstimate memory = experiment.memory_estimate(ctx);
  check_memory_budget(experiment.name(), memory.bytes, memory.lower, o.max_memory);
}

ExperimentRun run_experiment(Experiment& experiment, const CommonOptions& o) {
  const auto [threads, trials, looks] = resolve_run_size(experiment, o);

  const bool default_out = o.out.empty();
  const std::filesystem::path out = default_out ? std::filesystem::path("results") / (experiment.name() + ".json")
                                                : std::filesystem::path(o.out);
  check_distinct_paths(experiment.input_files(), {{"--out", out.string()}});
  check_existing_inputs(experiment);
  // Under MPI (mc/distribution.hpp): rank 0 alone opens and writes the result, prints progress and the report.
  const RankInfo ranks = process_ranks();
  const Distribution mode = experiment.distribution();
  if (ranks.size > 1 && mode == Distribution::refused)
    throw std::invalid_argument(experiment.name() + " measures time, which the other ranks on the machine would distort: "
                                "run it without mpirun");
  if (ranks.size > 1 && mode == Distribution::rank0 && ranks.rank != 0) return {out};  // rank 0 runs it alone
  const bool lead = ranks.rank == 0;
  Progress progress(experiment.name(), o.quiet || !lead);
  RunContext ctx{o.seed, trials, threads, o.quick,
                 [&](std::int64_t done, std::int64_t total) { progress.update(done, total); }, looks};
  // Before anything sized by the options is allocated, and before the output is opened (no file on a refusal).
  std::optional<AtomicFileWriter> writer;
  MemoryEstimate memory;
  const auto refuse_or_open = [&] {
    memory = experiment.memory_estimate(ctx);
    check_memory_budget(experiment.name(), memory.bytes, memory.lower, o.max_memory);
    if (lead && default_out) {
      std::error_code ec;
      std::filesystem::create_directories(out.parent_path(), ec);  // a failure surfaces as an unwritable path below
    }
    if (lead) writer.emplace(out);
  };
  const bool shared = ranks.size > 1 && mode == Distribution::trial_blocks;
  if (!shared)
    refuse_or_open();
  else
    refuse_on_every_rank(refuse_or_open);  // the ranks agree before the work

  std::optional<TrialDistributionScope> scope;
  if (mode == Distribution::trial_blocks) scope.emplace();
  const auto start = std::chrono::steady_clock::now();
  Result result = experiment.run(ctx);
  progress.finish();
  attribute_checks(experiment.name(), result.checks);  // every check names its source (ledger/claim_sources.hpp)
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double look_seconds = result.measurements.value("look_seconds", 0.0);
  if (!lead) return {out, look_seconds};

  Json params{{"seed", o.seed}, {"trials", trials}, {"threads", threads}, {"quick", o.quick}};
  for (const auto& [key, value] : result.params.items()) params[key] = value;
  result.params = params;
  RunInfo info{threads, wall, ranks.size, ""};
  info.memory_estimate_bytes = memory.bytes;
  info.peak_memory_bytes = static_cast<double>(resident_high_water_bytes());
  if (ranks.size > 1)
    info.distribution = mode == Distribution::trial_blocks ? "trial blocks split over the ranks" : "rank 0 alone";
  writer->commit(dump_json(result_json(result, info), 1));
  if (!result.text.empty() && !writer->to_stdout()) std::fputs(result.text.c_str(), stdout);

  print_run_summary(experiment, o, result, out, wall);
  return {out, look_seconds};
}

}  // namespace favorlab
