// `favorlab speed` and its library pieces: the peak-memory helper against allocations of known size, the memory
// target of causal FAVOR (deterministic, so a unit test), the driver's rows and fields at a tiny size, bad input.
// No timing is judged here: timing checks are informational and live only in the experiment's result.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <Eigen/Core>
#include <malloc.h>
#include <sys/resource.h>
#include <cstring>
#include <map>
#include <string>
#include <stdexcept>
#include <vector>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/backend.hpp"
#include "attention/random_inputs.hpp"
#include "cli_runner.hpp"
#include "features/estimator.hpp"
#include "features/projection.hpp"
#include "runtime/allocator.hpp"
#include "perf/favor_products.hpp"
#include "perf/interleaved_timing.hpp"
#include "perf/fma_peak.hpp"
#include "perf/mc_engine_rate.hpp"
#include "rng/philox_stream.hpp"
#include "runtime/peak_memory.hpp"
#include "perf/ratio_checks.hpp"
#include "sanitizers.hpp"

using namespace favorlab;
using namespace favorlab::testing;
namespace fs = std::filesystem;

TEST_CASE("peak memory: allocating and touching N bytes reports about N", "[speed][memory]") {
  FAVORLAB_SKIP_UNDER_ASAN();
  Eigen::setNbThreads(1);
  for (std::size_t mib : {16, 64, 128}) {
    const std::size_t n = mib << 20;
    const PeakMemory pm = measure_peak_memory([n] {
      std::vector<char> block(n);
      std::memset(block.data(), 1, n);  // touch every page
      return double(block[n / 2]);
    });
    INFO(mib << " MiB: peak " << pm.peak_increase_bytes << " exact " << pm.exact);
    CHECK(pm.value == 1.0);
    CHECK(pm.exact);
    // Page granularity and the kernel's per-CPU counters blur the figure by well under 1 MiB.
    CHECK(double(pm.peak_increase_bytes) > double(n) - (1 << 20));
    CHECK(double(pm.peak_increase_bytes) < double(n) + (2 << 20));
  }
  // Reserved but untouched memory is not resident.
  const PeakMemory lazy = measure_peak_memory([] {
    std::vector<char> block;
    block.reserve(std::size_t(256) << 20);
    return double(block.capacity() > 0);
  });
  CHECK(lazy.peak_increase_bytes < (2 << 20));
  // Memory freed before the measurement and reused by the work still counts (the child trims the heap first).
  {
    std::vector<std::vector<char>> chunks;
    for (int i = 0; i < 400; ++i) chunks.emplace_back(100000, char(1));
  }
  const PeakMemory reused = measure_peak_memory([] {
    std::vector<std::vector<char>> chunks;
    for (int i = 0; i < 400; ++i) chunks.emplace_back(100000, char(1));
    return double(chunks.size());
  });
  CHECK(double(reused.peak_increase_bytes) > 0.95 * 400 * 100000);
}

TEST_CASE("peak memory: a failing work is reported, not hidden", "[speed][memory]") {
  CHECK_THROWS_WITH(measure_peak_memory([]() -> double { throw std::invalid_argument("bad work"); }),
                    Catch::Contains("bad work"));
}

TEST_CASE("causal FAVOR at L = 65536, d = 64, m = 256, float32: peak memory < 3x (inputs + outputs)",
          "[speed][memory]") {
  FAVORLAB_SKIP_UNDER_ASAN();
  Eigen::setNbThreads(1);
  const int L = 65536, d = 64;
  const Heads<float> q{gaussian_input(L, d, 1.0, 5, 1, 0).cast<float>()};
  const Heads<float> k{gaussian_input(L, d, 1.0, 5, 2, 0).cast<float>()};
  const Heads<float> v{gaussian_input(L, d, 1.0, 5, 3, 0).cast<float>()};
  AttentionConfig c;
  c.causal = true;
  c.m = 256;
  const Eigen::MatrixXd w = draw_attention_projection(c, d, 5, 0);
  const PeakMemory pm = measure_peak_memory([&] { return double(attend<float>(q, k, v, w, c, 1).front()(L - 1, 0)); });
  const double inputs = 3.0 * L * d * sizeof(float), outputs = 1.0 * L * d * sizeof(float);
  const double ratio = (inputs + double(pm.peak_increase_bytes)) / (inputs + outputs);
  INFO("peak rise " << pm.peak_increase_bytes << " bytes, ratio " << ratio);
  CHECK(pm.exact);
  CHECK(std::isfinite(pm.value));
  CHECK(double(pm.peak_increase_bytes) >= outputs);  // the output itself is part of the peak
  CHECK(ratio < 3.0);
}

