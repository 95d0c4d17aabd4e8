// Hostile input, table-driven: one row per class of bad input a user (or a script gone wrong) can hand favorlab, the
// exit status it must give (2: bad input), a piece of its one-line error, and no new file in the directory — no
// result, no temporary file. A new option inherits these checks by the class it belongs to: numbers are checked by
// type for every option (cli/option_checks.hpp), memory by the command's prediction (runtime/memory_budget.hpp), output
// paths by io/atomic_file.hpp. Also: outputs onto links, FIFOs and stdout; temporary files on signals and crashes.
// Every refusal here reads no data and runs nothing, so each row must end within kRefusalSeconds, a bound two orders
// of magnitude above what a refusal costs (milliseconds) and far below what the defects it guards against took
// (46 s reading 1e308-sized norms, the whole of /dev/zero).
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/backend.hpp"
#include "cli/option_checks.hpp"
#include "cli_runner.hpp"
#include "io/atomic_file.hpp"
#include "io/json_file.hpp"
#include "io/npy.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/thread_start.hpp"
#include "sanitizers.hpp"

using namespace favorlab;
using namespace favorlab::testing;
namespace fs = std::filesystem;

namespace {

constexpr double kRefusalSeconds = 20;

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

void write_array(const fs::path& p, const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (auto s : shape) n *= static_cast<std::size_t>(s);
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = 0.01 * static_cast<double>(i % 97) - 0.4;
  write_npy(p, shape, values, NpyDtype::float64);
}

struct Row {
  std::string klass, args, needle;
};

}  // namespace

