#pragma once
// Option values of the experiments that compare the softmax-kernel estimators (attention-error, attention-matrix,
// redraw): feature maps among the softmax-kernel families (feature_family.hpp), and iid or orthogonal projections. Each
// throws std::invalid_argument (exit 2) naming the option, the value and the experiment.
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention_config.hpp"
#include "features/projection.hpp"

namespace favorlab {

inline std::vector<Family> parse_softmax_features(const std::vector<std::string>& names,
                                                       const std::string& experiment) {
  std::vector<Family> kinds;
  for (const auto& name : names) {
    kinds.push_back(parse_feature_kind(name));
    if (!estimates_softmax(kinds.back()))
      throw std::invalid_argument("--features: " + name + " is a generalized kernel; " + experiment +
                                  " compares softmax estimators (" + family_list(estimates_softmax) + ")");
  }
  return kinds;
}

inline Coupling parse_dense_coupling(const std::string& name, const std::string& option,
                                        const std::string& experiment) {
  const Coupling coupling = parse_coupling(name);
  if (coupling != Coupling::iid && coupling != Coupling::orthogonal && coupling != Coupling::simplex)
    throw std::invalid_argument(option + ": " + experiment + " uses iid, orthogonal or simplex projections, not " +
                                name);
  return coupling;
}

}  // namespace favorlab
