// The library behind `favorlab speed`, on synthetic numbers where every answer is known: the log-log slope of exact
// power laws, the crossover of timing curves, the interleaved order and the CPU clock, the method table, the drop
// rule, the ratios the targets read, the rows (fits, crossover, ratios, fraction of the FMA peak) and the memory
// target. No timing is judged: every timing here is made up, except the CPU time of a sleep and of a spin.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "perf/cpu_time.hpp"
#include "perf/crossover.hpp"
#include "perf/favor_products.hpp"
#include "perf/fma_peak.hpp"
#include "perf/interleaved_timing.hpp"
#include "perf/speed_methods.hpp"
#include "perf/speed_points.hpp"
#include "perf/speed_rows.hpp"
#include "perf/speed_sweep.hpp"
#include "perf/speed_targets.hpp"
#include "stats/loglog_slope.hpp"

using namespace favorlab;

namespace {

// Rounding bound for a slope or a crossover computed through log and exp of values below 2^20: each logarithm is
// within an ulp or two of ln x ≤ 14, a few dozen such terms are summed, so the error is of order 1e-14 relative; 1e-12
// leaves a margin of 100 while any real mistake (a wrong centring, a swapped axis) is off by far more.
constexpr double kRounding = 1e-12;

SpeedPoint point(double seconds, double load = 0.5) {
  SpeedPoint p;
  p.seconds_median = p.seconds_min = seconds;
  p.cap_seconds = seconds;
  p.load = load;
  return p;
}

}  // namespace

TEST_CASE("log-log slope of exact power laws is their exponent", "[speed][stats]") {
  const std::vector<double> x{512, 1024, 2048, 4096, 8192};
  for (double b : {1.0, 2.0, 1.5, -0.5}) {
    std::vector<double> y;
    for (double l : x) y.push_back(3e-7 * std::pow(l, b));
    INFO("exponent " << b);
    CHECK(loglog_slope(x, y) == Approx(b).epsilon(kRounding).margin(kRounding));
  }
  // Non-uniform lengths and a constant: slope 0.
  CHECK(loglog_slope({3, 17, 1000}, {2.5, 2.5, 2.5}) == Approx(0).margin(kRounding));
  // Power: a curve that is not a power law fits neither exponent. y = x + x²: between 1 and 2 on these lengths.
  const double mixed = loglog_slope({1, 2, 4, 8}, {2, 6, 20, 72});
  CHECK(mixed > 1.2);
  CHECK(mixed < 1.9);
  // Undefined: fewer than two points, every x the same, a value without a logarithm.
  CHECK(std::isnan(loglog_slope({}, {})));
  CHECK(std::isnan(loglog_slope({4}, {16})));
  CHECK(std::isnan(loglog_slope({4, 4}, {16, 17})));
  CHECK(std::isnan(loglog_slope({1, 2}, {0, 4})));
  CHECK(std::isnan(loglog_slope({-1, 2}, {1, 4})));
  CHECK_THROWS_WITH(loglog_slope({1, 2}, {1}), Catch::Contains("x has 2 values, y 1"));
}

