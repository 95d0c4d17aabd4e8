// libFuzzer target for favorlab's command line: scripts/fuzz.sh cli builds and runs it.
//
// An input is an argv: arguments separated by NUL bytes, or, in an input without any NUL, by newlines (so the seeds
// in tests/fuzz/corpus/cli/ are one argument per line); one empty piece at the very end (a final separator) is dropped.
// At most kMaxArgs arguments of at most kMaxArgBytes bytes; longer inputs are skipped. "favorlab" is prepended.
//
// The harness builds the command line with the same object as src/cli/main.cpp (cli/cli_app.hpp: every subcommand
// and option, then add_strict_number_checks) and calls app.parse only: no command or experiment ever runs. Expected
// outcomes: CLI::ParseError (help and version requests included) and std::invalid_argument. When an experiment
// subcommand parsed, it then does what run_experiment does before allocating anything: resolves --threads and
// --trials (refusals are std::invalid_argument), calls the experiment's memory_estimate(ctx), which must be
// non-negative and not NaN (a huge number or +inf is fine: that is how absurd sizes are refused before allocation),
// and checks it against --max-memory when one is given. Anything else (another exception, a crash, a sanitizer report, an allocation over
// -malloc_limit_mb, an estimate below zero or NaN) is a finding.
//
// Paths: each input is handled in a temporary directory of the harness's own holding two small valid .npy files
// (q.npy: 2 heads of 8x4, v.npy: 8x4) so that options naming input files can reach the header readers; arguments
// containing '/' are skipped (no device, FIFO or file outside that directory is ever opened) and standard input is
// /dev/null. The working directory is changed back after each input, but a crash happens inside the temporary one:
// give -artifact_prefix as an absolute path (scripts/fuzz.sh does).
#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "cli/cli_app.hpp"
#include "cli/run_experiment.hpp"
#include "experiments/experiment.hpp"
#include "io/npy.hpp"
#include "results/result.hpp"
#include "runtime/memory_budget.hpp"

namespace fl = favorlab;

namespace {

constexpr std::size_t kMaxArgs = 16;
constexpr std::size_t kMaxArgBytes = 256;

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "cli_fuzz: BUG: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// The harness's temporary directory while an input is handled; the directory it started in otherwise (libFuzzer
// reads and writes its corpus and artifacts there).
int g_home_fd = -1;
int g_work_fd = -1;

struct InWorkDir {
  InWorkDir() {
    if (::fchdir(g_work_fd) != 0) bug("cannot enter the temporary directory: " + std::string(std::strerror(errno)));
  }
  ~InWorkDir() {
    if (::fchdir(g_home_fd) != 0) bug("cannot leave the temporary directory: " + std::string(std::strerror(errno)));
  }
  InWorkDir(const InWorkDir&) = delete;
  InWorkDir& operator=(const InWorkDir&) = delete;
};

// The argv of one input, or false when the input is beyond the caps or names a path with a '/'.
bool split_arguments(const std::uint8_t* data, std::size_t size, std::vector<std::string>& args) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const char separator = input.find('\0') != std::string_view::npos ? '\0' : '\n';
  const auto add = [&](std::string_view arg) {
    if (args.size() == kMaxArgs || arg.size() > kMaxArgBytes || arg.find('/') != std::string_view::npos) return false;
    args.emplace_back(arg);
    return true;
  };
  for (std::size_t start = 0; start < input.size();) {
    const std::size_t end = input.find(separator, start);
    if (end == std::string_view::npos) return add(input.substr(start));
    if (!add(input.substr(start, end - start))) return false;
    start = end + 1;  // a separator at the very end ends the loop: no empty last argument
  }
  return true;
}

// A --max-memory value: parse_memory_size refuses with std::invalid_argument, or gives a positive finite size.
void check_max_memory(const std::string& text) {
  if (text.empty()) return;
  try {
    const double bytes = fl::parse_memory_size(text);
    if (!(bytes > 0) || !std::isfinite(bytes))
      bug("parse_memory_size('" + text + "') gave " + std::to_string(bytes));
  } catch (const std::invalid_argument&) {
  }
}

// What run_experiment does before the run allocates anything sized by the options.
void check_experiment(const fl::Experiment& experiment, const fl::CommonOptions& o) {
  try {
    const int threads = fl::resolve_threads(o.threads);
    if (o.trials < 0 || o.trials == 1 || o.trials > fl::kMaxTrials) return;  // run_experiment refuses these
    const std::int64_t trials = o.trials > 0 ? o.trials : experiment.default_trials(o.quick);
    if (trials < 2) bug(experiment.name() + ": default_trials(" + (o.quick ? "true" : "false") + ") is " +
                        std::to_string(trials));
    const fl::RunContext ctx{o.seed, trials, threads, o.quick, {}, {}};
    const fl::MemoryEstimate memory = experiment.memory_estimate(ctx);
    if (std::isnan(memory.bytes) || memory.bytes < 0)
      bug(experiment.name() + ": memory_estimate gave " + std::to_string(memory.bytes) + " bytes");
    (void)fl::format_bytes(memory.bytes);
    check_max_memory(o.max_memory);
    if (!o.max_memory.empty()) fl::check_memory_budget(experiment.name(), memory.bytes, memory.lower, o.max_memory);
  } catch (const std::invalid_argument&) {
  }
}

void write_fixture(const std::filesystem::path& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()) || ::close(fd) != 0)
    bug("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Eigen::setNbThreads(1);  // as main.cpp
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0) bug("cannot redirect standard input from /dev/null");
  ::close(null_fd);
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "cli_fuzz.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) bug("cannot create a temporary directory: " + std::string(std::strerror(errno)));
  static std::string dir = pattern;
  std::atexit([] {
    std::error_code e;
    std::filesystem::remove_all(dir, e);
  });
  g_home_fd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_work_fd = ::open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (g_home_fd < 0 || g_work_fd < 0) bug("cannot open the working directories: " + std::string(std::strerror(errno)));
  // Two small valid inputs for options that read .npy headers (--q, --k, --v, --w, --inputs).
  const std::filesystem::path work = pattern;
  std::vector<double> values(2 * 8 * 4);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.125 * static_cast<double>(i % 7) - 0.25;
  // Written with encode_npy and plain writes, not write_npy: an AtomicFileWriter installs SIGABRT/SIGINT/... handlers
  // where none is set yet, and libFuzzer (which installs its own after this function) then leaves those signals alone,
  // so an abort() finding would end the process without a reproducer.
  write_fixture(work / "q.npy", fl::encode_npy({2, 8, 4}, values, fl::NpyDtype::float32, "q.npy"));
  write_fixture(work / "v.npy",
                fl::encode_npy({8, 4}, std::span<const double>(values.data(), 32), fl::NpyDtype::float64, "v.npy"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  if (!split_arguments(data, size, args)) return -1;  // beyond the caps: not added to the corpus
  std::vector<const char*> argv{"favorlab"};
  for (const auto& a : args) argv.push_back(a.c_str());

  const InWorkDir in_work_dir;
  fl::CliApp cli;
  try {
    cli.app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return 0;
  } catch (const std::invalid_argument&) {
    return 0;
  }

  check_max_memory(cli.reproduce_options.common.max_memory);
  check_max_memory(cli.attend_options.max_memory);
  for (std::size_t i = 0; i < cli.experiments.size(); ++i)
    if (cli.subs[i]->parsed()) check_experiment(*cli.experiments[i], cli.common[i]);
  return 0;
}
