#pragma once
// The level of the z test's gate on importance-sampled MSEs of coupled rows, simulated (test_importance_coupled.cpp,
// test_importance_sphere.cpp): `replicates` runs on independent streams of the same point, each judged alone at
// α = 0.05 against the closed form (false violations) and against the closed form × 1.05 (held wrongly).
#include <cstdint>
#include <functional>

#include "mc/importance_coupled.hpp"
#include "stats/claim_check.hpp"

namespace favorlab::testing {

struct GateLevel {
  int violated = 0, judged = 0, wrong_held = 0;
};

// The evidence of one importance-sampled MSE against `truth`: its gate skewness, and a rounding allowance 1e-20 k².
inline PointEvidence mse_evidence(const CoupledImportanceSampledMse& r, double truth, double k) {
  return {r.mse, truth, r.mse_stderr, 1e-20 * k * k, r.gate_skewness(), r.trials, r.nonfinite, "p"};
}

// run(stream) gives one replicate; theory is the exact MSE, k the kernel value (SM or SMREG) that scales the
// rounding allowance.
inline GateLevel simulate_gate_level(const std::function<CoupledImportanceSampledMse(std::uint64_t)>& run,
                                     double theory, double k, int replicates) {
  GateLevel level;
  for (int rep = 0; rep < replicates; ++rep) {
    const CoupledImportanceSampledMse r = run(1000 + static_cast<std::uint64_t>(rep));
    ClaimCheck check("level", "one point", 0.05, 1), off("power", "one point", 0.05, 1);
    const PointVerdict v = check.judge(mse_evidence(r, theory, k));
    level.judged += v.reliable ? 1 : 0;
    level.violated += v.status == Verdict::violated ? 1 : 0;
    level.wrong_held += off.judge(mse_evidence(r, 1.05 * theory, k)).status == Verdict::holds ? 1 : 0;
  }
  return level;
}

}  // namespace favorlab::testing