TEST_CASE("crossover: where one timing curve overtakes another", "[speed]") {
  const std::map<int, double> flat{{512, 1.0}, {1024, 1.0}, {2048, 1.0}, {4096, 1.0}};
  // a/b = L/1500, a power law: the interpolation in log-log is exact, the crossover 1500 (between 1024 and 2048).
  std::map<int, double> rising;
  for (const auto& [l, s] : flat) rising[l] = s * l / 1500.0;
  CHECK(crossover_length(rising, flat) == Approx(1500).epsilon(kRounding));
  // Quadratic against linear: a = 1e-9 L², b = 1e-6 L cross at L = 1000.
  std::map<int, double> quadratic, linear;
  for (int l : {256, 512, 1024, 2048}) quadratic[l] = 1e-9 * l * l, linear[l] = 1e-6 * l;
  CHECK(crossover_length(quadratic, linear) == Approx(1000).epsilon(kRounding));
  // Not a power law between the lengths: a/b = 1/2 at 1024 and 2 at 2048 give the geometric middle, 1024·√2.
  CHECK(crossover_length({{1024, 0.5}, {2048, 2.0}}, {{1024, 1.0}, {2048, 1.0}}) ==
        Approx(1024 * std::sqrt(2.0)).epsilon(kRounding));
  // Crossing at a measured length: equal there, slower after: the tied length.
  CHECK(crossover_length({{512, 0.5}, {1024, 1.0}, {2048, 2.0}}, {{512, 1.0}, {1024, 1.0}, {2048, 1.0}}) ==
        Approx(1024).epsilon(kRounding));
  // Already slower at the smallest length: that length, exactly.
  CHECK(crossover_length({{512, 3.0}, {1024, 4.0}}, {{512, 1.0}, {1024, 1.0}}) == 512);
  // Never slower, and ties throughout (a tie is not slower): NaN.
  std::map<int, double> half;
  for (const auto& [l, s] : flat) half[l] = 0.5 * s;
  CHECK(std::isnan(crossover_length(half, flat)));
  CHECK(std::isnan(crossover_length(flat, flat)));
  // The walk stops at the first length b lacks: a slower only beyond the gap is not seen.
  CHECK(std::isnan(crossover_length({{512, 0.5}, {1024, 0.5}, {2048, 4.0}}, {{512, 1.0}, {2048, 1.0}})));
  CHECK(std::isnan(crossover_length({}, flat)));
}

TEST_CASE("interleaved timing with CPU time: rotated order, a hook per repeat, the CPU clock of each work",
          "[speed]") {
  std::string order;
  const InterleavedTimes t = time_interleaved_with_cpu(
      4, {[&] { order += 'a'; }, [&] { order += 'b'; }, [&] { order += 'c'; }},
      [&](int r) { order += std::to_string(r); });
  CHECK(order == "0abc1bca2cab3abc");
  REQUIRE(t.wall.size() == 3);
  REQUIRE(t.cpu.size() == 3);
  for (std::size_t w = 0; w < 3; ++w) {
    CHECK(t.wall[w].size() == 4);
    CHECK(t.cpu[w].size() == 4);
  }
  // A sleep takes wall time and (next to) no CPU time; a spin takes CPU time: each figure lands on its own work.
  // The sleep's bound leaves room for the process's other threads (an idle OpenMP pool spins well under 1 ms).
  const auto sleep = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  const auto spin = [] {
    const double start = process_cpu_seconds();
    while (process_cpu_seconds() - start < 0.03) {
    }
  };
  const InterleavedTimes s = time_interleaved_with_cpu(2, {sleep, spin});
  for (int r = 0; r < 2; ++r) {
    CHECK(s.wall[0][r] >= 0.03);
    CHECK(s.cpu[0][r] < 0.01);
    CHECK(s.cpu[1][r] >= 0.03);
  }
  CHECK_THROWS_WITH(time_interleaved_with_cpu(0, {[] {}}), Catch::Contains("repeats must be at least 1, got 0"));
}

TEST_CASE("the speed method table: lookup by name, backends, and forwards with known first entries", "[speed]") {
  CHECK_THROWS_WITH(speed_method_named("favor_sideways"), Catch::Contains("favor_sideways"));
  std::map<std::string, int> seen;
  for (const SpeedMethod& m : speed_methods()) {
    ++seen[m.name];
    CHECK(&speed_method_named(m.name) == &m);
  }
  for (const auto& [name, count] : seen) CHECK(count == 1);
  CHECK(speed_method_named("exact").quadratic);
  CHECK(speed_method_named("exact_reference").quadratic);
  CHECK(!speed_method_named("favor_causal").quadratic);
  CHECK(!speed_method_named("permuteformer").runs_on(Backend::cuda));
  CHECK(!speed_method_named("exact_reference").runs_on(Backend::cuda));
  CHECK(!speed_method_named("favor_causal_bfloat16_inputs").runs_on(Backend::cpu));
  CHECK(speed_method_named("favor_causal_bfloat16_inputs").half == HalfInputs::bfloat16);
  CHECK(speed_method_named("gemm").runs_on(Backend::cpu));

  const SpeedInputs in = make_speed_inputs(2, 64, 8, 16, 7);
  REQUIRE(in.q.size() == 2);
  CHECK(in.q[1].rows() == 64);
  CHECK(in.w.rows() == 16);
  CHECK(in.w.cols() == 8);
  AttentionConfig favor;
  favor.m = 16;
  const double v00 = in.v[0](0, 0);
  const auto run = [&](const char* name) { return speed_method_named(name).run(in, favor, 1); };
  CHECK(run("identity") == v00);
  // Row 0 of a causal forward attends to key 0 alone: its output is V's row 0, to float rounding (a few ε_f).
  CHECK(run("exact_causal") == Approx(v00).epsilon(1e-5));
  CHECK(run("favor_causal") == Approx(v00).epsilon(1e-5));
  // The tiled and the naive exact kernels compute the same softmax rows in float: within L·ε_f·max|v| ≈ 64 · 6e-8 ·
  // 4 ≈ 2e-5 of each other; 1e-4 leaves a margin of 5.
  CHECK(std::abs(run("exact") - run("exact_reference")) < 1e-4);
  // Power: the bidirectional output is an average over every key, not V's row 0.
  CHECK(std::abs(run("exact") - v00) > 1e-3);
}

