#include "mc/paired_looks.hpp"

#include <stdexcept>

namespace favorlab {

PairedLookOutcome run_paired_looks(
    std::size_t checks, const std::vector<PairedLookPoint>& points, std::int64_t pilot, double pilot_seconds,
    const LookPlan& plan, const std::function<PairedClaimCheck(std::size_t)>& make_check,
    const std::function<void(std::size_t, std::int64_t, std::vector<double>&, std::vector<double>&)>& pairs,
    const std::function<void(const std::vector<std::size_t>&, std::int64_t)>& extend) {
  if (plan.sequential() && pilot < 2) throw std::invalid_argument("paired looks: the pilot needs at least 2 pairs");
  for (const PairedLookPoint& p : points)
    if (p.check >= checks) throw std::invalid_argument("paired looks: a point names check " + std::to_string(p.check));
  PairedLookOutcome out;
  out.look.assign(points.size(), -1);
  out.pairs.assign(points.size(), pilot);
  std::vector<double> a, b;
  if (plan.sequential()) {
    // The looks' judges: scratch checks whose tallies are thrown away (each point is judged again below, once).
    std::vector<PairedClaimCheck> scratch;
    for (std::size_t c = 0; c < checks; ++c) scratch.push_back(make_check(c));
    out.record = run_looks(
        points.size(), pilot, pilot_seconds, plan,
        [&](std::size_t p, int look) {
          pairs(p, look_trials(pilot, look), a, b);
          return look_verdict(scratch[points[p].check].judge(a, b, points[p].label, look));
        },
        extend);
    for (std::size_t p = 0; p < points.size(); ++p) {
      out.look[p] = out.record.cell_look[p];
      out.pairs[p] = look_trials(pilot, out.look[p]);
    }
  } else {
    out.record.cell_look.assign(points.size(), 0);
  }
  std::vector<PairedClaimCheck> final_checks;
  for (std::size_t c = 0; c < checks; ++c) final_checks.push_back(make_check(c));
  for (std::size_t p = 0; p < points.size(); ++p) {
    pairs(p, out.pairs[p], a, b);
    out.verdicts.push_back(final_checks[points[p].check].judge(a, b, points[p].label, out.look[p]));
  }
  for (const PairedClaimCheck& c : final_checks) out.checks.push_back(c.result());
  return out;
}

}  // namespace favorlab
