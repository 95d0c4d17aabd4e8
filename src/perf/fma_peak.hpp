#pragma once
// One core's floating-point peak for the instruction set this build targets: `chains` independent multiply-add
// chains acc ← acc·a + b on Eigen's widest float packet (AVX-512: 16 floats; AVX2: 8; SSE2: 4), so each step is one
// fused multiply-add per chain where the build has FMA (two instructions where it has not). Twelve chains keep two
// pipelined FMA units busy (latency 4, two issued per cycle) and fit, with a and b, in the 16 registers of AVX2 and
// SSE2. `favorlab speed` divides its GEMM FLOP/s by this peak: how far the products that set FAVOR's floor are from
// the machine's own. A measurement, never a unit test.
#include <cstdint>

namespace favorlab {

inline constexpr int kFmaPeakChains = 12;

// Floats per packet of this build (Eigen's packet_traits<float>), and whether its multiply-add is one fused
// instruction (EIGEN_VECTORIZE_FMA) or a multiply and an add, each rounded.
int fma_peak_lanes();
bool fma_peak_fused();

// Runs `steps` steps of every chain (chain c, lane l starts at 1 + c + l/16) and returns the sum over all chains and
// lanes of the final values: the known answer a test compares with the same recursion run one lane at a time.
double fma_chains(std::int64_t steps, float a, float b);

struct FmaPeak {
  double flops_per_second = 0;  // the best of the timed runs: 2 · chains · lanes · steps / seconds
  std::int64_t steps = 0;       // steps per timed run
  int runs = 0;
  int lanes = 0;
  int chains = kFmaPeakChains;
  bool fused = false;
};

// Calibrates the steps to ≈ seconds_per_run, then times `runs` runs on the calling thread and keeps the fastest.
// Throws std::invalid_argument when seconds_per_run is not positive and finite or runs < 1.
FmaPeak measure_fma_peak(double seconds_per_run = 0.1, int runs = 3);

// The FLOP/s of a piece of work (flops in `seconds`) as a fraction of `threads` cores at the peak: flops / seconds /
// (threads · peak.flops_per_second). A core shared with other work lowers it (see the load recorded beside it).
double fraction_of_fma_peak(double flops, double seconds, int threads, const FmaPeak& peak);

}  // namespace favorlab
