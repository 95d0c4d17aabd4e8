// The command line as a user meets it: listing, version, result files, bad input (exit 2, one line, no file).
#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "linalg/gemm.hpp"
#include "results/result.hpp"

using namespace favorlab::testing;
namespace fs = std::filesystem;

namespace {
bool directory_is_empty(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    (void)entry;
    return false;
  }
  return true;
}
const char* kSmall = "--trials 200 --x-norm 0.5 --y-norm 0.5 --cos 0,0.5 --quiet";
}  // namespace

TEST_CASE("list and --version", "[cli]") {
  const auto dir = scratch_dir("list");
  const auto list = run_cli("list", dir);
  CHECK(list.status == 0);
  CHECK(list.out.find("unbiased") != std::string::npos);
  CHECK(list.out.find("mse") != std::string::npos);
  const auto version = run_cli("--version", dir);
  CHECK(version.status == 0);
  CHECK(version.out.find("favorlab 0.") != std::string::npos);
  CHECK(version.out.find(std::string("arch ") + FAVORLAB_ARCH) != std::string::npos);
  CHECK(version.out.find("GEMM: " + favorlab::gemm_engine()) != std::string::npos);  // what the products run on
  fs::remove_all(dir);
}

// The default build compiles for the build machine's CPU: where the CPU has AVX2, FMA or AVX-512, the compiler must
// have been allowed to use them, and Eigen must vectorize with AVX — this fails when -march=native is lost (Eigen
// would report "SSE, SSE2" only). A portable build has nothing to check.
TEST_CASE("a native build uses the machine's widest SIMD", "[cli][arch]") {
  const std::string simd = Eigen::SimdInstructionSetsInUse();
  INFO("arch " << FAVORLAB_ARCH << ", Eigen SIMD: " << simd
                << ", compiled for: " << favorlab::compiled_instruction_sets());
  if (std::string(FAVORLAB_ARCH) != "native") {
    WARN("not a native build (FAVORLAB_ARCH=" << FAVORLAB_ARCH << "): nothing to check");
    return;
  }
#if defined(__x86_64__)
  const std::string compiled = favorlab::compiled_instruction_sets();
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    CHECK(compiled.find("AVX2") != std::string::npos);
    CHECK(simd.find("AVX") != std::string::npos);
  }
  if (__builtin_cpu_supports("fma")) CHECK(compiled.find("FMA") != std::string::npos);
  if (__builtin_cpu_supports("avx512f")) CHECK(simd.find("AVX512") != std::string::npos);
#endif
}

TEST_CASE("an experiment writes a complete result document", "[cli]") {
  const auto dir = scratch_dir("result");
  const auto run = run_cli(std::string("mse ") + kSmall + " --out r.json", dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "r.json"));
  CHECK(doc["schema"] == "favorlab.result/1");
  CHECK(doc["experiment"] == "mse");
  for (const char* key : {"seed", "trials", "threads", "d", "m", "x_norm", "estimators"})
    CHECK(doc["params"].contains(key));
  for (const char* key : {"version", "git_commit", "compiler", "build_type", "arch", "eigen_simd", "gemm", "backend",
                          "omp_threads", "utc", "wall_seconds", "evaluations_per_second"})
    CHECK(doc["provenance"].contains(key));
  CHECK(doc["provenance"]["arch"] == FAVORLAB_ARCH);
  // 3 estimators + positive at 2m, 2 points each
  REQUIRE(doc["rows"].size() == 8);
  for (const char* key : {"estimator", "coupling", "d", "m", "x_norm", "y_norm", "cos_angle", "truth", "mean",
                          "stderr", "mse", "mse_stderr", "mse_theory", "z", "trials"})
    CHECK(doc["rows"][0].contains(key));
  CHECK(!doc["checks"].empty());
  for (const auto& c : doc["checks"]) {
    const std::string status = c["status"];
    CHECK((status == "holds" || status == "violated" || status == "inconclusive"));
  }
  fs::remove_all(dir);
}

TEST_CASE("the default output goes to results/<experiment>.json", "[cli]") {
  const auto dir = scratch_dir("default-out");
  REQUIRE(run_cli(std::string("unbiased ") + kSmall, dir).status == 0);
  CHECK(fs::exists(dir / "results" / "unbiased.json"));
  fs::remove_all(dir);
}

TEST_CASE("threads do not change the numbers", "[cli][determinism]") {
  const auto dir = scratch_dir("threads");
  REQUIRE(run_cli(std::string("unbiased ") + kSmall + " --threads 1 --out a.json", dir).status == 0);
  REQUIRE(run_cli(std::string("unbiased ") + kSmall + " --threads 2 --out b.json", dir).status == 0);
  const auto a = nlohmann::json::parse(read_text(dir / "a.json")), b = nlohmann::json::parse(read_text(dir / "b.json"));
  CHECK(a["rows"] == b["rows"]);
  CHECK(a["checks"] == b["checks"]);
  fs::remove_all(dir);
}

TEST_CASE("bad input: exit status 2, one line on stderr naming the problem, nothing written", "[cli]") {
  const auto dir = scratch_dir("bad");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"mse --no-such-option", "no-such-option"},
      {"mse --m 0", "--m"},
      {"mse --m -3", "--m"},
      {"unbiased --d 0", "--d"},
      {"mse --cos 1.5", "cos"},
      {"mse --x-norm nan", "norm"},
      {"mse --x-norm -1", "norm"},
      {"mse --estimators trig,softmax", "softmax"},
      {"unbiased --couplings haar", "haar"},
      {"mse --trials 1", "--trials"},
      {"mse --threads -2", "--threads"},
      {"mse --alpha 2", "--alpha"},
      {"mse --x-norm 40 --y-norm 40 --cos 1", "overflow"},
      {"mse --out missing-dir/r.json", "missing-dir/r.json"},
      {"mse --out .", "directory"},
      {"no-such-experiment", "no-such-experiment"},
  };
  for (const auto& [args, needle] : cases) {
    const auto run = run_cli(args + (args.find("--trials") == std::string::npos ? " --trials 50" : "") +
                                 (args.find("--out") == std::string::npos ? " --out r.json" : "") + " --quiet",
                             dir);
    INFO("favorlab " << args << "\nstderr: " << run.err);
    CHECK(run.status == 2);
    CHECK(line_count(run.err) == 1);
    CHECK(run.err.find(needle) != std::string::npos);
    CHECK(directory_is_empty(dir));
  }
  fs::remove_all(dir);
}
