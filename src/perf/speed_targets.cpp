#include "perf/speed_targets.hpp"

#include <tuple>

#include "io/format_number.hpp"
#include "perf/ratio_checks.hpp"
#include "perf/speed_rows.hpp"

namespace favorlab {

namespace {

const std::vector<std::string> kRegular{"regular"};

// A timing target: measured, never judged.
Check timing(const std::string& claim, const std::string& where, const Ratios& r, double limit, bool at_least,
             const std::string& note) {
  return ratio_check(claim, where, r, limit, at_least, true, note);
}

}  // namespace

std::vector<Check> cpu_speed_checks(const SpeedPoints& points, const std::vector<std::string>& shapes) {
  const std::string info = "a timing (wall clock on a possibly shared machine), measured, never judged; ";
  auto ratios = [&](const std::string& num, const std::string& den, int min_l) {
    return speed_ratios(points, shapes, num, den, min_l);
  };
  std::vector<Check> c;
  c.push_back(timing("Target: FAVOR bidirectional forward <= 1.2x its four bare products",
                     "time(favor_bidirectional)/time(gemm), every shape, L and thread count",
                     ratios("favor_bidirectional", "gemm", 0), 1.2, false, info));
  c.push_back(timing("Target: causal FAVOR <= 1.3x bidirectional at L >= 4096",
                     "time(favor_causal)/time(favor_bidirectional), every shape and thread count, L >= 4096",
                     ratios("favor_causal", "favor_bidirectional", 4096), 1.3, false, info));
  for (const std::string method : {"favor_bidirectional", "favor_causal", "exact"})
    c.push_back(timing("Target: 2 threads >= 1.8x faster than 1 thread at L >= 4096, 8 heads (" + method + ")",
                       "time(1 thread)/time(2 threads) of " + method + ", regular shape, L >= 4096",
                       speed_ratios(points, kRegular, method, method, 4096, 1, 2), 1.8, true, info));
  c.push_back(timing("Target: PermuteFormer <= 1.1x FAVOR (bidirectional)",
                     "time(permuteformer)/time(favor_bidirectional), every shape, L and thread count",
                     ratios("permuteformer", "favor_bidirectional", 0), 1.1, false, info));
  c.push_back(timing("Target: PermuteFormer <= 1.1x FAVOR (causal)",
                     "time(permuteformer_causal)/time(favor_causal), every shape, L and thread count",
                     ratios("permuteformer_causal", "favor_causal", 0), 1.1, false, info));
  c.push_back(timing("Measured: the tiled exact kernel's speed-up over the naive reference kernel",
                     "time(exact_reference)/time(exact), every shape, L and thread count (the target 1 only marks "
                     "where the online-softmax tiles stop losing)",
                     ratios("exact_reference", "exact", 0), 1.0, true, info));
  for (const std::string family : {"oprf", "sderf"})
    c.push_back(timing("Target: " + family + " features cost <= 1.1x positive features at L >= 1024",
                       "time(favor_" + family + ")/time(favor_bidirectional), every shape and thread count, L >= 1024",
                       ratios("favor_" + family, "favor_bidirectional", 1024), 1.1, false, info));
  c.push_back(timing("Target: exact slower than FAVOR from L = 1024 on (regular shape)",
                     "time(exact)/time(favor_bidirectional), regular shape, L >= 1024, every thread count",
                     speed_ratios(points, kRegular, "exact", "favor_bidirectional", 1024), 1.0, true, info));
  c.push_back(timing("Target: bidirectional FAVOR at L = 4096 faster than exact",
                     "time(exact)/time(favor_bidirectional) at L = 4096, every shape and thread count",
                     ratios_at_length(ratios("exact", "favor_bidirectional", 4096), 4096), 1.0, true, info));
  return c;
}

std::vector<Check> cuda_speed_checks(const SpeedPoints& points, const std::vector<std::string>& shapes, int d, int m) {
  const std::string info = "a timing (device time from CUDA events), measured, never judged; ";
  const std::string shape_note =
      d == 64 && m == 256 ? "" : "this run has d=" + std::to_string(d) + ", m=" + std::to_string(m) + "; ";
  std::vector<Check> c;
  c.push_back(ratio_check(
      "Target: causal FAVOR >= 10x faster than the tiled exact baseline at L = 65536 (d = 64, m = 256, 8 heads)",
      "time(exact_causal)/time(favor_causal), regular shape (8 heads), L = 65536",
      ratios_at_length(speed_ratios(points, kRegular, "exact_causal", "favor_causal", 65536), 65536), 10.0, true, true,
      info + shape_note,
      "L = 65536 not measured for both methods (--max-L below 65536, the regular shape not run, or exact_causal "
      "dropped by --time-cap; see the fit rows)"));
  c.push_back(timing("Target: bidirectional FAVOR within 2x of its cuBLAS GEMMs alone",
                     "time(favor_bidirectional)/time(gemm), every shape and L",
                     speed_ratios(points, shapes, "favor_bidirectional", "gemm", 0), 2.0, false, info + shape_note));
  c.push_back(timing("Measured: causal FAVOR with its inputs held as bfloat16 against float32 inputs",
                     "time(favor_causal_bfloat16_inputs)/time(favor_causal), every shape and L",
                     speed_ratios(points, shapes, "favor_causal_bfloat16_inputs", "favor_causal", 0), 1.0, false,
                     info + "no target (the 1 compared with is float32's own time); the arithmetic is float32 "
                            "either way; "));
  // The tensor cores: FAVOR at half its bfloat16 products' rate or better, and what bfloat16 products buy.
  c.push_back(timing("Target: bidirectional FAVOR with bfloat16 products within 2x of its bfloat16 products alone",
                     "time(favor_bidirectional_bfloat16)/time(gemm_bfloat16), every shape and L",
                     speed_ratios(points, shapes, "favor_bidirectional_bfloat16", "gemm_bfloat16", 0), 2.0, false,
                     info + shape_note));
  c.push_back(timing("Measured: causal FAVOR with bfloat16 products against float32 products",
                     "time(favor_causal_bfloat16)/time(favor_causal), every shape and L",
                     speed_ratios(points, shapes, "favor_causal_bfloat16", "favor_causal", 0), 1.0, false,
                     info + "no target (the 1 compared with is float32's own time); "));
  return c;
}

std::vector<Check> fma_fraction_checks(const SpeedPoints& points, const std::vector<SpeedShape>& shapes, int d, int m,
                                       const FmaPeak& peak) {
  const std::string note = "a timing (wall clock on a possibly shared machine), measured, never judged; the peak is " +
                           std::to_string(peak.chains) + " independent " +
                           (peak.fused ? "fused multiply-add" : "multiply and add") + " chains on " +
                           std::to_string(peak.lanes) + " floats, " +
                           format_number(peak.flops_per_second / 1e9, 4) + " GFLOP/s on one core; ";
  std::vector<Check> c;
  for (const auto& [method, what, target] : {std::tuple{"gemm", "the bare GEMMs", 0.8},
                                             {"favor_bidirectional", "bidirectional FAVOR", 0.7},
                                             {"favor_causal", "causal FAVOR", 0.6}}) {
    Ratios r;
    for (const SpeedShape& shape : shapes)
      for (const auto& [threads, by_method] : points.at(shape.name)) {
        const auto found = by_method.find(method);
        if (found == by_method.end()) continue;
        for (const auto& [l, p] : found->second)
          r.add(shape.name + "/L=" + std::to_string(l) + "/threads=" + std::to_string(threads),
                fraction_of_fma_peak(speed_gemm_flops(shape.heads, l, d, m), p.seconds_median, threads, peak),
                p.load);
      }
    const std::string pct = format_number(target, 2);
    c.push_back(timing("Target: " + std::string(what) + " at >= " + pct + " of the FMA peak (one core per thread)",
                       "FLOPs of FAVOR's four products / time(" + std::string(method) +
                           ") / (threads x the fma_peak row), every shape, L and thread count",
                       r, target, true, note));
  }
  return c;
}

Check causal_memory_check(const SpeedPoints& points, const std::vector<SpeedShape>& shapes, int d, int m, int max_l,
                          bool gpu) {
  // At smaller L the fixed buffers (the 512-row window's features and chunk states) outweigh inputs + outputs for
  // one head, so a ratio there is not the claim: the check is then inconclusive and lists what it measured.
  constexpr int kTargetL = 65536;
  Ratios judged, smaller;
  for (const SpeedShape& shape : shapes) {
    const auto& sp = points.at(shape.name);
    if (sp.empty() || !sp.begin()->second.count("favor_causal")) continue;
    const auto& by_l = sp.begin()->second.at("favor_causal");
    if (by_l.empty()) continue;
    const auto& [l, p] = *by_l.rbegin();
    if (p.peak_bytes < 0) continue;
    const double in_b = speed_input_bytes(shape.heads, l, d), out_b = speed_output_bytes(shape.heads, l, d);
    (l >= kTargetL ? judged : smaller)
        .add(shape.name + "/L=" + std::to_string(l), (in_b + double(p.peak_bytes)) / (in_b + out_b), p.load);
  }
  const std::string peak = gpu ? "device bytes allocated by one forward" : "peak rise of the resident set";
  return memory_target_check(
      "Target: causal FAVOR peak memory < 3x (inputs + outputs) at L = 65536",
      "(inputs + " + peak + ") / (inputs + outputs), causal FAVOR, d=" + std::to_string(d) + ", m=" +
          std::to_string(m) + ", float32, L=" + std::to_string(kTargetL) + (gpu ? ", on the device" : ", one thread"),
      judged, smaller, kTargetL, max_l, 3.0);
}

}  // namespace favorlab