TEST_CASE("the bare products equal their definition", "[speed]") {
  const int L = 700, d = 8, m = 16, dv = 3;  // two blocks of rows
  const Heads<double> q{gaussian_input(L, d, 1.0, 6, 1, 0)}, k{gaussian_input(L, d, 1.0, 6, 2, 0)},
      v{gaussian_input(L, dv, 1.0, 6, 3, 0)};
  const Eigen::MatrixXd w = gaussian_input(m, d, 1.0, 6, 4, 0);
  Eigen::MatrixXd ones_v(L, dv + 1);
  ones_v << v[0], Eigen::VectorXd::Ones(L);
  const Eigen::MatrixXd expected = (q[0] * w.transpose()) * ((k[0] * w.transpose()).transpose() * ones_v);
  for (int threads : {1, 2}) {
    const auto out = favor_bare_products<double>(q, k, v, w, threads);
    CHECK((out[0] - expected).cwiseAbs().maxCoeff() < 1e-9 * expected.cwiseAbs().maxCoeff());
  }
  CHECK(favor_bare_product_flops(L, L, d, m, dv) == 2.0 * (2 * L * d * m + 2 * L * m * (dv + 1)));
}

TEST_CASE("the peak-memory target is judged at the length it names, and only there", "[speed][memory]") {
  const std::string claim = "peak < 3x", where = "causal FAVOR";
  Ratios at_target, smaller, none;
  // Judged at L = 65536: within the limit holds; one point past it is violated (the power case).
  at_target.add("regular/L=65536", 1.05, 0.5);
  at_target.add("small/L=65536", 1.2, 0.5);
  Check c = memory_target_check(claim, where, at_target, none, 65536, 65536, 3.0);
  CHECK(c.status == Verdict::holds);
  CHECK(c.statistic == 1.2);
  at_target.add("tiny/L=65536", 3.4, 0.5);
  c = memory_target_check(claim, where, at_target, none, 65536, 65536, 3.0);
  CHECK(c.status == Verdict::violated);
  CHECK(c.statistic == 3.4);
  CHECK(c.detail.find("2 of 3 points within the target") != std::string::npos);
  // A run that stopped below the target length: nothing judged, even a ratio past the limit, which is listed.
  smaller.add("small/L=4096", 3.03, 0.5);
  c = memory_target_check(claim, where, none, smaller, 65536, 4096, 3.0);
  CHECK(c.status == Verdict::inconclusive);
  CHECK(c.detail.find("largest L is 4096") != std::string::npos);
  CHECK(c.detail.find("small/L=4096=3.03") != std::string::npos);
  c = memory_target_check(claim, where, none, none, 65536, 4096, 3.0);
  CHECK(c.status == Verdict::inconclusive);
  CHECK(c.detail.find("no peak measured") != std::string::npos);
  // A timing is measured, never judged: value = the worst ratio, target = the limit.
  c = ratio_check("t <= 1.2", "w", at_target, 1.2, false, true, "timing; ");
  CHECK(c.status == Verdict::measured);
  CHECK(c.value == 3.4);
  CHECK(c.target == 1.2);
}

TEST_CASE("interleaved timing rotates the order of the works every repeat", "[speed]") {
  std::string order;
  const auto seconds = time_interleaved(4, {[&] { order += 'a'; }, [&] { order += 'b'; }, [&] { order += 'c'; }});
  CHECK(order == "abcbcacababc");
  REQUIRE(seconds.size() == 3);
  for (const auto& s : seconds) CHECK(s.size() == 4);
  CHECK_THROWS_AS(time_interleaved(0, {[] {}}), std::invalid_argument);
}