TEST_CASE("fraction of the FMA peak on known inputs", "[speed]") {
  FmaPeak peak;
  peak.flops_per_second = 1e9;
  CHECK(fraction_of_fma_peak(4e9, 2.0, 2, peak) == 1.0);
  CHECK(fraction_of_fma_peak(1e9, 4.0, 1, peak) == 0.25);
  CHECK(fraction_of_fma_peak(3e9, 1.0, 4, peak) == 0.75);
  CHECK(speed_gemm_flops(8, 1024, 64, 256) == 8 * favor_bare_product_flops(1024, 1024, 64, 256, 64));
}

TEST_CASE("the drop rule predicts time and memory from the point at L/2", "[speed]") {
  SpeedThreadPoints sp;
  sp[1]["exact"][1024] = point(0.3);
  sp[1]["favor_bidirectional"][1024] = point(0.3);
  const std::string exact_name = "exact", favor_name = "favor_bidirectional";  // named: no temporary outlives a call
  const SpeedMethod& exact = speed_method_named(exact_name);
  const SpeedMethod& favor = speed_method_named(favor_name);
  // Quadratic: 0.3 × 4 = 1.2 s passes a 1 s cap; linear: 0.6 s does not.
  const std::string why = speed_drop_reason(sp, exact, 2048, 1.0, 16, false);
  CHECK(why.find("predicted forward time 1.2 s (CPU time per thread) at L=2048 (1 thread(s)) passes --time-cap 1") !=
        std::string::npos);
  CHECK(speed_drop_reason(sp, favor, 2048, 1.0, 16, false).empty());
  CHECK(speed_drop_reason(sp, exact, 2048, 1.3, 16, false).empty());
  // No point at L/2: nothing to predict from.
  CHECK(speed_drop_reason(sp, exact, 4096, 1.0, 16, false).empty());
  // Memory: 3 GiB at L/2, doubling, passes a 4 GiB cap (and not an 8 GiB one).
  sp[1]["favor_bidirectional"][1024].peak_bytes = std::int64_t(3) << 30;
  CHECK(speed_drop_reason(sp, favor, 2048, 1.0, 4, true).find("predicted peak memory 6 GiB at L=2048 passes "
                                                              "--memory-cap-gb 4") != std::string::npos);
  CHECK(speed_drop_reason(sp, favor, 2048, 1.0, 8, true).empty());
  // Any thread count may drop it: a slow point at 2 threads.
  sp[2]["favor_bidirectional"][1024] = point(0.7);
  CHECK(speed_drop_reason(sp, favor, 2048, 1.0, 8, true).find("(2 thread(s))") != std::string::npos);
}

