#pragma once
// A claim decided point by point without sampling (docs/judging.md#verdicts): every point reports its badness, the
// measured figure divided by what the claim allows (a rounding bound, a target), so badness ≤ 1 holds and > 1 is
// violated. The tally keeps the point count, the violated count and the worst badness with where it was seen, and
// becomes an exact_check whose statistic is the worst badness.
// A NaN badness compares false both ways: it counts as held and never becomes the worst point. Callers that can
// produce one (0/0) must map it to a badness themselves.
#include <cstdint>
#include <string>

#include "stats/check.hpp"

namespace favorlab {

struct CountedCheck {
  double worst = 0;   // max(0, the largest badness seen)
  std::string where;  // the label of the first point that raised `worst`, else of the first point
  std::int64_t points = 0, failed = 0;

  void add(double badness, const std::string& label);
  // exact_check(claim, scope, held, failed, worst) with the detail "H of N points hold, F violated; worst <what> =
  // <worst> at <where>"; `what` names the badness ("|diff| / tolerance").
  Check check(std::string claim, std::string scope, const std::string& what) const;
};

}  // namespace favorlab
