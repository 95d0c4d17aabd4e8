#include "attention/prepared_projection.hpp"

#include <cmath>
#include <stdexcept>

#include "features/gerf_projection.hpp"
#include "kernels/gerf_moments.hpp"

namespace favorlab {

bool needs_prepared_projection(const AttentionConfig& config) {
  return config.mechanism == Mechanism::favor && family_info(config.features).map == FeatureMapCode::shifted_positive;
}

template <class T>
Matrix<T> prepared_projection(const Matrix<T>& q, const Matrix<T>& k, const Eigen::MatrixXd& w,
                              const AttentionConfig& config) {
  const Eigen::Index d = w.cols();
  const double input_scale = 1 / std::sqrt(std::sqrt(static_cast<double>(d)));  // as attention_features_of_rows
  ShiftedProjection s;
  switch (config.features) {
    case Family::gerf: s = gerf_projection(w, config.parameters.gerf_a); break;
    case Family::oprf: {
      const double phi = pair_mean_squared_norm(q.template cast<double>() * input_scale,
                                                k.template cast<double>() * input_scale);
      s = gerf_projection(w, oprf_a_star(phi, static_cast<int>(d)));
      break;
    }
    case Family::sderf:
      s = sderf_projection(w, pair_mean_outer_product(q.template cast<double>() * input_scale,
                                                      k.template cast<double>() * input_scale));
      break;
    default: throw std::logic_error("prepared_projection: the family has no prepared projection");
  }
  Matrix<T> out(w.rows(), d + 1);
  out.leftCols(d) = s.w.cast<T>();
  out.col(d) = s.offset.cast<T>();
  return out;
}

template Matrix<float> prepared_projection(const Matrix<float>&, const Matrix<float>&, const Eigen::MatrixXd&,
                                           const AttentionConfig&);
template Matrix<double> prepared_projection(const Matrix<double>&, const Matrix<double>&, const Eigen::MatrixXd&,
                                            const AttentionConfig&);

}  // namespace favorlab
