#include "perf/speed_rows.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "attention/product_precision.hpp"
#include "perf/crossover.hpp"
#include "perf/favor_products.hpp"
#include "stats/loglog_slope.hpp"

namespace favorlab {

namespace {

// "_tf32" or "_bfloat16" where the method's name ends so (speed_methods.cpp: in_format_on_cuda), else "".
std::string product_format_suffix(const std::string& method) {
  for (ProductPrecision p : {ProductPrecision::tf32, ProductPrecision::bfloat16}) {
    const std::string suffix = "_" + std::string(product_precision_name(p));
    if (method.size() > suffix.size() && method.compare(method.size() - suffix.size(), suffix.size(), suffix) == 0)
      return suffix;
  }
  return "";
}

// The time row of one point; by_method holds the other methods at the same (shape, threads).
Json time_row(const SpeedShape& shape, int threads, const std::string& method, int l, const SpeedPoint& p,
              const SpeedMethodPoints& by_method, const SpeedRowSettings& s) {
  const SpeedPoint* exact = find_speed_point(by_method, "exact", l);
  const SpeedPoint* identity = find_speed_point(by_method, "identity", l);
  // A method with its products in a tensor-core format (…_tf32, …_bfloat16) is held to the bare products in that
  // format.
  const std::string format = product_format_suffix(method);
  const SpeedPoint* gemm = find_speed_point(by_method, "gemm" + format, l);
  const double in_b = speed_input_bytes(shape.heads, l, s.d, speed_method_named(method).half);
  const double out_b = speed_output_bytes(shape.heads, l, s.d);
  Json row{{"kind", "time"},
           {"method", method},
           {"shape", shape.name},
           {"L", l},
           {"heads", shape.heads},
           {"d", s.d},
           {"m", s.m},
           {"threads", threads},
           {"seconds_median", p.seconds_median},
           {"seconds_min", p.seconds_min},
           {"cpu_seconds_median", number_or_null(p.cpu_seconds_median)},
           {"cpu_ratio_to_exact", number_or_null(exact ? p.cpu_seconds_median / exact->cpu_seconds_median : NAN)},
           {"cpu_ratio_to_gemm", number_or_null(gemm ? p.cpu_seconds_median / gemm->cpu_seconds_median : NAN)},
           {"ratio_to_exact", number_or_null(exact ? p.seconds_median / exact->seconds_median : NAN)},
           {"ratio_to_identity", number_or_null(identity ? p.seconds_median / identity->seconds_median : NAN)},
           {"ratio_to_gemm", number_or_null(gemm ? p.seconds_median / gemm->seconds_median : NAN)},
           {"peak_bytes", p.peak_bytes >= 0 ? Json(p.peak_bytes) : Json(nullptr)},
           {"peak_threads", 1},
           {"peak_kind", s.gpu ? "device" : "resident_set"},
           {"peak_exact", p.peak_exact},
           {"input_bytes", in_b},
           {"output_bytes", out_b},
           {"memory_ratio",
            number_or_null(p.peak_bytes >= 0 ? (in_b + double(p.peak_bytes)) / (in_b + out_b) : NAN)},
           {"load_average", p.load}};
  const std::string base = method.substr(0, method.size() - format.size());
  if (base == "favor_bidirectional" || base == "favor_causal" || base == "gemm") {
    const double flops = speed_gemm_flops(shape.heads, l, s.d, s.m);
    row["gemm_flops_per_second"] = flops / p.seconds_median;
    if (s.peak) row["fraction_of_fma_peak"] = fraction_of_fma_peak(flops, p.seconds_median, threads, *s.peak);
  }
  return row;
}

// The device's paths of one computation, any of which may be missing from a run (cuDNN absent, a method dropped).
const std::vector<std::string> kExactBidirectional{"exact", "exact_bfloat16"};
const std::vector<std::string> kExactCausal{"exact_causal", "exact_causal_bfloat16"};
const std::vector<std::string> kFavorBidirectional{"favor_bidirectional", "favor_bidirectional_tf32",
                                                   "favor_bidirectional_bfloat16"};
const std::vector<std::string> kFavorCausal{"favor_causal", "favor_causal_tf32", "favor_causal_bfloat16"};

// The least median time at each L over the methods of `names` that the run measured, and which those were.
struct FastestCurve {
  std::map<int, double> seconds;
  std::vector<std::string> methods;
};

FastestCurve fastest_curve(const SpeedMethodPoints& by_method, const std::vector<std::string>& names) {
  FastestCurve out;
  for (const std::string& name : names) {
    const auto found = by_method.find(name);
    if (found == by_method.end()) continue;
    out.methods.push_back(name);
    for (const auto& [l, seconds] : median_seconds(found->second)) {
      const auto [at, fresh] = out.seconds.emplace(l, seconds);
      if (!fresh) at->second = std::min(at->second, seconds);
    }
  }
  return out;
}

}  // namespace

double speed_gemm_flops(int heads, int l, int d, int m) { return heads * favor_bare_product_flops(l, l, d, m, d); }

void add_speed_rows(Json& rows, const SpeedSweep& sweep, const std::vector<SpeedShape>& shapes,
                    const SpeedRowSettings& s) {
  for (const SpeedShape& shape : shapes) {
    const auto found = sweep.dropped.find(shape.name);
    for (const auto& [threads, by_method] : sweep.points.at(shape.name)) {
      for (const auto& [method, by_l] : by_method) {
        std::vector<double> fit_l, fit_t;
        for (const auto& [l, p] : by_l) {
          rows.push_back(time_row(shape, threads, method, l, p, by_method, s));
          if (l >= s.fit_from) fit_l.push_back(l), fit_t.push_back(p.seconds_median);
        }
        Json fit{{"kind", "fit"}, {"method", method}, {"shape", shape.name}, {"heads", shape.heads},
                 {"threads", threads}, {"slope", number_or_null(loglog_slope(fit_l, fit_t))},
                 {"fit_points", fit_l.size()}, {"fit_from_L", s.fit_from}};
        const bool dropped = found != sweep.dropped.end() && found->second.count(method);
        fit["dropped"] = dropped ? Json(found->second.at(method)) : Json(nullptr);
        rows.push_back(fit);
      }
      if (!s.gpu) {
        const bool both = by_method.count("exact") && by_method.count("favor_bidirectional");
        const double crossover = both ? crossover_length(median_seconds(by_method.at("exact")),
                                                         median_seconds(by_method.at("favor_bidirectional")))
                                      : NAN;
        rows.push_back(Json{{"kind", "crossover"}, {"shape", shape.name}, {"heads", shape.heads},
                            {"threads", threads}, {"crossover_L", number_or_null(crossover)}});
        continue;
      }
      // On the device, against favorlab's fastest exact path (the tiled float32 kernel or cuDNN's in bfloat16) with
      // FAVOR at its fastest format, in both modes.
      for (const bool causal : {false, true}) {
        const FastestCurve exact = fastest_curve(by_method, causal ? kExactCausal : kExactBidirectional);
        const FastestCurve favor = fastest_curve(by_method, causal ? kFavorCausal : kFavorBidirectional);
        const double crossover =
            exact.seconds.empty() || favor.seconds.empty() ? NAN : crossover_length(exact.seconds, favor.seconds);
        rows.push_back(Json{{"kind", "crossover"}, {"shape", shape.name}, {"heads", shape.heads},
                            {"threads", threads}, {"mode", causal ? "causal" : "bidirectional"},
                            {"crossover_L", number_or_null(crossover)}, {"exact_methods", exact.methods},
                            {"favor_methods", favor.methods}});
      }
    }
  }
}

}  // namespace favorlab