TEST_CASE("the Monte Carlo engine's floor runs the sweep's products (FLOPs counted), its ceiling the estimates",
          "[speed]") {
  SweepConfig c;
  c.d = 5;
  c.specs = {{Family::positive, 3}, {Family::trig, 7}};
  c.points = {{0.5, 1.0, 0.3}, {1.0, 1.5, -0.2}, {0.1, 0.2, 1.0}};
  c.trials = 6;
  CHECK(mc_engine_flops(c) == 6.0 * 2 * 2 * 3 * 5 * (3 + 7));
  // The products use one fixed projection (stream index 0) and report Σ over trials and specs of P_X(0,0) + P_Y(0,0).
  PhiloxStream rng(c.seed, c.stream, 0);
  const Eigen::MatrixXd w = draw_projection(Coupling::iid, RowNorms::chi, 7, c.d, rng);
  const double first = (geometry_x(c.points[0], c.d) + geometry_y(c.points[0], c.d)).dot(w.row(0));
  for (int threads : {1, 2}) {
    c.threads = threads;
    CHECK(mc_engine_products(c) == Approx(6.0 * 2 * first).epsilon(1e-12));
  }
  // Power: a different first row of W (another stream) gives another sum.
  PhiloxStream other(c.seed, c.stream + 1, 0);
  const Eigen::MatrixXd w2 = draw_projection(Coupling::iid, RowNorms::chi, 7, c.d, other);
  CHECK((geometry_x(c.points[0], c.d) + geometry_y(c.points[0], c.d)).dot(w2.row(0)) !=
        Approx(first).epsilon(1e-6));
  // The estimates alone: Σ over trials and specs of the first point's estimate with that fixed projection (rows of
  // norm √d for smreg, as the sweep rescales them).
  c.specs.push_back({Family::smreg, 4});
  Eigen::MatrixXd x(3, c.d), y(3, c.d);
  for (int p = 0; p < 3; ++p) {
    x.row(p) = geometry_x(c.points[std::size_t(p)], c.d).transpose();
    y.row(p) = geometry_y(c.points[std::size_t(p)], c.d).transpose();
  }
  double per_trial = 0, unscaled = 0;  // unscaled: smreg on chi-norm rows, for the power check
  for (const EstimatorSpec& s : c.specs) {
    Eigen::MatrixXd ws = w.topRows(s.m);
    unscaled += estimate_kernel(s.estimator, x, y, ws)(0);
    if (s.estimator == Family::smreg) rescale_rows_to_sqrt_d(ws);
    per_trial += estimate_kernel(s.estimator, x, y, ws)(0);
  }
  REQUIRE(unscaled != Approx(per_trial).epsilon(1e-6));
  // 1e-12 relative: the engine adds the same 18 double terms (6 trials × 3 specs) in another order, which moves the
  // sum by at most about 18 ε ≈ 4e-15 relative for terms of one sign (these three estimates are all positive); a wrong
  // projection moves it by more than 1e-6 (above).
  for (int threads : {1, 2}) {
    c.threads = threads;
    CHECK(mc_engine_estimates(c) == Approx(6.0 * per_trial).epsilon(1e-12));
  }
  c.threads = 1;
  const McEngineTiming t = time_mc_engine(c, 1);
  CHECK(t.sweep_seconds > 0);
  CHECK(t.products_seconds > 0);
  CHECK(t.estimates_seconds > 0);
  CHECK(t.ceiling() == t.products_seconds / t.estimates_seconds);
  CHECK_THROWS_AS(time_mc_engine(c, 0), std::invalid_argument);
  c.specs.push_back({Family::positive, 0});
  CHECK_THROWS_AS(mc_engine_products(c), std::invalid_argument);
  CHECK_THROWS_AS(mc_engine_estimates(c), std::invalid_argument);
}