TEST_CASE("hostile command lines: exit 2, one line naming the problem, no file left, quickly", "[cli][hostile]") {
  const fs::path dir = scratch_dir("hostile");
  write_array(dir / "q.npy", {2, 8, 4});
  write_array(dir / "v.npy", {2, 8, 4});
  write_array(dir / "wide.npy", {1, 20000});                                     // (L, d) = (1, 20000)
  fs::copy_file(dir / "q.npy", dir / "k.npy");
  {
    const std::vector<double> none;
    write_npy(dir / "h0.npy", {0, 8, 4}, none, NpyDtype::float64);              // no heads
    write_npy(dir / "huge0.npy", {100000000, 0, 4}, none, NpyDtype::float64);   // 1e8 heads of nothing
    write_npy(dir / "vast0.npy", {1000000000000, 0, 4}, none, NpyDtype::float64);
  }
  std::ofstream(dir / "a-file") << "not a directory\n";
  // Output directories whose other *.json the ledger written at the end would refuse: refused before any experiment.
  fs::create_directories(dir / "foreign");
  std::ofstream(dir / "foreign" / "notes.json") << "{\"a\": 1}\n";
  fs::create_directories(dir / "twice");
  fs::copy_file(fs::path(FAVORLAB_SOURCE_DIR) / "results" / "unbiased.json", dir / "twice" / "unbiased-old.json");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  fs::create_symlink("loop", dir / "loop");  // a link to itself
  {
    // A float16 W of 2 000 000 rows (16 MB on disk): the memory it implies is in its header, not in --m.
    const std::vector<double> zeros(2000000 * 4, 0.0);
    write_npy(dir / "tall-w.npy", {2000000, 4}, zeros, NpyDtype::float16);
  }
  // Result files: a real one, the same nested 100 000 arrays deep in a member compare reads and 1 000 000 deep in one
  // it never reads, and one with a number beyond double's range.
  fs::copy_file(fs::path(FAVORLAB_SOURCE_DIR) / "results" / "unbiased.json", dir / "a.json");
  fs::copy_file(dir / "a.json", dir / "b.json");
  {
    const std::string a = read_text(dir / "a.json");
    const auto nested = [](std::size_t n) { return std::string(n, '[') + std::string(n, ']'); };
    std::string deep = a;
    deep.replace(deep.find("\"key\": ", deep.find("\"row_schema\"")), 7, "\"key\": " + nested(100000) + ", \"was\": ");
    std::ofstream(dir / "deep.json") << deep;
    std::ofstream(dir / "deeper.json") << "{\"unused\": " << nested(1000000) << "}";
    std::string huge = a;
    huge.replace(huge.find("\"seed\": "), 8, "\"seed\": 1e400, \"was\": ");
    std::ofstream(dir / "huge.json") << huge;
    // Every count 0: a new file that made compare's tests infinitely wide (and so "unchanged").
    auto zero = nlohmann::json::parse(a);
    for (auto& row : zero["rows"])
      if (row.contains("trials")) row["trials"] = 0;
    std::ofstream(dir / "zero-counts.json") << zero.dump();
  }
  // 20 000 layers of --inputs, twice the most allowed (short names: the shell's command line is one argument, at most
  // 128 KiB; the paths are counted before any is looked at, so they need not exist).
  std::string triples;
  for (int i = 0; i < 20000; ++i) triples += (i ? "," : "") + std::string("q,k,v");
  const std::string attend = "attend --q q.npy --k k.npy --v v.npy ";

  const std::vector<Row> rows = {
      // Empty inputs (a zero dimension).
      {"zero heads", "attend --q h0.npy --k h0.npy --v h0.npy --out o.npy", "is empty"},
      {"zero heads", "attention-error --q h0.npy --k h0.npy --v h0.npy --quick --out o.json", "is empty"},
      {"zero heads", "permute-properties --q h0.npy --k h0.npy --quick --out o.json", "is empty"},
      {"empty shape, huge head count", "attend --q huge0.npy --k huge0.npy --v huge0.npy --out o.npy", "is empty"},
      {"empty shape, huge head count", "attend --q vast0.npy --k vast0.npy --v vast0.npy --out o.npy", "is empty"},
      // Inputs are regular files: a device never ends, a FIFO blocks the open until someone writes to it.
      {"endless input", "attend --q /dev/zero --k k.npy --v v.npy --out o.npy", "not a regular file"},
      {"endless input", "attention-error --q /dev/zero --k k.npy --v v.npy --quick --out o.json", "not a regular file"},
      {"endless input", "compare /dev/zero a.json", "not a regular file"},
      {"FIFO input", "attend --q fifo --k k.npy --v v.npy --out o.npy", "--q fifo: it is a FIFO"},
      {"FIFO input", attend + "--w fifo --out o.npy", "--w fifo: it is a FIFO"},
      {"FIFO input", "attention-error --q fifo --k k.npy --v v.npy --quick --out o.json", "--q fifo: it is a FIFO"},
      {"FIFO input", "permute-properties --q fifo --k k.npy --quick --out o.json", "--q fifo: it is a FIFO"},
      {"FIFO input", "compare a.json fifo", "new fifo: it is a FIFO"},
      // A combination the command cannot run: refused, not a crash on the arms it left out.
      {"mode it cannot run", "attention-error --quick --features sderf --modes causal --out o.json", "cannot run --modes causal"},
      {"mode it cannot run", "attention-error --quick --features oprf,positive --modes causal --out o.json", "cannot run --modes causal"},
      // Result files a hostile user makes: nesting beyond any result's, numbers beyond double.
      {"deep JSON", "compare a.json deep.json", "nested more than"},
      {"deep JSON", "compare deeper.json a.json", "nested more than"},
      {"number overflow", "compare a.json huge.json", "number out of range"},
      {"compare aliasing", "compare a.json b.json --out a.json", "same file as baseline"},
      {"compare aliasing", "compare a.json b.json --out ./b.json", "same file as new"},
      {"compare counts", "compare a.json zero-counts.json", "a statistic needs at least 2 draws"},
      // compare's option ranges are checked before either file is read (these do not exist).
      {"compare options first", "compare none-a.json none-b.json --max-uncompared 2",
       "largest uncompared fraction must lie in [0, 1]"},
      {"compare options first", "compare none-a.json none-b.json --tolerance -1", "tolerance must be finite"},
      // Sizes beyond the memory: refused by the prediction, not by std::bad_alloc.
      {"memory", attend + "--m 100000000 --out o.npy", "needs ≈"},
      {"memory", attend + "--m 1000000000 --out o.npy", "needs ≈"},
      {"memory", "attend --q wide.npy --k wide.npy --v wide.npy --out o.npy --max-memory 1G", "needs ≈"},
      {"memory", attend + "--out o.npy --max-memory 1K", "--max-memory allows"},
      {"memory", "mse --quick --out o.json --max-memory 1K", "--max-memory allows"},
      {"memory", "mse --m 2147483647 --out o.json", "needs ≈"},
      {"memory", attend + "--w tall-w.npy --out o.npy --max-memory 300M", "needs ≈"},
      {"memory", attend + "--w tall-w.npy --out o.npy", "needs ≈"},
      // Counts: overflow, wrap-around, absurd threads.
      {"threads", "unbiased --quick --threads 100000 --out o.json", "--threads must be at most"},
      {"threads", attend + "--threads 100000 --out o.npy", "--threads must be at most"},
      {"threads", "reproduce --quick --threads 100000 --out-dir out", "--threads must be at most"},
      {"trials", "mse --trials 9223372036854775807 --out o.json", "--trials: must be between"},
      {"zero is not default", "mse --trials 0 --out o.json", "--trials: must be between"},
      {"zero is not default", "redraw --groups 0 --out o.json", "--groups: must be at least 1"},
      {"zero is not default", "permute-properties --positions 0 --out o.json", "--positions: must be at least 1"},
      {"zero is not default", "structured --batch 0 --out o.json", "--batch: must be at least 1"},
      {"zero is not default", "attention-report --heatmap-m -5 --out o.json", "--heatmap-m: must be at least 1"},
      {"threads", "speed --thread-counts 1000 --out o.json", "--thread-counts: must lie in"},
      {"alpha range", "mse --alpha 5e-324 --out o.json", "--alpha: must lie in"},
      {"alpha range", "compare a.json b.json --alpha 5e-324", "--alpha: must lie in"},
      {"count first", "attention-report --quick --out o.json --inputs " + triples, "--inputs: 60000 paths"},
      {"trials", "mse --trials 100000000000000000000 --out o.json", "out of range"},
      {"negative unsigned", "mse --seed -1 --out o.json", "no sign"},
      {"negative unsigned", attend + "--draw -1 --out o.npy", "no sign"},
      {"unsigned overflow", "mse --seed 99999999999999999999 --out o.json", "out of range"},
      // Empty lists and values, NaN, ∞.
      {"empty value", "mse --cos '' --out o.json", "empty value"},
      {"empty value", "mse --x-norm '' --out o.json", "empty value"},
      {"empty value", "smreg --z-norm '' --out o.json", "empty value"},
      {"not finite", "speed --time-cap nan --out o.json", "not a finite number"},
      {"not finite", "mse --alpha inf --out o.json", "not a finite number"},
      {"not finite", attend + "--gerf-a 1e999 --features gerf --out o.npy", "not a finite number"},
      {"not a number", "mse --d 16x --out o.json", "not an integer"},
      {"bad size", "mse --max-memory lots --out o.json", "--max-memory: must be a size"},
      // Validated before reproduce prints its legend or creates the directory.
      {"bad size", "reproduce --quick --max-memory lots --out-dir rr", "--max-memory: must be a size"},
      // Every experiment's memory prediction too: no legend, no directory, before the first experiment.
      {"memory", "reproduce --quick --max-memory 2K --out-dir rr", "--max-memory allows 2.00 KiB"},
      {"not decimal", "mse --m 0x --out o.json", "not an integer"},
      {"control characters", "mse --d '1\n2' --out o.json", "'1\\n2' is not an integer"},
      {"duplicate list values", "mse --cos 0.5,0.5 --out o.json", "--cos: 0.5 is given twice"},
      {"duplicate list values", "mse --cos 0.5,5e-1 --out o.json", "is given twice"},
      {"duplicate list values", "unbiased --estimators trig,trig --out o.json", "--estimators: trig is given twice"},
      {"duplicate list values", "attention-error --m-values 8,8,4 --out o.json", "--m-values: 8 is given twice"},
      {"empty path", "mse --quick --out ''", "--out: an empty path"},
      {"empty path", attend + "--out o.npy --matrix ''", "--matrix: an empty path"},
      {"empty path", "compare a.json b.json --out ''", "--out: an empty path"},
      {"empty path", "compare '' b.json", "an empty path"},
      // Output paths: an input, another output, something that is not a regular file, an uncreatable directory.
      {"aliasing", "attend --q q.npy --k k.npy --v v.npy --out q.npy", "same file as --q"},
      {"aliasing", attend + "--out o.npy --matrix ./o.npy", "same file as --out"},
      {"aliasing", attend + "--out o.npy --save-w o.npy", "same file as --out"},
      {"aliasing", "attention-error --q q.npy --k k.npy --v v.npy --quick --out k.npy", "same file as --k"},
      {"two outputs on stdout", attend + "--out - --matrix -", "at most one output may be -"},
      {"symbolic link loop", "mse --quick --out loop", "a loop of symbolic links"},
      {"not a regular file", "mse --quick --out fifo", "is a FIFO"},
      {"not a regular file", attend + "--out fifo", "is a FIFO"},
      {"not a regular file", "mse --quick --out .", "directory"},
      {"uncreatable directory", "reproduce --quick --no-figures --out-dir a-file", "--out-dir a-file: cannot create"},
      {"uncreatable directory", "reproduce --quick --no-figures --out-dir a-file/sub", "--out-dir a-file/sub"},
      {"foreign result", "reproduce --quick --no-figures --out-dir foreign", "notes.json, which is not a favorlab result"},
      {"foreign result", "reproduce --quick --no-figures --out-dir twice", "the ledger would count it twice"},
  };
  for (const Row& row : rows) {
    const auto before = listing(dir);
    const auto start = std::chrono::steady_clock::now();
    const CliRun run = run_cli(row.args, dir);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(row.klass << ": favorlab " << row.args << "\nexit " << run.status << "\nstderr: " << run.err);
    CHECK(run.status == 2);
    CHECK(line_count(run.err) == 1);
    CHECK(run.err.find(row.needle) != std::string::npos);
    CHECK(run.err.find("internal error") == std::string::npos);
    CHECK(listing(dir) == before);
    CHECK(seconds < kRefusalSeconds);
    CHECK(read_text(dir / "a.json") == read_text(dir / "b.json"));  // inputs intact
    CHECK(fs::is_symlink(fs::symlink_status(dir / "loop")));
  }
  fs::remove_all(dir);
}

