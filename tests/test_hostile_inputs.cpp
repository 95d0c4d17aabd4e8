// Hostile input, table-driven: one row per class of bad input a user (or a script gone wrong) can hand favorlab, the
// exit status it must give (2: bad input), a piece of its one-line error, and no new file in the directory — no
// result, no temporary file. A new option inherits these checks by the class it belongs to: numbers are checked by
// type for every option (cli/option_checks.hpp), memory by the command's prediction (perf/memory_budget.hpp), output
// paths by io/atomic_file.hpp. Also: outputs onto links, FIFOs and stdout; temporary files on signals and crashes.
// Every refusal here reads no data and runs nothing, so each row must end within kRefusalSeconds, a bound two orders
// of magnitude above what a refusal costs (milliseconds) and far below what the defects it guards against took
// (46 s reading 1e308-sized norms, the whole of /dev/zero).
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/option_checks.hpp"
#include "cli_runner.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "perf/memory_budget.hpp"

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
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  const std::string attend = "attend --q q.npy --k k.npy --v v.npy ";

  const std::vector<Row> rows = {
      // Empty inputs (a zero dimension).
      {"zero heads", "attend --q h0.npy --k h0.npy --v h0.npy --out o.npy", "is empty"},
      {"zero heads", "attention-error --q h0.npy --k h0.npy --v h0.npy --quick --out o.json", "is empty"},
      {"zero heads", "permute-properties --q h0.npy --k h0.npy --quick --out o.json", "is empty"},
      {"empty shape, huge head count", "attend --q huge0.npy --k huge0.npy --v huge0.npy --out o.npy", "is empty"},
      {"empty shape, huge head count", "attend --q vast0.npy --k vast0.npy --v vast0.npy --out o.npy", "is empty"},
      // Not a .npy at all, of unbounded size.
      {"endless input", "attend --q /dev/zero --k k.npy --v v.npy --out o.npy", "not a .npy file"},
      {"endless input", "attention-error --q /dev/zero --k k.npy --v v.npy --quick --out o.json", "not a .npy file"},
      // Sizes beyond the memory: refused by the prediction, not by std::bad_alloc.
      {"memory", attend + "--m 100000000 --out o.npy", "needs ≈"},
      {"memory", attend + "--m 1000000000 --out o.npy", "needs ≈"},
      {"memory", "attend --q wide.npy --k wide.npy --v wide.npy --out o.npy --max-memory 1G", "needs ≈"},
      {"memory", attend + "--out o.npy --max-memory 1K", "--max-memory allows"},
      {"memory", "mse --quick --out o.json --max-memory 1K", "--max-memory allows"},
      {"memory", "mse --m 2147483647 --out o.json", "needs ≈"},
      // Counts: overflow, wrap-around, absurd threads.
      {"threads", "unbiased --quick --threads 100000 --out o.json", "--threads must be at most"},
      {"threads", attend + "--threads 100000 --out o.npy", "--threads must be at most"},
      {"threads", "reproduce --quick --threads 100000 --out-dir out", "--threads must be at most"},
      {"trials", "mse --trials 9223372036854775807 --out o.json", "--trials must be between"},
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
      {"bad size", "mse --max-memory lots --out o.json", "--max-memory must be a size"},
      // Output paths: an input, another output, something that is not a regular file, an uncreatable directory.
      {"aliasing", "attend --q q.npy --k k.npy --v v.npy --out q.npy", "same file as --q"},
      {"aliasing", attend + "--out o.npy --matrix ./o.npy", "same file as --out"},
      {"aliasing", attend + "--out o.npy --save-w o.npy", "same file as --out"},
      {"aliasing", "attention-error --q q.npy --k k.npy --v v.npy --quick --out k.npy", "same file as --k"},
      {"not a regular file", "mse --quick --out fifo", "is a FIFO"},
      {"not a regular file", attend + "--out fifo", "is a FIFO"},
      {"not a regular file", "mse --quick --out .", "directory"},
      {"uncreatable directory", "reproduce --quick --no-figures --out-dir a-file", "--out-dir a-file: cannot create"},
      {"uncreatable directory", "reproduce --quick --no-figures --out-dir a-file/sub", "--out-dir a-file/sub"},
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

TEST_CASE("temporary result files go on a signal or a crash; the old result stays", "[cli][hostile]") {
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
  // A running experiment interrupted by SIGINT, SIGTERM, SIGHUP: no temporary file, the old result intact.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    std::ofstream(dir / "r.json") << "old\n";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::chdir(dir.c_str());
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
