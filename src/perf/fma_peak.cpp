#include "perf/fma_peak.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;

}  // namespace

int fma_peak_lanes() { return kLanes; }

bool fma_peak_fused() {
#ifdef EIGEN_VECTORIZE_FMA
  return true;
#else
  return false;
#endif
}

double fma_chains(std::int64_t steps, float a, float b) {
  Packet acc[kFmaPeakChains];  // a plain array: std::array would drop the vector type's attributes
  for (int c = 0; c < kFmaPeakChains; ++c) {
    alignas(64) std::array<float, kLanes> start;
    for (int l = 0; l < kLanes; ++l) start[std::size_t(l)] = 1.0f + float(c) + float(l) / 16.0f;
    acc[c] = Eigen::internal::pload<Packet>(start.data());
  }
  const Packet pa = Eigen::internal::pset1<Packet>(a), pb = Eigen::internal::pset1<Packet>(b);
  for (std::int64_t s = 0; s < steps; ++s)
    for (Packet& p : acc) p = Eigen::internal::pmadd(p, pa, pb);
  double sum = 0;
  for (const Packet& p : acc) {
    alignas(64) std::array<float, kLanes> out;
    Eigen::internal::pstore(out.data(), p);
    for (float x : out) sum += double(x);
  }
  return sum;
}

FmaPeak measure_fma_peak(double seconds_per_run, int runs) {
  if (!(seconds_per_run > 0) || !std::isfinite(seconds_per_run))
    throw std::invalid_argument("fma peak: seconds per run must be positive and finite, got " +
                                std::to_string(seconds_per_run));
  if (runs < 1) throw std::invalid_argument("fma peak: runs must be at least 1, got " + std::to_string(runs));
  // a < 1 and b > 0: every chain tends to b / (1 − a) = 0.1 and stays a normal number (no subnormal slowdown).
  const float a = 0.999f, b = 1e-4f;
  volatile double sink = 0;
  const auto time_steps = [&](std::int64_t steps) {
    const auto start = std::chrono::steady_clock::now();
    sink = sink + fma_chains(steps, a, b);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  FmaPeak peak;
  peak.lanes = kLanes;
  peak.runs = runs;
  peak.fused = fma_peak_fused();
  std::int64_t steps = 1 << 16;
  double seconds = time_steps(steps);
  while (seconds < seconds_per_run / 8) {  // calibrate (and warm up) on runs of at least an eighth of the target
    steps *= 2;
    seconds = time_steps(steps);
  }
  peak.steps = std::max<std::int64_t>(1, std::int64_t(double(steps) * seconds_per_run / seconds));
  for (int r = 0; r < runs; ++r) {
    const double flops = 2.0 * kFmaPeakChains * kLanes * double(peak.steps);
    peak.flops_per_second = std::max(peak.flops_per_second, flops / time_steps(peak.steps));
  }
  return peak;
}

double fraction_of_fma_peak(double flops, double seconds, int threads, const FmaPeak& peak) {
  return flops / seconds / (threads * peak.flops_per_second);
}

}  // namespace favorlab
