#pragma once
// One claim judged at every point by two methods — plain Monte Carlo and importance sampling — each through its own
// ClaimCheck at its own family α, combined point by point (docs/judging.md#either-method-per-point):
//   violated      either method refutes the claim at the point;
//   holds         either method confirms it there and neither refutes it;
//   inconclusive  otherwise.
// A false verdict of the combined line needs a false verdict of one method at some point, so its false-verdict rate is
// at most the sum of the two methods' α: the ledger's rule across methods (docs/judging.md#the-claims-ledger), applied
// per point instead of per claim. So a claim that each method settles at a different subset of the points, and both
// together at every point, holds.
// Power: at a point, the smaller of the two methods' powers (a deviation either catches); the line's is the weakest
// point's. Points exact to rounding count only when no point was sampled, as in ClaimCheck.
#include <cstdint>
#include <limits>
#include <string>

#include "stats/check.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

class EitherCheck {
 public:
  // `first` and `second` name the two methods in the detail ("plain Monte Carlo", "importance sampling").
  EitherCheck(std::string claim, std::string where, std::string first, std::string second);
  // The two verdicts of one point, each from its own method's ClaimCheck; returns the combined verdict.
  Verdict add(const PointVerdict& first, const PointVerdict& second, const std::string& label);
  Check result() const;

 private:
  std::string claim_, where_, first_, second_;
  std::int64_t held_ = 0, violated_ = 0, inconclusive_ = 0;
  std::int64_t held_first_only_ = 0, held_second_only_ = 0, held_both_ = 0;
  double power_ = std::numeric_limits<double>::quiet_NaN();
  bool sampled_power_ = false;
  std::string power_label_, violated_label_, open_label_;
  std::int64_t most_trials_to_settle_ = 0;  // over open points: the fewer trials of the two methods'
};

// The line "CLAIM, plain or importance-sampled" of an experiment that judges CLAIM (named without its method) at the
// same points by plain Monte Carlo and by importance sampling with `trials` per point: first the plain verdict, then
// the importance-sampled one.
EitherCheck plain_or_importance_sampled(const std::string& claim, const std::string& where, std::int64_t trials);

}  // namespace favorlab