TEST_CASE("the FMA peak runs the multiply-add chains it counts", "[speed]") {
  // Known answer: the same recursion one lane at a time, x ← x·a + b rounded once (fused) or twice (a multiply and an
  // add, each rounded — a volatile keeps the compiler from fusing them), summed in the same order. Exact equality: the
  // same float operations in the same order.
  const float a = 0.999f, b = 1e-4f;
  const auto reference = [&](std::int64_t steps) {
    double sum = 0;
    for (int c = 0; c < kFmaPeakChains; ++c)
      for (int l = 0; l < fma_peak_lanes(); ++l) {
        float x = 1.0f + float(c) + float(l) / 16.0f;
        for (std::int64_t s = 0; s < steps; ++s) {
          if (fma_peak_fused()) {
            x = std::fma(x, a, b);
          } else {
            volatile float product = x * a;
            x = product + b;
          }
        }
        sum += double(x);
      }
    return sum;
  };
  CHECK(fma_chains(1000, a, b) == reference(1000));
  CHECK(fma_chains(0, a, b) == reference(0));
  // Power: one step fewer (a miscounted FLOP total) gives another sum: each step moves x by (1 − a)(x − 0.1).
  CHECK(fma_chains(999, a, b) != reference(1000));
  const FmaPeak p = measure_fma_peak(0.005, 2);
  CHECK(p.flops_per_second > 0);
  CHECK(p.steps > 0);
  CHECK(p.lanes == fma_peak_lanes());
  CHECK_THROWS_AS(measure_fma_peak(0, 1), std::invalid_argument);
  CHECK_THROWS_AS(measure_fma_peak(NAN, 1), std::invalid_argument);
  CHECK_THROWS_AS(measure_fma_peak(0.01, 0), std::invalid_argument);
}

