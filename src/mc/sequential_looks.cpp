#include "mc/sequential_looks.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "mc/distribution.hpp"

namespace favorlab {

LookPlan LookPlan::share(std::size_t part, std::size_t parts, double spent) const {
  LookPlan p = *this;
  if (std::isfinite(budget_seconds) && parts > part)
    p.budget_seconds = std::max(0.0, budget_seconds - spent) / static_cast<double>(parts - part);
  return p;
}

double look_seconds_per_trial(const std::vector<std::pair<double, double>>& observations, double cells) {
  if (observations.empty()) return 0;
  const auto [c1, s1] = observations.back();
  // Cells share fixed work (exact references, inputs), so fewer cells never cost more per trial than the latest look.
  const double cap = s1 * std::max(1.0, cells / c1);
  if (observations.size() == 1) return s1 * cells / c1;
  const auto [c0, s0] = observations[observations.size() - 2];
  // Two close cell counts with noisy timings can give a steep line whose intercept is clamped at 0: the cap keeps
  // such a line from predicting a fewer-cell look dearer than the one just timed.
  const double b = std::max(0.0, (s1 - s0) / (c1 - c0)), a = std::max(0.0, s1 - b * c1);
  return std::min(a + b * cells, cap);
}

std::int64_t look_trials(std::int64_t pilot_trials, int look) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t n = pilot_trials;
  for (int k = 0; k < look; ++k) {
    if (n > kMax / 2) return kMax;
    n *= 2;
  }
  return n;
}

namespace {

// Seconds per trial as a + b·cells, from (cells, seconds per trial) observations: with one cell count seen, a = 0
// (the cost scales with the cells: optimistic when fewer cells follow); with two, the line through the latest of each,
// capped at the latest observation for no more cells than it had (look_seconds_per_trial).
class CostModel {
 public:
  void observe(double cells, double seconds_per_trial) {
    if (!points_.empty() && points_.back().first == cells) points_.back().second = seconds_per_trial;
    else points_.push_back({cells, seconds_per_trial});
  }
  double seconds_per_trial(double cells) const { return look_seconds_per_trial(points_, cells); }

 private:
  std::vector<std::pair<double, double>> points_;
};

}  // namespace

LookRecord run_looks(std::size_t cells, std::int64_t pilot_trials, double pilot_seconds, const LookPlan& plan,
                     const std::function<PointVerdict(std::size_t, int)>& judge,
                     const std::function<void(const std::vector<std::size_t>&, std::int64_t)>& extend) {
  if (pilot_trials < 2) throw std::invalid_argument("run_looks: the pilot needs at least 2 trials");
  if (plan.max_looks < 1) throw std::invalid_argument("run_looks: max_looks must be at least 1");
  LookRecord record;
  record.cell_look.assign(cells, 0);
  const std::int64_t last_trials = look_trials(pilot_trials, plan.max_looks - 1);
  CostModel cost;
  if (cells > 0 && pilot_seconds > 0)
    cost.observe(static_cast<double>(cells), pilot_seconds / static_cast<double>(pilot_trials));
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  std::vector<std::size_t> open;
  for (std::size_t c = 0; c < cells; ++c) open.push_back(c);
  bool beyond = false, helpless = false;  // a cell dropped as skewed, or one no trial count helps
  for (int look = 0;; ++look) {
    // Judge the cells drawn at this look. An open cell draws on unless its z test stays unreliable beyond the last
    // look: that count comes from the a-priori skewness, not from the noisy difference, so dropping the cell costs no
    // power (an estimate of the trials to settle, taken from a noisy pilot, dropped most cells of a 5 % deviation
    // that the later looks catch: tests/mc/test_sequential_looks.cpp).
    std::vector<std::size_t> next;
    for (std::size_t c : open) {
      record.cell_look[c] = look;
      const PointVerdict v = judge(c, look);
      if (v.status != Verdict::inconclusive) continue;  // settled
      // Open, but more trials cannot help: a non-finite figure (0), or a difference at the margin (kOutOfReach).
      if (v.trials_needed <= 0 || (v.reliable && v.trials_needed == kOutOfReach)) {
        helpless = true;
        continue;
      }
      if (!v.reliable && v.trials_needed > last_trials) {
        beyond = true;
        continue;
      }
      next.push_back(c);
    }
    open = std::move(next);
    record.looks_reached = look + 1;
    if (open.empty()) {
      record.stopped_by = beyond ? "skewed beyond the last look" : helpless ? "no trial count helps" : "settled";
      break;
    }
    if (look + 1 >= plan.max_looks) {
      record.stopped_by = "max looks";
      break;
    }
    const std::int64_t from = look_trials(pilot_trials, look), to = look_trials(pilot_trials, look + 1);
    const double predicted = cost.seconds_per_trial(static_cast<double>(open.size())) * static_cast<double>(to - from);
    // Every rank must take the same looks: a stop on any rank's clock stops them all (mc/distribution.hpp).
    if (any_rank_failed(elapsed() + predicted > plan.budget_seconds)) {
      record.stopped_by = "budget";
      break;
    }
    const double before = elapsed();
    extend(open, to);
    cost.observe(static_cast<double>(open.size()), (elapsed() - before) / static_cast<double>(to - from));
    record.extra_cell_trials += static_cast<std::int64_t>(open.size()) * (to - from);
  }
  record.seconds = elapsed();
  return record;
}

}  // namespace favorlab
