#include "io/result.hpp"

#include <Eigen/Core>
#include <chrono>
#include <ctime>

namespace favorlab {

Json check_json(const Check& c) {
  return Json{{"claim", c.claim}, {"where", c.where}, {"status", c.status}, {"statistic", c.statistic},
              {"detail", c.detail}};
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

Json provenance_json(const RunInfo& info) {
  Json p;
  p["version"] = FAVORLAB_VERSION;
  p["git_commit"] = git_commit();
  p["compiler"] = std::string("g++ ") + __VERSION__;
  p["build_type"] = FAVORLAB_BUILD_TYPE;
  p["backend"] = "cpu-openmp";
  p["omp_threads"] = info.threads;
  p["eigen_simd"] = Eigen::SimdInstructionSetsInUse();
  p["utc"] = utc_now();
  p["wall_seconds"] = info.wall_seconds;
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