TEST_CASE("strict numbers: what each numeric type accepts", "[cli][hostile]") {
  for (const char* ok : {"0", "17", "0x10", "-5"}) CHECK(strict_number_problem(ok, "INT").empty());
  for (const char* ok : {"0", "18446744073709551615"}) CHECK(strict_number_problem(ok, "UINT").empty());
  for (const char* ok : {"0.5", "-1e-3", "1e308", "3"}) CHECK(strict_number_problem(ok, "FLOAT").empty());
  // The power case: every one of these is what CLI11 alone would have accepted or silently changed.
  for (const char* bad : {"", " 5", "5 ", "9223372036854775808", "1.5", "1e5", "five"})
    CHECK_FALSE(strict_number_problem(bad, "INT").empty());
  for (const char* bad : {"-1", "+1", "18446744073709551616", ""}) CHECK_FALSE(strict_number_problem(bad, "UINT").empty());
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e999", "", "0.5x"})
    CHECK_FALSE(strict_number_problem(bad, "FLOAT").empty());
}

TEST_CASE("memory sizes parse as users write them", "[cli][hostile]") {
  CHECK(parse_memory_size("100") == 100);
  CHECK(parse_memory_size("8G") == 8.0 * (1 << 30));
  CHECK(parse_memory_size("1.5GiB") == 1.5 * (1 << 30));
  CHECK(parse_memory_size("512mb") == 512.0 * (1 << 20));
  CHECK(parse_memory_size("2T") == 2.0 * (1 << 30) * 1024);
  for (const char* bad : {"", "G", "-1G", "0", "8X", "1e3", "nan", "8 G"}) CHECK_THROWS_AS(parse_memory_size(bad), std::invalid_argument);
  CHECK(available_memory_bytes() > 0);
  CHECK_NOTHROW(check_memory_budget("x", 1e6, "--m", "1G"));
  CHECK_THROWS_WITH(check_memory_budget("x", 2e9, "--m", "1G"), Catch::Contains("x needs ≈ 1.86 GiB, --max-memory allows 1.00 GiB; lower --m"));
  CHECK_THROWS_WITH(check_memory_budget("x", 1e30, "--m", ""), Catch::Contains("or pass --max-memory"));
}

