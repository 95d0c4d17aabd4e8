#include "features/estimator.hpp"

#include <stdexcept>
#include <utility>

#include "features/feature_map.hpp"
#include "features/gerf_projection.hpp"

namespace favorlab {

std::vector<std::string> estimator_names() { return family_names(estimates_softmax, true); }

Family parse_estimator(std::string_view name) { return parse_family(name, "estimator", estimates_softmax, true); }

RowNorms row_norms_for(Family e) { return family_info(e).norms; }

namespace {

void features_into(Family e, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w, const FeatureParameters& params,
                   Eigen::MatrixXd& out) {
  const FamilyInfo& info = family_info(e);
  if (info.data_dependent)
    throw std::invalid_argument("the features of '" + std::string(info.name) + "' depend on the pair; use estimate_kernel");
  if (!estimates_softmax(e))
    throw std::invalid_argument("'" + std::string(info.name) + "' is not a softmax-kernel estimator");
  const auto features = info.map->f64.features;
  if (info.prepare == nullptr) return features(u, w, out);
  features(u, packed(info.prepare(w, {}, params)), out);
}

}  // namespace

Eigen::MatrixXd estimator_features(Family e, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w,
                                   const FeatureParameters& params) {
  Eigen::MatrixXd out;
  features_into(e, u, w, params, out);
  return out;
}

const Eigen::VectorXd& estimate_kernel(Family e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                       const Eigen::MatrixXd& w, const FeatureParameters& params,
                                       KernelWorkspace& workspace) {
  if (const PairEstimatesFn pair = family_info(e).pair_estimates) {
    workspace.estimates = pair(x, y, w);
    return workspace.estimates;
  }
  features_into(e, x, w, params, workspace.x_features);
  features_into(e, y, w, params, workspace.y_features);
  workspace.estimates.resize(x.rows());
  workspace.estimates.noalias() = workspace.x_features.cwiseProduct(workspace.y_features).rowwise().sum();
  return workspace.estimates;
}

Eigen::VectorXd estimate_kernel(Family e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                const Eigen::MatrixXd& w, const FeatureParameters& params) {
  KernelWorkspace workspace;
  estimate_kernel(e, x, y, w, params, workspace);
  return std::move(workspace.estimates);
}

}  // namespace favorlab
