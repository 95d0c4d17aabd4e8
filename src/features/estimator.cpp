#include "features/estimator.hpp"

#include <stdexcept>

#include "features/feature_maps.hpp"

namespace favorlab {

namespace {
constexpr Estimator kAll[] = {Estimator::trig, Estimator::positive, Estimator::hyperbolic, Estimator::smreg};
}

std::string_view estimator_name(Estimator e) {
  switch (e) {
    case Estimator::trig: return "trig";
    case Estimator::positive: return "positive";
    case Estimator::hyperbolic: return "hyperbolic";
    case Estimator::smreg: return "smreg";
  }
  return "?";
}

std::vector<std::string> estimator_names() {
  std::vector<std::string> names;
  for (Estimator e : kAll) names.emplace_back(estimator_name(e));
  return names;
}

Estimator parse_estimator(std::string_view name) {
  for (Estimator e : kAll)
    if (estimator_name(e) == name) return e;
  throw std::invalid_argument("unknown estimator '" + std::string(name) +
                              "' (expected trig, positive, hyperbolic or smreg)");
}

RowNorms row_norms_for(Estimator e) { return e == Estimator::smreg ? RowNorms::sqrt_d : RowNorms::chi; }

Eigen::MatrixXd estimator_features(Estimator e, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w) {
  switch (e) {
    case Estimator::trig: return trig_features<double>(u, w);
    case Estimator::hyperbolic: return hyperbolic_features<double>(u, w);
    case Estimator::positive:
    case Estimator::smreg: return positive_features<double>(u, w);
  }
  throw std::logic_error("unhandled estimator");
}

Eigen::VectorXd estimate_kernel(Estimator e, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                const Eigen::MatrixXd& w) {
  return estimator_features(e, x, w).cwiseProduct(estimator_features(e, y, w)).rowwise().sum();
}

}  // namespace favorlab