TEST_CASE("result files: a symlink is followed, a FIFO refused, '-' is stdout", "[cli][hostile]") {
  const fs::path dir = scratch_dir("outputs");
  const std::string run = "unbiased --quick --trials 64 --estimators trig --x-norm 0.5 --y-norm 0.5 --cos 0.5 --quiet ";
  fs::create_directory(dir / "real");
  fs::create_symlink("real/target.json", dir / "link.json");
  CliRun r = run_cli(run + "--out link.json", dir);
  REQUIRE(r.status == 0);
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(fs::is_regular_file(dir / "real" / "target.json"));
  CHECK(read_text(dir / "real" / "target.json").find("\"experiment\": \"unbiased\"") != std::string::npos);
  CHECK(listing(dir / "real") == std::set<std::string>{"target.json"});

  r = run_cli(run + "--out -", dir);
  REQUIRE(r.status == 0);
  const auto json = nlohmann::json::parse(r.out);  // stdout is the result file and nothing else
  CHECK(json["schema"] == "favorlab.result/1");
  CHECK(json["experiment"] == "unbiased");
  CHECK_FALSE(fs::exists(dir / "-"));
  fs::remove_all(dir);
}

TEST_CASE("temporary result files go on a signal or a crash, the old result stays", "[cli][hostile]") {
  const fs::path dir = scratch_dir("signals");
  // A writer that dies of a crash signal (SIGABRT and SIGILL: sanitizers leave those to the program) removes its
  // temporary file and still dies of that signal. The child resets the test framework's own handler first: the
  // writer leaves a handler someone else installed alone.
  for (int sig : {SIGABRT, SIGILL}) {
    std::ofstream(dir / "r.json") << "old\n";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::signal(sig, SIG_DFL);
      AtomicFileWriter w(dir / "r.json");
      ::raise(sig);
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(listing(dir) == std::set<std::string>{"r.json"});
    CHECK(read_text(dir / "r.json") == "old\n");
  }
  // A running experiment ended by any signal whose default action ends the process (an interrupt, a kill, a closed
  // pipe, a file size or CPU limit, a timer, a user signal, a real-time one): no temporary file, the old result
  // intact. The child resets the signal first: an ignored signal stays ignored across exec.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ, SIGXCPU, SIGVTALRM,
                  static_cast<int>(SIGRTMIN)}) {
    INFO("signal " << sig);
    std::ofstream(dir / "r.json") << "old\n";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::signal(sig, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      if (::chdir(dir.c_str()) != 0) ::_exit(127);
      ::execl(FAVORLAB_BINARY, FAVORLAB_BINARY, "mse", "--trials", "4000000000", "--threads", "1", "--quiet",
              "--importance-trials", "0", "--out", "r.json", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    bool started = false;
    for (int i = 0; i < 400 && !started; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      started = listing(dir).size() > 1;  // the temporary file exists: the run is under way
    }
    CHECK(started);
    ::kill(child, sig);
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(listing(dir) == std::set<std::string>{"r.json"});
    CHECK(read_text(dir / "r.json") == "old\n");
  }
  fs::remove_all(dir);
}

TEST_CASE("file and directory names that are not UTF-8 are written, not an internal error", "[cli][hostile]") {
  const fs::path dir = scratch_dir("not-utf8");
  const std::string bad = "q\xff\xfe";  // two bytes no UTF-8 text has
  write_array(dir / (bad + ".npy"), {2, 8, 4});
  write_array(dir / "k.npy", {2, 8, 4});
  // An input named in the result's params.
  const CliRun run = run_cli("attention-error --q '" + bad + ".npy' --k k.npy --v k.npy --quick --quiet --out r.json",
                             dir);
  INFO(run.err);
  CHECK(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "r.json"));  // valid JSON, hence valid UTF-8
  CHECK(doc["experiment"] == "attention-error");
  // A results directory of that name in the ledger's JSON.
  fs::create_directories(dir / bad);
  fs::copy_file(fs::path(FAVORLAB_SOURCE_DIR) / "results" / "tails.json", dir / bad / "tails.json");
  const CliRun claims = run_cli("claims '" + bad + "' --format json --out c.json", dir);
  INFO(claims.err);
  CHECK(claims.status == 0);
  CHECK(nlohmann::json::parse(read_text(dir / "c.json"))["schema"] == "favorlab.claims/1");
  fs::remove_all(dir);
}

