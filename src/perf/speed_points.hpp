#pragma once
// The measurements of `favorlab speed`, one point per (shape, thread count, method, L) — points[shape][threads]
// [method][L] — and the ratios its targets read off them: time(numerator)/time(denominator) at every point both
// methods measured, labelled "shape/L=…/threads=…" and with the higher of the two points' load averages.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "perf/ratio_checks.hpp"

namespace favorlab {

// A measured point. cap_seconds is what the drop rule extrapolates (perf/speed_sweep.hpp): CPU time per thread, or
// device time.
struct SpeedPoint {
  double seconds_median = 0, seconds_min = 0, cpu_seconds_median = NAN, cap_seconds = 0, load = 0;
  std::int64_t peak_bytes = -1;  // -1: not measured
  bool peak_exact = true;
};

using SpeedCurve = std::map<int, SpeedPoint>;                 // by L
using SpeedMethodPoints = std::map<std::string, SpeedCurve>;  // by method
using SpeedThreadPoints = std::map<int, SpeedMethodPoints>;   // by thread count
using SpeedPoints = std::map<std::string, SpeedThreadPoints>;  // by shape name

// The point of `method` at L = l; nullptr when it was not measured.
const SpeedPoint* find_speed_point(const SpeedMethodPoints& points, const std::string& method, int l);

// The median seconds of a curve, by L.
std::map<int, double> median_seconds(const SpeedCurve& curve);

// time(num)/time(den) at every point with L ≥ min_l, over the shapes named (in that order; a shape without points is
// skipped) and every thread count. With threads_num (> 0): the numerator at threads_num threads against the
// denominator at threads_den, labelled without a thread count.
Ratios speed_ratios(const SpeedPoints& points, const std::vector<std::string>& shapes, const std::string& num,
                    const std::string& den, int min_l, int threads_num = 0, int threads_den = 0);

// The points of r at exactly L = l (by their labels).
Ratios ratios_at_length(const Ratios& r, int l);

}  // namespace favorlab
