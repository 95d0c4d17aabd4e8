#include "mc/joint_verdict.hpp"

#include <stdexcept>

namespace favorlab {

namespace {

// run_looks' reading of an open verdict: 0 draws on, 1 skewed beyond the last look, 2 no trial count helps.
int open_kind(const PointVerdict& v, std::int64_t last_trials) {
  if (v.trials_needed <= 0 || (v.reliable && v.trials_needed == kOutOfReach)) return 2;
  if (!v.reliable && v.trials_needed > last_trials) return 1;
  return 0;
}

}  // namespace

PointVerdict joint_verdict(const std::vector<PointVerdict>& checks, std::int64_t last_trials) {
  if (checks.empty()) throw std::invalid_argument("joint_verdict: at least one check's verdict needed");
  const PointVerdict* best = nullptr;  // the open verdict run_looks should read: the lowest open_kind, first seen
  int best_kind = 3;
  bool violated = false;
  for (const PointVerdict& v : checks) {
    violated = violated || v.status == Verdict::violated;
    if (v.status != Verdict::inconclusive) continue;
    const int kind = open_kind(v, last_trials);
    if (kind < best_kind) best = &v, best_kind = kind;
  }
  if (best != nullptr) return *best;
  PointVerdict settled = checks.front();
  settled.status = violated ? Verdict::violated : Verdict::holds;
  return settled;
}

}  // namespace favorlab