TEST_CASE("speed ratios: values, labels, loads, lengths and thread pairs", "[speed]") {
  SpeedPoints points;
  for (int threads : {1, 2})
    for (int l : {1024, 4096, 10240}) {
      points["regular"][threads]["a"][l] = point(3.0 * l / threads, 0.25 * threads);
      points["regular"][threads]["b"][l] = point(1.0 * l, 1.0);
    }
  points["small"][1]["a"][1024] = point(2.0, 2.0);
  points["small"][1]["b"][1024] = point(4.0, 0.1);
  Ratios r = speed_ratios(points, {"regular", "small", "absent"}, "a", "b", 0);
  REQUIRE(r.values.size() == 7);
  CHECK(r.labels.front() == "regular/L=1024/threads=1");
  CHECK(r.values.front() == 3.0);
  CHECK(r.loads.front() == 1.0);  // the higher of the two points' loads
  CHECK(r.labels[3] == "regular/L=1024/threads=2");
  CHECK(r.values[3] == 1.5);
  CHECK(r.labels.back() == "small/L=1024/threads=1");
  CHECK(r.values.back() == 0.5);
  CHECK(r.loads.back() == 2.0);
  // min_l drops the shorter lengths; a numerator at one thread count against a denominator at another.
  CHECK(speed_ratios(points, {"regular"}, "a", "b", 4096).values.size() == 4);
  r = speed_ratios(points, {"regular"}, "a", "a", 4096, 1, 2);
  REQUIRE(r.values.size() == 2);
  CHECK(r.values == std::vector<double>{2.0, 2.0});
  CHECK(r.labels == std::vector<std::string>{"regular/L=4096", "regular/L=10240"});
  CHECK(speed_ratios(points, {"regular"}, "a", "missing", 0).values.empty());
  // At one length: L=1024 is not L=10240.
  const Ratios at = ratios_at_length(speed_ratios(points, {"regular", "small"}, "a", "b", 0), 1024);
  CHECK(at.labels == std::vector<std::string>{"regular/L=1024/threads=1", "regular/L=1024/threads=2",
                                              "small/L=1024/threads=1"});
  CHECK(ratios_at_length(r, 10240).values.size() == 1);
}

TEST_CASE("speed rows from synthetic power-law timings: slopes, crossover, ratios, memory, FMA fraction", "[speed]") {
  SpeedSweep sweep;
  const std::vector<int> lengths{512, 1024, 2048, 4096};
  for (int l : lengths) {
    auto& by_method = sweep.points["regular"][1];
    by_method["exact"][l] = point(1e-9 * l * l);
    by_method["favor_bidirectional"][l] = point(1e-6 * l);
    by_method["identity"][l] = point(1e-8 * l);
    by_method["gemm"][l] = point(5e-7 * l);
  }
  sweep.points["regular"][1]["favor_bidirectional"][2048].peak_bytes = 1 << 20;
  sweep.dropped["regular"]["exact"] = "too slow";
  SpeedRowSettings settings;
  settings.fit_from = 1024;
  settings.peak = FmaPeak{};
  settings.peak->flops_per_second = 2e10;
  Json rows = Json::array();
  add_speed_rows(rows, sweep, {{"regular", 8}}, settings);
  REQUIRE(rows.size() == 4 * (lengths.size() + 1) + 1);
  std::map<std::string, Json> fits;
  Json crossover;
  for (const Json& row : rows) {
    if (row["kind"] == "fit") fits[row["method"].get<std::string>()] = row;
    if (row["kind"] == "crossover") crossover = row;
  }
  // Fits on L ≥ 1024: exactly the exponents 2 and 1, three points each; the dropped method says why.
  CHECK(fits.at("exact")["slope"].get<double>() == Approx(2).epsilon(kRounding));
  CHECK(fits.at("favor_bidirectional")["slope"].get<double>() == Approx(1).epsilon(kRounding));
  CHECK(fits.at("exact")["fit_points"] == 3);
  CHECK(fits.at("exact")["dropped"] == "too slow");
  CHECK(fits.at("gemm")["dropped"].is_null());
  // 1e-9 L² = 1e-6 L at L = 1000.
  CHECK(crossover["crossover_L"].get<double>() == Approx(1000).epsilon(kRounding));
  for (const Json& row : rows) {
    if (row["kind"] != "time") continue;
    const int l = row["L"];
    CHECK(row["ratio_to_exact"].get<double>() == row["seconds_median"].get<double>() / (1e-9 * l * l));
    CHECK(row["cpu_seconds_median"].is_null());  // no CPU time in these points
    if (row["method"] == "favor_bidirectional") {
      CHECK(row["ratio_to_identity"].get<double>() == Approx(100).epsilon(kRounding));
      CHECK(row["ratio_to_gemm"].get<double>() == Approx(2).epsilon(kRounding));
      const double flops = speed_gemm_flops(8, l, settings.d, settings.m);
      CHECK(row["gemm_flops_per_second"].get<double>() == flops / (1e-6 * l));
      CHECK(row["fraction_of_fma_peak"].get<double>() == flops / (1e-6 * l) / 2e10);
      if (l == 2048) {
        const double in = 3.0 * 8 * 2048 * 64 * 4, out = 8.0 * 2048 * 64 * 4;
        CHECK(row["input_bytes"].get<double>() == in);
        CHECK(row["output_bytes"].get<double>() == out);
        CHECK(row["memory_ratio"].get<double>() == (in + (1 << 20)) / (in + out));
      } else {
        CHECK(row["memory_ratio"].is_null());
      }
    } else if (row["method"] == "gemm") {
      CHECK(row["fraction_of_fma_peak"].get<double>() ==
            speed_gemm_flops(8, l, settings.d, settings.m) / (5e-7 * l) / 2e10);
    } else {
      CHECK(!row.contains("fraction_of_fma_peak"));
    }
  }
  // Without favor_bidirectional there is no crossover.
  sweep.points["regular"][1].erase("favor_bidirectional");
  rows = Json::array();
  add_speed_rows(rows, sweep, {{"regular", 8}}, settings);
  CHECK(rows.back()["kind"] == "crossover");
  CHECK(rows.back()["crossover_L"].is_null());
}

