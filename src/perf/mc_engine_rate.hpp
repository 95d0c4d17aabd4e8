#pragma once
// The Monte Carlo engine's arithmetic rate against the GEMMs it contains (the "mc_engine" rows of `favorlab speed`).
// A trial of run_estimator_sweep (mc/estimator_sweep.hpp) draws a projection, then per spec forms X W_sᵀ and Y W_sᵀ
// (points × d · d × m_s), applies the feature map (sin/cos or exp per entry), estimates and accumulates. Its floor is
// those products alone: `mc_engine_products` runs exactly them (one fixed projection, preallocated outputs, nothing
// else) for the same number of trials. time(products)/time(sweep) is then the sweep's rate in GEMM FLOP/s as a
// fraction of what the same GEMMs reach alone. The estimates alone (`mc_engine_estimates`: the products, the feature
// maps and φ(x)ᵀφ(y), nothing else) give the rate's ceiling, time(products)/time(estimates): what the sweep would
// reach if drawing projections and accumulating statistics cost nothing. The feature maps' exp, sin and cos are part
// of the estimator the sweep exists to test, so that ceiling is fixed by the estimator, not by the engine. After one
// untimed sweep (validation and warm-up) the three are timed interleaved (perf/interleaved_timing.hpp: the order
// rotated from repeat to repeat), each at config.threads.
#include <cstdint>

#include "mc/estimator_sweep.hpp"

namespace favorlab {

struct McEngineTiming {
  double sweep_seconds = 0;      // median over repeats of one run_estimator_sweep(config)
  double products_seconds = 0;   // median over repeats of mc_engine_products(config)
  double estimates_seconds = 0;  // median over repeats of mc_engine_estimates(config)
  double flops = 0;              // GEMM floating-point operations of config.trials trials (mc_engine_flops)
  double load = 0;               // the 1-minute load average after the last repeat
  std::int64_t trials = 0;
  int repeats = 0;
  double rate() const { return products_seconds / sweep_seconds; }  // sweep GEMM FLOP/s ÷ bare GEMM FLOP/s
  double ceiling() const { return products_seconds / estimates_seconds; }  // the rate of the estimates alone
};

// GEMM floating-point operations of a sweep: trials · Σ_s 2 · (2 · points · d · m_s) (X and Y, 2 per multiply-add).
double mc_engine_flops(const SweepConfig& config);

// The products of every trial alone, at config.threads; returns a number from them so the work stays observable.
double mc_engine_products(const SweepConfig& config);

// The estimates of every trial alone, at config.threads: per spec φ(X) and φ(Y) (products and feature maps) and
// φ(x_p)ᵀφ(y_p), with one fixed projection (rows of norm √d for the families that use them) and reused buffers;
// returns a number from them so the work stays observable.
double mc_engine_estimates(const SweepConfig& config);

// Throws std::invalid_argument when repeats < 1 (and whatever run_estimator_sweep throws for the configuration).
McEngineTiming time_mc_engine(const SweepConfig& config, int repeats);

}  // namespace favorlab
