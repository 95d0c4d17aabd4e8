#include "perf/speed_points.hpp"

#include <algorithm>

namespace favorlab {

const SpeedPoint* find_speed_point(const SpeedMethodPoints& points, const std::string& method, int l) {
  const auto it = points.find(method);
  if (it == points.end()) return nullptr;
  const auto p = it->second.find(l);
  return p == it->second.end() ? nullptr : &p->second;
}

std::map<int, double> median_seconds(const SpeedCurve& curve) {
  std::map<int, double> seconds;
  for (const auto& [l, p] : curve) seconds[l] = p.seconds_median;
  return seconds;
}

Ratios speed_ratios(const SpeedPoints& points, const std::vector<std::string>& shapes, const std::string& num,
                    const std::string& den, int min_l, int threads_num, int threads_den) {
  Ratios r;
  for (const std::string& shape : shapes) {
    const auto found = points.find(shape);
    if (found == points.end()) continue;
    const SpeedThreadPoints& sp = found->second;
    for (const auto& entry : sp) {
      const int threads = entry.first;
      const int tn = threads_num ? threads_num : threads, td = threads_den ? threads_den : threads;
      if (threads_num && threads != threads_num) continue;
      if (!sp.count(tn) || !sp.count(td) || !sp.at(tn).count(num) || !sp.at(td).count(den)) continue;
      const SpeedCurve& dens = sp.at(td).at(den);
      for (const auto& [l, p] : sp.at(tn).at(num)) {
        if (l < min_l || !dens.count(l)) continue;
        const SpeedPoint& q = dens.at(l);
        r.add(shape + "/L=" + std::to_string(l) + (threads_num ? "" : "/threads=" + std::to_string(threads)),
              p.seconds_median / q.seconds_median, std::max(p.load, q.load));
      }
    }
  }
  return r;
}

Ratios ratios_at_length(const Ratios& r, int l) {
  Ratios at;
  const std::string tag = "/L=" + std::to_string(l) + "/";
  for (std::size_t i = 0; i < r.values.size(); ++i)
    if ((r.labels[i] + "/").find(tag) != std::string::npos) at.add(r.labels[i], r.values[i], r.loads[i]);
  return at;
}

}  // namespace favorlab