TEST_CASE("speed rows on the device: the crossover against favorlab's fastest exact path and fastest FAVOR",
          "[speed]") {
  SpeedSweep sweep;
  for (int l : {512, 1024, 2048, 4096}) {
    auto& by_method = sweep.points["regular"][1];
    by_method["exact"][l] = point(1e-9 * l * l);
    by_method["exact_bfloat16"][l] = point(0.25e-9 * l * l);  // 4x faster: the crossover moves 4x out
    by_method["favor_bidirectional"][l] = point(2e-6 * l);
    by_method["favor_bidirectional_bfloat16"][l] = point(1e-6 * l);
    by_method["exact_causal"][l] = point(0.5e-9 * l * l);
    by_method["favor_causal"][l] = point(1e-6 * l);
    by_method["gemm"][l] = point(1e-6 * l);
    by_method["gemm_bfloat16"][l] = point(0.25e-6 * l);
  }
  SpeedRowSettings settings;
  settings.gpu = true;
  Json rows = Json::array();
  add_speed_rows(rows, sweep, {{"regular", 8}}, settings);
  std::map<std::string, Json> crossover;
  for (const Json& row : rows)
    if (row["kind"] == "crossover") crossover[row["mode"].get<std::string>()] = row;
  REQUIRE(crossover.size() == 2);
  // Bidirectional: 0.25e-9 L² = 1e-6 L at L = 4000 (against the tiled kernel alone it would be 1000, with float32
  // FAVOR 2000: both wrong theories).
  CHECK(crossover["bidirectional"]["crossover_L"].get<double>() == Approx(4000).epsilon(kRounding));
  CHECK(crossover["bidirectional"]["exact_methods"] == Json({"exact", "exact_bfloat16"}));
  CHECK(crossover["bidirectional"]["favor_methods"] == Json({"favor_bidirectional", "favor_bidirectional_bfloat16"}));
  // Causal, with no cuDNN row: 0.5e-9 L² = 1e-6 L at L = 2000.
  CHECK(crossover["causal"]["crossover_L"].get<double>() == Approx(2000).epsilon(kRounding));
  CHECK(crossover["causal"]["exact_methods"] == Json({"exact_causal"}));
  // A format's FAVOR is held to its own bare products: bfloat16 FAVOR over bfloat16 GEMMs is 4 (over the float32
  // GEMMs, a wrong floor, it would be 1); the float32 row keeps the float32 floor (2).
  for (const Json& row : rows) {
    if (row["kind"] != "time") continue;
    if (row["method"] == "favor_bidirectional_bfloat16") {
      CHECK(row["ratio_to_gemm"].get<double>() == Approx(4).epsilon(kRounding));
      CHECK(row.contains("gemm_flops_per_second"));
    }
    if (row["method"] == "favor_bidirectional")
      CHECK(row["ratio_to_gemm"].get<double>() == Approx(2).epsilon(kRounding));
  }
}

