#include "mc/sweep_set.hpp"

#include <stdexcept>
#include <utility>

namespace favorlab {

SweepSet::SweepSet(std::vector<SweepConfig> configs, const ProgressFn& progress) : configs_(std::move(configs)) {
  if (configs_.empty()) throw std::invalid_argument("SweepSet: no sweep to run");
  for (const SweepConfig& c : configs_)
    if (c.specs.size() != configs_[0].specs.size() || c.points.size() != configs_[0].points.size() ||
        c.trials != configs_[0].trials || c.first_trial != 0)
      throw std::invalid_argument("SweepSet: the sweeps must share their shape and pilot trial count");
  per_sweep_ = configs_[0].specs.size() * configs_[0].points.size();
  for (std::size_t i = 0; i < configs_.size(); ++i) {
    sweeps_.push_back(run_estimator_sweep(configs_[i], part_progress(progress, i, configs_.size())));
    pilot_seconds_ += sweeps_.back().seconds;
  }
}

std::int64_t SweepSet::evaluations() const {
  std::int64_t n = 0;
  for (const SweepResult& r : sweeps_) n += r.evaluations;
  return n;
}

double SweepSet::seconds() const {
  double s = 0;
  for (const SweepResult& r : sweeps_) s += r.seconds;
  return s;
}

LookRecord SweepSet::take_looks(const LookPlan& plan, const std::function<PointVerdict(std::size_t, int)>& judge,
                                const ProgressFn& progress) {
  return run_looks(cells(), configs_[0].trials, pilot_seconds_, plan, judge,
                   [&](const std::vector<std::size_t>& cells, std::int64_t to) {
                     for (std::size_t i = 0; i < sweeps_.size(); ++i) {
                       std::vector<std::size_t> mine;
                       for (std::size_t cell : cells)
                         if (cell / per_sweep_ == i) mine.push_back(cell % per_sweep_);
                       if (!mine.empty()) extend_estimator_sweep(configs_[i], sweeps_[i], mine, to, progress);
                     }
                   });
}

}  // namespace favorlab
