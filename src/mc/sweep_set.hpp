#pragma once
// Estimator sweeps judged as one set of cells — one sweep per coupling, say — with looks after their pilots
// (mc/sequential_looks.hpp) taken over all cells at once, so that a budget stops every sweep at the same look.
// Cell index: sweep · cells_per_sweep + spec · points + point; every config must have the same specs × points shape.
#include <cstdint>
#include <functional>
#include <vector>

#include "mc/estimator_sweep.hpp"
#include "mc/sequential_looks.hpp"

namespace favorlab {

class SweepSet {
 public:
  // Runs every config's pilot (config.trials trials), progress split evenly over them.
  // Throws std::invalid_argument for an empty list, configs of different shapes or trial counts, or what
  // run_estimator_sweep refuses.
  SweepSet(std::vector<SweepConfig> configs, const ProgressFn& progress = {});

  std::size_t cells() const { return sweeps_.size() * per_sweep_; }
  std::size_t cells_per_sweep() const { return per_sweep_; }
  const SweepCell& cell(std::size_t cell) const { return sweeps_[cell / per_sweep_].cells[cell % per_sweep_]; }
  double truth(std::size_t cell) const { return sweeps_[cell / per_sweep_].truth[cell % per_sweep_]; }
  const SweepResult& sweep(std::size_t i) const { return sweeps_.at(i); }  // as it stands after the looks so far
  std::int64_t evaluations() const;
  double seconds() const;  // of the pilots and the looks' draws

  // Looks after the pilots; judge(cell, look) as for run_looks. progress: of each look's draws, one look at a time.
  LookRecord take_looks(const LookPlan& plan, const std::function<PointVerdict(std::size_t, int)>& judge,
                        const ProgressFn& progress = {});

 private:
  std::vector<SweepConfig> configs_;
  std::vector<SweepResult> sweeps_;
  std::size_t per_sweep_ = 0;
  double pilot_seconds_ = 0;
};

}  // namespace favorlab