TEST_CASE("speed driver at a tiny size writes every method, field, fit and check", "[speed][cli]") {
  const auto dir = scratch_dir("speed");
  const auto run = run_cli("speed --quick --quiet --min-L 64 --max-L 128 --d 8 --m 16 --trials 2 --out r.json", dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "r.json"));
  CHECK(doc["experiment"] == "speed");
  CHECK(doc["params"]["chunk"] == 48);  // no --chunk: the CPU's default
  std::map<std::string, int> count;
  int fits = 0, crossovers = 0, mc_rows = 0, peak_rows = 0;
  double peak = 0;
  std::vector<nlohmann::json> gemm_rows;
  for (const auto& row : doc["rows"]) {
    if (row["kind"] == "fit") {
      ++fits;
      CHECK(row.contains("slope"));
      continue;
    }
    if (row["kind"] == "crossover") {
      ++crossovers;
      CHECK(row.contains("crossover_L"));
      continue;
    }
    if (row["kind"] == "fma_peak") {
      ++peak_rows;
      peak = row["flops_per_second"].get<double>();
      CHECK(peak > 0);
      CHECK(row["lanes"] == fma_peak_lanes());
      CHECK(row["fused"] == fma_peak_fused());
      continue;
    }
    if (row["kind"] == "mc_engine") {
      ++mc_rows;
      CHECK(row["trials"] == 500);  // the quick default
      CHECK(row["points"] == 208);
      CHECK(row["gemm_flops"].get<double>() == 500.0 * 4 * 208 * 16 * (16 + 16 + 16 + 32));
      CHECK(row["rate"].get<double>() > 0);
      CHECK(row["rate"].get<double>() == Approx(row["products_seconds_median"].get<double>() /
                                                row["sweep_seconds_median"].get<double>()));
      CHECK(row["ceiling"].get<double>() == Approx(row["products_seconds_median"].get<double>() /
                                                   row["estimates_seconds_median"].get<double>()));
      continue;
    }
    REQUIRE(row["kind"] == "time");
    ++count[row["method"].get<std::string>()];
    for (const char* key : {"method", "shape", "L", "heads", "d", "m", "threads", "seconds_median", "peak_bytes",
                            "ratio_to_exact", "ratio_to_identity", "ratio_to_gemm", "memory_ratio", "load_average"})
      CHECK(row.contains(key));
    CHECK(row["seconds_median"].get<double>() > 0);
    CHECK(row["peak_bytes"].get<double>() >= 0);
    CHECK(row["ratio_to_identity"].is_number());
    if (row["method"] == "gemm" || row["method"] == "favor_bidirectional" || row["method"] == "favor_causal")
      gemm_rows.push_back(row);
  }
  // The fraction of the FMA peak: FAVOR's product FLOP/s over (threads × the peak row), on every gemm and FAVOR row.
  // Exact: the driver divides the same two doubles in the same order, and the JSON round trip keeps every bit.
  REQUIRE(peak_rows == 1);
  REQUIRE(gemm_rows.size() == 3 * 8);
  for (const auto& row : gemm_rows)
    CHECK(row["fraction_of_fma_peak"].get<double>() ==
          row["gemm_flops_per_second"].get<double>() / (row["threads"].get<double>() * peak));
  // 11 methods × 2 shapes × 2 thread counts × 2 lengths
  const std::vector<std::string> methods{"exact", "exact_causal", "exact_reference", "favor_bidirectional",
                                         "favor_oprf", "favor_sderf", "favor_causal", "permuteformer",
                                         "permuteformer_causal", "identity", "gemm"};
  for (const std::string& method : methods) CHECK(count[method] == 8);
  CHECK(count.size() == methods.size());
  CHECK(fits == int(methods.size()) * 2 * 2);
  CHECK(crossovers == 2 * 2);
  CHECK(mc_rows == 1);
  CHECK(doc["params"]["backend"] == "cpu");
  // FAVOR with its inputs held in 16 bits, or its products on the tensor cores, exists on the device only (rounding
  // costs the CPU's arithmetic nothing; the CPU multiplies in float32).
  CHECK(doc["params"]["methods_without_this_backend"] ==
        nlohmann::json({"favor_bidirectional_bfloat16_inputs", "favor_causal_float16_inputs",
                        "favor_causal_bfloat16_inputs", "favor_bidirectional_tf32", "favor_causal_tf32", "gemm_tf32",
                        "favor_bidirectional_bfloat16", "favor_causal_bfloat16", "gemm_bfloat16", "exact_bfloat16",
                        "exact_causal_bfloat16"}));
  // FAVOR vs its GEMMs, causal vs bidirectional, 2 threads (3 methods), PermuteFormer vs FAVOR (2), the tiled exact
  // kernel's gain, oprf and sderf vs positive, exact vs FAVOR (2), the GEMMs and FAVOR both ways against the FMA peak
  // (3), the Monte Carlo engine, causal peak memory.
  REQUIRE(doc["checks"].size() == 17);
  for (const auto& c : doc["checks"]) {
    const std::string status = c["status"];
    // Timings are measurements, never verdicts; the peak-memory target is a count, judged at the L it names
    // (65536): below that, inconclusive with what was measured.
    if (c["claim"].get<std::string>().find("memory") != std::string::npos) {
      CHECK(status == "inconclusive");
      CHECK(c["detail"].get<std::string>().find("small/L=128=") != std::string::npos);
    } else if (status == "measured") {
      CHECK(c["value"].is_number());
      CHECK(c["target"].is_number());
    } else {  // a timing target with no measured point (L too small at this size): nothing judged
      CHECK(status == "inconclusive");
      CHECK(c["detail"].get<std::string>().find("no point measured") != std::string::npos);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("speed --backend cuda at a tiny size: every device method, device peaks, the CUDA targets", "[speed][cuda]") {
  const CudaAvailability cuda = cuda_available();
  if (!cuda.available) {
    WARN("SKIPPED: CUDA backend unavailable: " << cuda.reason);
    return;
  }
  const auto dir = scratch_dir("speed-cuda");
  const auto run =
      run_cli("speed --backend cuda --quiet --min-L 64 --max-L 128 --d 8 --m 16 --trials 3 --out r.json", dir);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "r.json"));
  CHECK(doc["params"]["backend"] == "cuda");
  CHECK(doc["params"]["cuda_device"] == cuda.reason);
  CHECK(doc["params"]["chunk"] == 512);  // no --chunk: the GPU's default
  std::map<std::string, int> count;
  for (const auto& row : doc["rows"]) {
    if (row["kind"] != "time") continue;
    ++count[row["method"].get<std::string>()];
    CHECK(row["threads"] == 1);
    CHECK(row["peak_kind"] == "device");
    CHECK(row["seconds_median"].get<double>() > 0);
    CHECK(row["peak_bytes"].get<double>() > 0);
    CHECK(row["cpu_seconds_median"].is_null());
  }
  // 17 device methods × 2 shapes × 2 lengths; PermuteFormer has no device implementation.
  for (const char* method : {"exact", "exact_causal", "favor_bidirectional", "favor_oprf", "favor_sderf",
                             "favor_causal", "favor_bidirectional_bfloat16_inputs", "favor_causal_float16_inputs",
                             "favor_causal_bfloat16_inputs", "identity", "gemm", "favor_bidirectional_tf32",
                             "favor_causal_tf32", "gemm_tf32", "favor_bidirectional_bfloat16", "favor_causal_bfloat16",
                             "gemm_bfloat16"})
    CHECK(count[method] == 4);
  // cuDNN's fused attention where the build has it.
  for (const char* method : {"exact_bfloat16", "exact_causal_bfloat16"})
    CHECK(count[method] == (cudnn_available().available ? 4 : 0));
  // Each format's FAVOR is held to its own bare products.
  for (const auto& row : doc["rows"])
    if (row["kind"] == "time" && row["method"] == "favor_bidirectional_bfloat16")
      CHECK(row.contains("gemm_flops_per_second"));
  for (const char* host_only : {"permuteformer", "permuteformer_causal", "exact_reference"})
    CHECK(count.count(host_only) == 0);
  // causal 10x (inconclusive: no L = 65536 here), bidirectional 2x, bfloat16 inputs against float32 (measured),
  // bidirectional bfloat16 2x its bfloat16 products, causal bfloat16 against float32 products (measured), memory
  REQUIRE(doc["checks"].size() == 6);
  CHECK(doc["checks"][0]["status"] == "inconclusive");
  CHECK(doc["checks"][2]["status"] == "measured");
  CHECK(doc["checks"][4]["status"] == "measured");
  fs::remove_all(dir);
}

