#pragma once
// Checks over measured ratios, as `favorlab speed` reports its targets.
//   ratio_check: a ratio target over points. Timings (`timing`) are measurements, never claims: status measured,
//     value the worst ratio, target the limit. Deterministic counts (memory) are judged: holds when every ratio is
//     within the limit (≤ limit, or ≥ limit when `at_least`), violated otherwise. No point: inconclusive, with
//     `missing` saying why.
//   memory_target_check: a peak-memory target stated at one length (e.g. causal FAVOR < 3× inputs + outputs at
//     L = 65536): judged on the points at that length; when the run stopped below it, inconclusive with the ratios
//     it did measure, since fixed buffers weigh more than inputs + outputs at small L.
#include <string>
#include <vector>

#include "stats/check.hpp"

namespace favorlab {

struct Ratios {
  std::vector<std::string> labels;
  std::vector<double> values;
  std::vector<double> loads;  // the load average at each point
  void add(std::string label, double value, double load) {
    labels.push_back(std::move(label));
    values.push_back(value);
    loads.push_back(load);
  }
};

// `note` opens the detail (what kind of measurement this is); `missing` says why a check has no point.
Check ratio_check(const std::string& claim, const std::string& where, const Ratios& r, double limit, bool at_least,
                  bool timing, const std::string& note,
                  const std::string& missing = "no point measured (a method was dropped or L too small)");

// at_target: the points at the target length (judged, ≤ limit); smaller: the largest length measured when the run
// did not reach it (listed only). max_length is the run's largest length.
Check memory_target_check(const std::string& claim, const std::string& where, const Ratios& at_target,
                          const Ratios& smaller, int target_length, int max_length, double limit);

}  // namespace favorlab