TEST_CASE("the causal memory target from synthetic peaks: judged at L = 65536 only", "[speed][memory]") {
  const int d = 64, l = 65536;
  const double in = 3.0 * l * d * 4, out = 1.0 * l * d * 4;
  SpeedPoints points;
  SpeedPoint p = point(1.0);
  p.peak_bytes = std::int64_t(2 * (in + out) - in);  // (in + peak) / (in + out) = 2
  points["small"][1]["favor_causal"][l] = p;
  Check c = causal_memory_check(points, {{"small", 1}}, d, 256, l, false);
  CHECK(c.status == Verdict::holds);
  CHECK(c.statistic == 2.0);
  p.peak_bytes = std::int64_t(4 * (in + out) - in);  // ratio 4: past the 3× target
  points["small"][1]["favor_causal"][l] = p;
  CHECK(causal_memory_check(points, {{"small", 1}}, d, 256, l, false).status == Verdict::violated);
  // A run that stopped at 4096: listed, not judged.
  points["small"][1]["favor_causal"].clear();
  points["small"][1]["favor_causal"][4096] = p;
  c = causal_memory_check(points, {{"small", 1}}, d, 256, 4096, false);
  CHECK(c.status == Verdict::inconclusive);
  CHECK(c.detail.find("small/L=4096=") != std::string::npos);
}

TEST_CASE("FMA-peak targets on known timings: worst point, points within, FLOPs of FAVOR's four products", "[speed]") {
  // Times built from chosen fractions f: seconds = FLOPs of the four products / (threads · peak · f). Any other FLOP
  // count (another d, m or head count, the products of one side only) or another peak per thread gives other values.
  FmaPeak peak;
  peak.flops_per_second = 1e11;
  peak.lanes = 16;
  peak.fused = true;
  const std::vector<SpeedShape> shapes{{"regular", 8}, {"small", 1}};
  const std::map<std::string, double> fraction{{"gemm", 0.9}, {"favor_bidirectional", 0.65}, {"favor_causal", 0.62}};
  SpeedPoints points;
  for (const SpeedShape& shape : shapes)
    for (int threads : {1, 2})
      for (int l : {1024, 4096})
        for (const auto& [method, f] : fraction)
          points[shape.name][threads][method][l] =
              point(speed_gemm_flops(shape.heads, l, 64, 256) / (threads * peak.flops_per_second * f));
  // One slow point per method, on the 1-head shape at two threads (a thread with no block to run).
  for (const auto& [method, f] : fraction) {
    SpeedPoint& p = points["small"][2][method][1024];
    p = point(p.seconds_median * 2);
  }
  const std::vector<Check> c = fma_fraction_checks(points, shapes, 64, 256, peak);
  REQUIRE(c.size() == 3);
  const std::vector<std::pair<double, const char*>> want{{0.45, "7 of 8 points within the target"},
                                                         {0.325, "0 of 8 points within the target"},
                                                         {0.31, "7 of 8 points within the target"}};
  for (std::size_t i = 0; i < c.size(); ++i) {
    INFO(c[i].claim);
    CHECK(c[i].status == Verdict::measured);
    CHECK(c[i].value == Approx(want[i].first).epsilon(1e-12));
    CHECK(c[i].detail.rfind(want[i].second, 0) == 0);
    CHECK(c[i].detail.find("at small/L=1024/threads=2") != std::string::npos);
  }
  CHECK(c[0].claim.find(">= 0.8") != std::string::npos);
  CHECK(c[1].claim.find(">= 0.7") != std::string::npos);
  CHECK(c[2].claim.find(">= 0.6") != std::string::npos);
  // A wrong theory of the work: the same times judged with m = 128 count half the products' FLOPs.
  const std::vector<Check> half = fma_fraction_checks(points, shapes, 64, 128, peak);
  CHECK(half[0].value < 0.25);
  CHECK(half[0].detail.rfind("0 of 8 points", 0) == 0);
}