TEST_CASE("an interrupted reproduce leaves no ledger that contradicts the result files beside it", "[cli][hostile]") {
  const fs::path dir = scratch_dir("reproduce-interrupted");
  fs::create_directories(dir / "out");
  std::ofstream(dir / "out" / "CLAIMS.md") << "an earlier ledger\n";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_DFL);
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    ::execl(FAVORLAB_BINARY, FAVORLAB_BINARY, "reproduce", "--quick", "--no-figures", "--quiet", "--threads", "1",
            "--out-dir", "out", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Once unbiased's temporary file exists (kernels, run first, has written its result), results are being replaced:
  // the old ledger must be gone.
  bool started = false;
  for (int i = 0; i < 800 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    for (const std::string& name : listing(dir / "out")) started = started || name.rfind(".unbiased.json", 0) == 0;
  }
  CHECK(started);
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  // No ledger, no temporary file, nothing half-written: only the finished result.
  CHECK(listing(dir / "out") == std::set<std::string>{"kernels.json"});
  fs::remove_all(dir);
}

TEST_CASE("OMP_STACKSIZE is read as libgomp reads it", "[hostile]") {
  CHECK(parse_openmp_stack_size("100G") == std::size_t{100} << 30);
  CHECK(parse_openmp_stack_size("512") == std::size_t{512} << 10);  // KiB by default
  CHECK(parse_openmp_stack_size(" 4 m ") == std::size_t{4} << 20);
  CHECK(parse_openmp_stack_size("64b") == std::size_t{64});
  for (const char* bad : {"", "0", "G", "1x", "1 G G", "-5", "99999999999999999999", "18014398509481984G"})
    CHECK_FALSE(parse_openmp_stack_size(bad).has_value());
  check_threads_can_start(4);  // the default stack: four threads start here
}