TEST_CASE("speed --chunk: the chunk given is the chunk timed and recorded", "[speed][cli]") {
  const auto dir = scratch_dir("speed-chunk");
  const auto doc = run_cli_json("speed --quiet --min-L 64 --max-L 64 --shapes small --thread-counts 1 --d 8 --m 16 "
                                "--trials 2 --mc-trials 0 --no-memory --chunk 16",
                                dir, "r.json");
  CHECK(doc["params"]["chunk"] == 16);
  fs::remove_all(dir);
}

TEST_CASE("speed rejects bad input with exit status 2 and no result file", "[speed][cli]") {
  const auto dir = scratch_dir("speed-bad");
  for (const char* args : {"--max-L 1000", "--min-L 3", "--shapes huge", "--thread-counts 0", "--m 0",
                           "--memory-cap-gb -1", "--chunk 0", "--time-cap -2", "--mc-trials 1",
                           "--mc-trials -5",
                           // values that once meant "the run's default" are refused when typed
                           "--mc-trials -1", "--max-L 0", "--max-L -4", "--time-cap 0"}) {
    const auto run = run_cli(std::string("speed --quiet --out r.json ") + args, dir);
    INFO(args << ": " << run.err);
    CHECK(run.status == 2);
    CHECK(run.err.find("--") != std::string::npos);
    CHECK(!fs::exists(dir / "r.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("keep_freed_memory: a freed large block comes back without new page faults", "[perf]") {
  // 20 rounds of allocating, touching and freeing 8 MiB, counting the process's minor page faults. With glibc's
  // fixed 128 KiB mmap threshold (its default before it adapts) every round is a fresh mapping: at least one fault
  // per round (one per page, or per huge page). Kept: only the first round faults. (ASan's allocator ignores mallopt.)
  FAVORLAB_SKIP_UNDER_ASAN();
  const auto faults_of_rounds = [] {
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    for (int round = 0; round < 20; ++round) {
      std::vector<char> block(8 << 20, char(1));
      REQUIRE(block[std::size_t(round) * 4096] == 1);
    }
    getrusage(RUSAGE_SELF, &after);
    return after.ru_minflt - before.ru_minflt;
  };
  REQUIRE(mallopt(M_MMAP_THRESHOLD, 128 * 1024) == 1);  // the power case: memory handed back after every round
  const long fresh = faults_of_rounds();
  REQUIRE(keep_freed_memory());
  faults_of_rounds();  // the first round after the switch may still fault
  const long kept = faults_of_rounds();
  INFO("faults: " << fresh << " handed back, " << kept << " kept");
  // Expected: fresh ≈ 20 × 2048 (20 × 4 with huge pages), kept 0. The factor 10 leaves room for faults from anything
  // else the process does meanwhile; a kept setting that failed would give kept ≈ fresh.
  CHECK(fresh >= 20);
  CHECK(kept * 10 < fresh);
}
