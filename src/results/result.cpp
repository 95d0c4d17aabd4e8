#include "results/result.hpp"

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <ctime>

namespace favorlab {

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json trials_json(std::int64_t trials) { return trials == kOutOfReach ? Json(nullptr) : Json(trials); }

Json check_json(const Check& c) {
  Json j{{"claim", c.claim},
         {"where", c.where},
         {"status", verdict_name(c.status)},
         {"source", c.source.empty() ? Json(nullptr) : Json(c.source)},
         {"kind", c.kind.empty() ? Json(nullptr) : Json(c.kind)},
         {"statistic", number_or_null(c.statistic)},
         {"detail", c.detail}};
  if (c.status == Verdict::measured) {
    j["value"] = number_or_null(c.value);
    j["target"] = number_or_null(c.target);
    return j;
  }
  j["critical"] = number_or_null(c.critical);
  j["points_total"] = c.points_total;
  j["points_held"] = c.points_held;
  j["points_violated"] = c.points_violated;
  j["points_inconclusive"] = c.points_inconclusive;
  j["worst"] = c.worst.label.empty() ? Json(nullptr)
                                     : Json{{"label", c.worst.label}, {"statistic", number_or_null(c.worst.statistic)},
                                            {"margin", number_or_null(c.worst.margin)}};
  j["power"] = number_or_null(c.power);
  j["margin"] = number_or_null(c.margin);
  // Out of reach is written as null with the reason, never as a number of trials.
  const bool out = c.trials_needed == kOutOfReach;
  j["trials_needed"] = out ? Json(nullptr) : Json(c.trials_needed);
  j["out_of_reach"] = out ? Json(c.out_of_reach.empty() ? "no trial count would settle it" : c.out_of_reach) : Json(nullptr);
  return j;
}

namespace {
std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

std::string compiled_instruction_sets() {
  std::string out;
  auto add = [&out](const char* name) { out += (out.empty() ? "" : ", ") + std::string(name); };
#if defined(__x86_64__) || defined(__i386__)
#ifdef __SSE2__
  add("SSE2");
#endif
#ifdef __AVX__
  add("AVX");
#endif
#ifdef __AVX2__
  add("AVX2");
#endif
#ifdef __FMA__
  add("FMA");
#endif
#ifdef __AVX512F__
  add("AVX512F");
#endif
#elif defined(__aarch64__)
  add("NEON");
#ifdef __ARM_FEATURE_SVE
  add("SVE");
#endif
#endif
  return out.empty() ? "scalar" : out;
}

Json provenance_json(const RunInfo& info) {
  Json p;
  p["version"] = FAVORLAB_VERSION;
  p["git_commit"] = git_commit();
#ifdef __clang__
  p["compiler"] = std::string("clang++ ") + __clang_version__;
#else
  p["compiler"] = std::string("g++ ") + __VERSION__;
#endif
  p["build_type"] = FAVORLAB_BUILD_TYPE;
  p["arch"] = FAVORLAB_ARCH;  // native (this build machine's CPU), portable, or the -march value
  p["backend"] = "cpu-openmp";
  p["omp_threads"] = info.threads;
  p["mpi_ranks"] = info.mpi_ranks;
  if (!info.distribution.empty()) p["mpi_distribution"] = info.distribution;
  p["eigen_simd"] = Eigen::SimdInstructionSetsInUse();
  p["instruction_sets"] = compiled_instruction_sets();  // what the compiler may use (Eigen names AVX for AVX2 too)
  p["gemm"] = FAVORLAB_GEMM_ENGINE;  // linalg/gemm.hpp: what the float and double products ran on
  p["utc"] = utc_now();
  p["wall_seconds"] = info.wall_seconds;
  if (info.memory_estimate_bytes >= 0) p["memory_estimate_bytes"] = number_or_null(info.memory_estimate_bytes);
  if (info.peak_memory_bytes >= 0) p["peak_memory_bytes"] = info.peak_memory_bytes;
  return p;
}

Json result_json(const Result& r, const RunInfo& info) {
  Json j;
  j["schema"] = "favorlab.result/1";
  j["experiment"] = r.experiment;
  j["params"] = r.params;
  Json prov = provenance_json(info);
  for (const auto& [key, value] : r.measurements.items()) prov[key] = value;
  j["provenance"] = prov;
  j["rows"] = r.rows;
  j["checks"] = Json::array();
  for (const Check& c : r.checks) j["checks"].push_back(check_json(c));
  return j;
}

}  // namespace favorlab