TEST_CASE("the environment: closed descriptors, thread failure, umask, long names", "[cli][hostile]") {
  const fs::path dir = scratch_dir("environment");
  const std::string run = std::string("'") + FAVORLAB_BINARY +
                          "' unbiased --quick --trials 64 --estimators trig --x-norm 0.5 --y-norm 0.5 --cos 0.5 ";
  const auto shell = [&](const std::string& cmd) {
    const int raw = std::system(("cd '" + dir.string() + "' && " + cmd).c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  // Started with stderr (or stdin and stdout) closed: the result is JSON, not progress lines in a reused descriptor.
  for (const std::string closed : {"2>&-", "<&- >&- 2>&-"}) {
    INFO(closed);
    REQUIRE(shell(run + "--out o.json " + closed) == 0);
    CHECK(read_text(dir / "o.json").rfind("{", 0) == 0);
    CHECK(nlohmann::json::parse(read_text(dir / "o.json"))["experiment"] == "unbiased");
    fs::remove(dir / "o.json");
  }
  // Standard output that cannot take what a command prints (/dev/full), or closed at start (>&-, where /dev/null fills
  // the descriptor): one line and status 2, never a silent 0. A result file is still written where --out names one
  // (stdout carries only the progress summary there).
  const std::vector<std::string> printing{
      "list", "families --json", "claims '" + std::string(FAVORLAB_SOURCE_DIR) + "/results'",
      "unbiased --quick --trials 64 --estimators trig --x-norm 0.5 --y-norm 0.5 --cos 0.5 --quiet --out -"};
  for (const auto& [redirect, needle] : {std::pair{">/dev/full", "standard output"},
                                         std::pair{">&-", "standard output is closed"}})
    for (const std::string& cmd : printing) {
      INFO(cmd << " " << redirect);
      CHECK(shell(std::string("'") + FAVORLAB_BINARY + "' " + cmd + " " + redirect + " 2>err.txt") == 2);
      const std::string err = read_text(dir / "err.txt");
      CHECK(err.find(needle) != std::string::npos);
      CHECK(line_count(err) == 1);
      fs::remove(dir / "err.txt");
    }
  // Threads that cannot start (a 100 GiB stack per thread that libgomp would ask for, and exit(1) mid-run on): the
  // same count is started first, so the run is refused with one line and status 2, the old result intact. With
  // --threads 1 nothing is started and the run goes ahead.
  std::ofstream(dir / "r.json") << "old\n";
  CHECK(shell("OMP_STACKSIZE=100G OMP_NUM_THREADS=4 " + run + "--threads 4 --quiet --out r.json 2>err.txt") == 2);
  const std::string err = read_text(dir / "err.txt");
  CHECK(err.find("cannot start 4 threads") != std::string::npos);
  CHECK(err.find("OMP_STACKSIZE=100G") != std::string::npos);
  CHECK(line_count(err) == 1);
  fs::remove(dir / "err.txt");
  CHECK(listing(dir) == std::set<std::string>{"r.json"});
  CHECK(read_text(dir / "r.json") == "old\n");
  CHECK(shell("OMP_STACKSIZE=100G " + run + "--threads 1 --quiet --out r.json") == 0);
  fs::remove(dir / "r.json");
  // The mode: a new file's honours the umask, a replaced file's is kept.
  REQUIRE(shell("umask 027 && " + run + "--quiet --out new.json") == 0);
  CHECK((fs::status(dir / "new.json").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  ::chmod((dir / "new.json").c_str(), 0600);
  REQUIRE(shell(run + "--quiet --out new.json") == 0);
  CHECK((fs::status(dir / "new.json").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
  // A raw newline in a value stays one line in every message, progress included: "wrote a\nb.json".
  REQUIRE(shell(run + "--out \"$(printf 'a\\nb.json')\" 2>err.txt") == 0);
  CHECK(read_text(dir / "err.txt").find("wrote a\\nb.json") != std::string::npos);
  fs::remove(dir / "err.txt");
  fs::remove(dir / "a\nb.json");
  // A legal name of 255 bytes, whose temporary name would be longer than the file system allows.
  const std::string longest(250, 'n');
  REQUIRE(shell(run + "--quiet --out " + longest + ".json") == 0);
  CHECK(fs::is_regular_file(dir / (longest + ".json")));
  CHECK(listing(dir) == std::set<std::string>{"new.json", longest + ".json"});
  fs::remove_all(dir);
}

TEST_CASE("numbers are decimal, compare's JSON on stdout is the only thing there", "[cli][hostile]") {
  for (const auto& [text, decimal] : {std::pair{"010", "10"}, {"08", "8"}, {"-007", "-7"}, {"0x10", "16"}, {"0", "0"}}) {
    CHECK(strict_number_problem(text, "INT").empty());
    CHECK(canonical_number(text, "INT") == decimal);
  }
  CHECK(canonical_number("0100", "UINT") == "100");
  for (const char* bad : {"0b101", "0o7", "010x"}) CHECK_FALSE(strict_number_problem(bad, "INT").empty());

  const fs::path dir = scratch_dir("decimal");
  // --seed 0100 is recorded (and used) as 100, not 64; --m 08 is 8, not "not an integer".
  CliRun r = run_cli("unbiased --quick --trials 64 --estimators trig --x-norm 0.5 --y-norm 0.5 --cos 0.5 --seed 0100 "
                     "--m 08 --quiet --out -",
                     dir);
  REQUIRE(r.status == 0);
  const auto result = nlohmann::json::parse(r.out);
  CHECK(result["params"]["seed"] == 100);
  CHECK(result["params"]["m"] == 8);

  fs::copy_file(fs::path(FAVORLAB_SOURCE_DIR) / "results" / "unbiased.json", dir / "a.json");
  // (The quick file's heavy-tailed means are mostly not compared: --max-uncompared 1 keeps this about stdout.)
  r = run_cli("compare a.json a.json --max-uncompared 1 --out -", dir);
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["schema"] == "favorlab.compare/1");  // the report lines went to stderr
  fs::remove_all(dir);
}

TEST_CASE("the bounded JSON reader: kind, size, depth, numbers", "[hostile]") {
  const fs::path dir = scratch_dir("json-reader");
  std::ofstream(dir / "ok.json") << R"({"a": [1, 2, {"b": null}], "c": 1e300})";
  CHECK(read_json_file(dir / "ok.json", "--x")["a"][2].contains("b"));
  CHECK_THROWS_WITH(read_json_file(dir / "ok.json", "--x", 10), Catch::Contains("--x") && Catch::Contains("more than"));
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK_NOTHROW(parse_json_bounded(at_limit, "s"));
  CHECK_THROWS_WITH(parse_json_bounded("[" + at_limit + "]", "s"), Catch::Contains("nested more than"));
  CHECK_THROWS_WITH(parse_json_bounded("{\"a\": " + std::string(1000000, '['), "s"), Catch::Contains("nested more than"));
  CHECK_THROWS_WITH(parse_json_bounded("[1e400]", "s"), Catch::Contains("number out of range"));
  CHECK_THROWS_WITH(parse_json_bounded("{\"a\": -1e999}", "s"), Catch::Contains("number out of range"));
  CHECK_THROWS_WITH(parse_json_bounded("{\n", "s"), Catch::Contains("not JSON") && !Catch::Contains("\n"));
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  CHECK_THROWS_WITH(read_json_file(dir / "fifo", "new"), Catch::Contains("new") && Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(read_json_file("/dev/zero", "new"), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(read_json_file(dir, "new"), Catch::Contains("directory"));
  CHECK_THROWS_WITH(read_json_file(dir / "absent.json", "new"), Catch::Contains("no such file"));
  CHECK_THROWS_AS(read_json_file("", "new"), std::invalid_argument);
  fs::remove_all(dir);
}

TEST_CASE("exact attention: V near the largest double gives the finite answer, logits that overflow are refused",
          "[cli][hostile]") {
  const fs::path dir = scratch_dir("exact-range");
  // Logits q·k/√d of 1e76 cannot be held in float32: one line naming the logits, exit 2, nothing written.
  std::vector<double> big(2 * 8 * 4);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i % 2 ? 1e38 : -1e38;
  for (const char* name : {"q.npy", "k.npy", "v.npy"}) write_npy(dir / name, {2, 8, 4}, big, NpyDtype::float32);
  const CliRun r = run_cli("attend --q q.npy --k k.npy --v v.npy --mechanism exact --quiet --out o.npy", dir);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("logits") != std::string::npos);
  CHECK(r.err.find("features") == std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(!fs::exists(dir / "o.npy"));
  // V = ±1e308 in float64: every output is a convex combination of V's rows, finite; before the scaling the weighted
  // sums overflowed to Inf/NaN. With V's columns constant (1e308 and -1e308) the answer is exactly those constants.
  std::vector<double> small(8 * 4), huge(8 * 4);
  for (std::size_t i = 0; i < small.size(); ++i) small[i] = 0.1 * static_cast<double>(i % 5) - 0.2;
  for (std::size_t i = 0; i < huge.size(); ++i) huge[i] = i % 2 ? 1e308 : -1e308;
  write_npy(dir / "q64.npy", {8, 4}, small, NpyDtype::float64);
  write_npy(dir / "k64.npy", {8, 4}, small, NpyDtype::float64);
  write_npy(dir / "v64.npy", {8, 4}, huge, NpyDtype::float64);
  for (const char* mode : {"", " --causal"}) {
    const CliRun e = run_cli(std::string("attend --q q64.npy --k k64.npy --v v64.npy --mechanism exact --quiet") +
                                 mode + " --out o64.npy",
                             dir);
    INFO(e.err);
    REQUIRE(e.status == 0);
    const NpyArray o = read_npy((dir / "o64.npy").string());
    REQUIRE(o.values.size() == huge.size());
    for (std::size_t i = 0; i < o.values.size(); ++i) CHECK(o.values[i] == Approx(huge[i]).epsilon(1e-12));
  }
  fs::remove_all(dir);
}

TEST_CASE("a CPU run maps no GPU library, --backend cuda that cannot load them says why, exit 2", "[cli][hostile]") {
  // The CUDA libraries reserve far more address space than favorlab needs: once linked into the binary, they made it
  // crash before main under a 700 MB limit. They are now a module loaded only for --backend cuda.
  if (kUnderAddressSanitizer) {
    WARN("skipped under AddressSanitizer: its shadow memory needs more address space than any limit leaves");
    return;
  }
  const fs::path dir = scratch_dir("hostile-address-space");
  const auto run_limited = [&](const std::string& kb, const std::string& args) {
    const std::string cmd = "cd '" + dir.string() + "' && (ulimit -v " + kb + " && '" FAVORLAB_BINARY "' " + args +
                            ") >out.txt 2>err.txt";
    const int raw = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(raw));
    return WEXITSTATUS(raw);
  };
  CHECK(run_limited("700000", "list") == 0);
  CHECK(read_text(dir / "out.txt").find("unbiased") != std::string::npos);
  CHECK(run_limited("700000", "kernels --quick --quiet --threads 1 --out k.json") == 0);  // one thread: one stack
  CHECK(fs::exists(dir / "k.json"));
  if (cuda_available().reason.rfind("favorlab was built without CUDA", 0) != 0) {
    // A build with the module: under 400 MB the module's CUDA libraries cannot be mapped, and the run refuses with
    // the loader's reason before it writes anything.
    fs::remove(dir / "k.json");
    CHECK(run_limited("400000", "speed --backend cuda --quick --out s.json") == 2);
    const std::string err = read_text(dir / "err.txt");
    INFO(err);
    CHECK(err.rfind("favorlab: error: --backend cuda: cannot load the CUDA backend (", 0) == 0);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(!fs::exists(dir / "s.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("an allocation that fails inside a parallel loop is 'out of memory', exit 2, nothing written",
          "[cli][hostile]") {
  // A W of 1e6 rows fits under the address-space limit; one 512-row block of its features (4 GB) does not, and it is
  // allocated on an OpenMP thread. Once that was std::terminate (exit 134). ASan reserves terabytes of shadow
  // address space, so no limit can be set under it.
  if (kUnderAddressSanitizer) {
    WARN("skipped under AddressSanitizer: its shadow memory needs more address space than any limit leaves");
    return;
  }
  const fs::path dir = scratch_dir("hostile-oom");
  write_array(dir / "q.npy", {600, 16});
  fs::copy_file(dir / "q.npy", dir / "k.npy");
  fs::copy_file(dir / "q.npy", dir / "v.npy");
  const std::set<std::string> before = listing(dir);
  const std::string cmd = "cd '" + dir.string() + "' && (ulimit -v 3000000 && '" FAVORLAB_BINARY
                          "' attend --q q.npy --k k.npy --v v.npy --out o.npy --matrix a.npy --m 1000000 --threads 2 "
                          "--max-memory 100G) >out.txt 2>err.txt";
  const int raw = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(raw));
  const std::string err = read_text(dir / "err.txt");
  INFO(err);
  CHECK(WEXITSTATUS(raw) == 2);
  CHECK(err == "favorlab: error: out of memory: lower the sizes or --threads, or free memory\n");
  fs::remove(dir / "out.txt");
  fs::remove(dir / "err.txt");
  CHECK(listing(dir) == before);
  fs::remove_all(dir);
}
