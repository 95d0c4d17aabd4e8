#include "evaluation/favor_arm_comparisons.hpp"

#include <algorithm>
#include <chrono>
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

namespace {

// A paired check over the m values: arm `low` (at each m) has lower output MSE than arm `high` on the same inputs.
ArmComparison comparison(const std::vector<FavorArm>& arms, const std::string& claim, const std::string& what,
                         const ArmInputs& inputs, const std::vector<int>& ms, FavorArm low, FavorArm high) {
  ArmComparison k{claim, what + ", " + inputs.where(ms), {}, {}, {}};
  for (int m : ms) {
    low.m = high.m = m;
    k.low.push_back(find_favor_arm(arms, low));
    k.high.push_back(find_favor_arm(arms, high));
    k.labels.push_back("m=" + std::to_string(m));
  }
  return k;
}

void annotate(Json& row, const std::string& prefix, const PairedVerdict& v) {
  row[prefix + "_ratio"] = number_or_null(v.ratio);
  row[prefix + "_median_ratio"] = number_or_null(v.median_ratio);
  row[prefix + "_pairs"] = v.n;
  row[prefix + "_above"] = v.above;
  row[prefix + "_p_violated"] = v.p_violated;
  row[prefix + "_p_holds"] = v.p_holds;
  row[prefix + "_status"] = v.status;
}

}  // namespace

PilotErrors measure_favor_arms(const std::vector<FavorArm>& arms, const std::vector<AttentionInput>& inputs,
                               const std::vector<bool>& causal_modes, Backend backend, const RunContext& ctx,
                               ProductPrecision precision) {
  PilotErrors pilot;
  for (const FavorArm& arm : arms) {
    pilot.configs.push_back(arm.config());
    pilot.configs.back().precision = precision;
  }
  const auto pilot_start = std::chrono::steady_clock::now();
  pilot.mse = favor_output_mse(inputs, pilot.configs, ctx.seed, ctx.threads, ctx.progress, backend);
  pilot.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - pilot_start).count();
  for (bool causal : {false, true})
    if (std::find(causal_modes.begin(), causal_modes.end(), causal) != causal_modes.end())
      pilot.baselines[causal ? 1 : 0] = exact_output_baselines(inputs, causal, ctx.threads);
  return pilot;
}

std::vector<ArmComparison> fig4_comparisons(const std::vector<FavorArm>& arms, const std::vector<Family>& features,
                                            const std::vector<Coupling>& couplings,
                                            const std::vector<std::string>& modes, const ArmInputs& inputs,
                                            const std::vector<int>& ms, std::vector<std::string>& prefixes) {
  const auto has_coupling = [&](Coupling c) {
    return std::find(couplings.begin(), couplings.end(), c) != couplings.end();
  };
  const auto has_features = [&](Family f) { return std::find(features.begin(), features.end(), f) != features.end(); };
  std::vector<ArmComparison> comparisons;
  if (has_coupling(Coupling::iid) && has_coupling(Coupling::orthogonal))
    for (const auto& mode : modes)
      for (Family f : features) {
        comparisons.push_back(comparison(arms, "Fig. 4: orthogonal features give lower output MSE than iid",
                                         std::string(feature_kind_name(f)) + " features, " + mode, inputs, ms,
                                         {mode == "causal", Coupling::orthogonal, f, 0},
                                         {mode == "causal", Coupling::iid, f, 0}));
        prefixes.push_back("vs_iid");
      }
  if (has_features(Family::trig) && has_features(Family::positive))
    for (const auto& mode : modes)
      for (Coupling c : couplings) {
        comparisons.push_back(comparison(arms, "Fig. 4: positive features give lower output MSE than trig",
                                         std::string(coupling_name(c)) + " projections, " + mode, inputs, ms,
                                         {mode == "causal", c, Family::positive, 0},
                                         {mode == "causal", c, Family::trig, 0}));
        prefixes.push_back("vs_trig");
      }
  return comparisons;
}

void add_arm_verdicts(Result& result, std::vector<Json>& rows, const std::vector<ArmComparison>& comparisons,
                      const std::vector<std::string>& prefixes, const PairedLookOutcome& outcome, bool sequential) {
  std::size_t point = 0;
  for (std::size_t c = 0; c < comparisons.size(); ++c) {
    for (std::size_t j = 0; j < comparisons[c].low.size(); ++j, ++point) {
      Json& row = rows[comparisons[c].low[j]];
      annotate(row, prefixes[c], outcome.verdicts[point]);
      if (sequential) {
        row[prefixes[c] + "_look"] = outcome.look[point];
        row[prefixes[c] + "_inputs"] = outcome.pairs[point];
      }
    }
    result.checks.push_back(outcome.checks[c]);
  }
}

}  // namespace favorlab
