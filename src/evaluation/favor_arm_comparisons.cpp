#include "evaluation/favor_arm_comparisons.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace favorlab {

PairedLookOutcome compare_arms(const std::vector<ArmComparison>& comparisons, std::vector<std::vector<double>>& mse,
                               const ArmLookSetup& setup) {
  if (mse.empty()) throw std::invalid_argument("arm comparisons: no arms");
  const std::int64_t pilot = static_cast<std::int64_t>(mse.front().size());
  for (const auto& arm : mse)
    if (static_cast<std::int64_t>(arm.size()) != pilot)
      throw std::invalid_argument("arm comparisons: the arms have different numbers of inputs");
  if (setup.plan.sequential() && (setup.configs == nullptr || setup.configs->size() != mse.size()))
    throw std::invalid_argument("arm comparisons: looks need one configuration per arm");
  std::vector<PairedLookPoint> points;
  std::vector<std::pair<std::size_t, std::size_t>> arms;  // per point: (low, high)
  for (std::size_t c = 0; c < comparisons.size(); ++c) {
    const ArmComparison& k = comparisons[c];
    if (k.low.size() != k.high.size() || k.low.size() != k.labels.size())
      throw std::invalid_argument("arm comparisons: a check's arms and labels differ in number");
    for (std::size_t j = 0; j < k.low.size(); ++j) {
      if (k.low[j] >= mse.size() || k.high[j] >= mse.size())
        throw std::invalid_argument("arm comparisons: an arm index out of range");
      points.push_back({c, k.labels[j]});
      arms.emplace_back(k.low[j], k.high[j]);
    }
  }
  const auto pairs = [&](std::size_t p, std::int64_t n, std::vector<double>& a, std::vector<double>& b) {
    const auto& lo = mse[arms[p].first];
    const auto& hi = mse[arms[p].second];
    a.assign(lo.begin(), lo.begin() + n);
    b.assign(hi.begin(), hi.begin() + n);
  };
  // The arms of the open points, from the inputs each has to n: arms that stand at the same count run together (the
  // exact outputs of a mode are computed once per input for all of them).
  const auto extend = [&](const std::vector<std::size_t>& open, std::int64_t n) {
    std::map<std::int64_t, std::vector<std::size_t>> by_count;
    for (std::size_t p : open)
      for (std::size_t arm : {arms[p].first, arms[p].second}) {
        const std::int64_t have = static_cast<std::int64_t>(mse[arm].size());
        auto& list = by_count[have];
        if (have < n && std::find(list.begin(), list.end(), arm) == list.end()) list.push_back(arm);
      }
    std::size_t part = 0;
    for (const auto& [have, list] : by_count) {
      if (list.empty()) continue;
      std::vector<AttentionConfig> configs;
      for (std::size_t arm : list) configs.push_back((*setup.configs)[arm]);
      const auto more = gaussian_output_mse(setup.shape, configs, setup.seed, have, n - have, setup.threads,
                                            part_progress(setup.progress, part++, by_count.size()), setup.backend);
      for (std::size_t i = 0; i < list.size(); ++i)
        mse[list[i]].insert(mse[list[i]].end(), more[i].begin(), more[i].end());
    }
  };
  return run_paired_looks(
      comparisons.size(), points, pilot, setup.pilot_seconds, setup.plan,
      [&](std::size_t c) {
        return PairedClaimCheck(comparisons[c].claim, comparisons[c].where, setup.alpha, comparisons[c].low.size());
      },
      pairs, extend);
}

}  // namespace favorlab
