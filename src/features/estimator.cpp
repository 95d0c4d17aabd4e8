#include "features/estimator.hpp"

#include <stdexcept>

#include "features/feature_maps.hpp"
#include "features/gerf_projection.hpp"

namespace favorlab {

std::vector<std::string> estimator_names() { return family_names(estimates_softmax, true); }

Estimator parse_estimator(std::string_view name) { return parse_family(name, "estimator", estimates_softmax, true); }

RowNorms row_norms_for(Estimator e) { return family_info(e).norms; }

Eigen::MatrixXd estimator_features(Estimator e, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w,
                                   const FeatureParameters& params) {
  const FamilyInfo& info = family_info(e);
  if (info.data_dependent)
    throw std::invalid_argument("the features of '" + std::string(info.name) + "' depend on the pair; use estimate_kernel");
  switch (info.map) {
    case FeatureMapCode::trig: return trig_features<double>(u, w);
    case FeatureMapCode::hyperbolic: return hyperbolic_features<double>(u, w);
    case FeatureMapCode::positive: return positive_features<double>(u, w);
    case FeatureMapCode::shifted_positive:
      return shifted_positive_features<double>(u, packed(info.prepare(w, {}, params)));
    default: throw std::invalid_argument("'" + std::string(info.name) + "' is not a softmax-kernel estimator");
  }
}

Eigen::VectorXd estimate_kernel(Estimator e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                const Eigen::MatrixXd& w, const FeatureParameters& params) {
  if (const PairEstimatesFn pair = family_info(e).pair_estimates) return pair(x, y, w);
  return estimator_features(e, x, w, params).cwiseProduct(estimator_features(e, y, w, params)).rowwise().sum();
}

}  // namespace favorlab
