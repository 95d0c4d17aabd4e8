#pragma once
// What the looks of a sequential run (mc/sequential_looks.hpp) did, written to the result: params max_looks and
// look_budget_seconds (null: no budget); measurements looks_reached (the pilot included: rerun with --max-looks set to
// it to repeat the run exactly), look_seconds, look_cell_trials and looks_stopped_by. A fixed-size run writes
// nothing, so its result file is the same as before looks existed.
#include "mc/sequential_looks.hpp"
#include "results/result.hpp"

namespace favorlab {

void report_looks(const LookPlan& plan, const LookRecord& record, Result& result);

}  // namespace favorlab
