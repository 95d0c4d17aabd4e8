#pragma once
// Runs the favorlab binary from tests and captures its exit status, stdout and stderr.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace favorlab::testing {

struct CliRun {
  int status = -1;
  std::string out, err;
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh scratch directory under the system temp dir, removed by the caller if wanted.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("favorlab-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A scratch directory holding `path` (a folder of the source tree) as committed at HEAD, so that a check of the docs
// against committed results stays true after scripts/reproduce.sh has regenerated the working tree's. Outside a git
// checkout (a source tarball) the working tree's copy is what there is: the source tree itself is returned.
inline std::filesystem::path committed_tree(const std::filesystem::path& source, const std::string& path,
                                            const std::string& name) {
  const auto dir = scratch_dir(name);
  const std::string cmd = "git -C '" + source.string() + "' archive HEAD '" + path + "' 2>/dev/null | tar -x -C '" +
                          dir.string() + "' 2>/dev/null";
  const int raw = std::system(cmd.c_str());
  if (WIFEXITED(raw) && WEXITSTATUS(raw) == 0 && std::filesystem::is_directory(dir / path)) return dir;
  std::filesystem::remove_all(dir);
  return source;
}

inline CliRun run_cli(const std::string& args, const std::filesystem::path& cwd) {
  const auto out = cwd / ".stdout", err = cwd / ".stderr";
  const std::string cmd = "cd '" + cwd.string() + "' && '" FAVORLAB_BINARY "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int raw = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

inline std::size_t line_count(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Bad input as the README promises it: `favorlab <args>` exits with status 2 and one line on stderr naming the
// problem (containing `needle`), and `output` (relative to cwd) is not written.
inline void check_bad_input(const std::string& args, const std::string& needle, const std::filesystem::path& cwd,
                            const std::string& output) {
  const CliRun run = run_cli(args, cwd);
  INFO("favorlab " << args << "\nstderr: " << run.err);
  CHECK(run.status == 2);
  CHECK(line_count(run.err) == 1);
  CHECK(run.err.find(needle) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(cwd / output));
}

// `favorlab <args> --out <name>` run in dir: requires exit status 0 (stderr in the failure message) and returns the
// result file's JSON.
inline nlohmann::json run_cli_json(const std::string& args, const std::filesystem::path& dir, const std::string& name) {
  const CliRun run = run_cli(args + " --out " + name, dir);
  INFO("favorlab " << args << "\nstderr: " << run.err);
  REQUIRE(run.status == 0);
  return nlohmann::json::parse(read_text(dir / name));
}

}  // namespace favorlab::testing
