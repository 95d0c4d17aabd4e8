#include "experiments/look_report.hpp"

#include <cmath>

namespace favorlab {

void report_looks(const LookPlan& plan, const LookRecord& record, Result& result) {
  if (!plan.sequential()) return;
  result.params["max_looks"] = plan.max_looks;
  result.params["look_budget_seconds"] = std::isfinite(plan.budget_seconds) ? Json(plan.budget_seconds) : Json(nullptr);
  result.measurements["looks_reached"] = record.looks_reached;
  result.measurements["look_seconds"] = record.seconds;
  result.measurements["look_cell_trials"] = record.extra_cell_trials;
  result.measurements["looks_stopped_by"] = record.stopped_by;
}

}  // namespace favorlab
