#include "features/gerf_projection.hpp"

#include "kernels/gerf_moments.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {

void require_a(double a, const char* name) {
  if (!std::isfinite(a) || !(a < 0.125))
    throw std::invalid_argument(std::string(name) + " must be finite and below 1/8, got " + std::to_string(a));
}

// Σ_i exp(e_i) / m for the exponents of one pair's m feature products (the pair's estimate).
double mean_exp(const Eigen::ArrayXd& exponent) { return exponent.exp().mean(); }

}  // namespace

ShiftedProjection gerf_prepare(const Eigen::MatrixXd& w, const PairStatistics&, const FeatureParameters& params) {
  return gerf_projection(w, params.gerf_a);
}

ShiftedProjection oprf_prepare(const Eigen::MatrixXd& w, const PairStatistics& stats, const FeatureParameters&) {
  return gerf_projection(w, oprf_a_star(stats.mean_squared_norm(), static_cast<int>(w.cols())));
}

ShiftedProjection sderf_prepare(const Eigen::MatrixXd& w, const PairStatistics& stats, const FeatureParameters&) {
  return sderf_projection(w, stats.mean_outer_product());
}

PairGerf positive_pair_gerf(double, int d, const FeatureParameters&) { return {0.0, d}; }

PairGerf gerf_pair_gerf(double, int d, const FeatureParameters& params) {
  require_a(params.gerf_a, "the gerf parameter A");
  return {params.gerf_a, d};
}

PairGerf oprf_pair_gerf(double phi, int d, const FeatureParameters&) { return {oprf_a_star(phi, d), d}; }

PairGerf sderf_pair_gerf(double phi, int, const FeatureParameters&) { return {oprf_a_star(phi, 1), 1}; }

ShiftedProjection gerf_projection(const Eigen::MatrixXd& w, double a) {
  require_a(a, "the gerf parameter A");
  const double d = static_cast<double>(w.cols());
  ShiftedProjection s;
  s.w = std::sqrt(1 - 4 * a) * w;
  s.offset = (a * w.rowwise().squaredNorm().array() + d / 4 * std::log1p(-4 * a)).matrix();
  return s;
}

ShiftedProjection sderf_projection(const Eigen::MatrixXd& w, const Eigen::MatrixXd& m) {
  const Eigen::Index d = w.cols();
  if (m.rows() != d || m.cols() != d)
    throw std::invalid_argument("the sderf statistic M must be d×d (d = " + std::to_string(d) + ")");
  if (!m.allFinite()) throw std::invalid_argument("the sderf statistic M contains NaN or Inf");
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(m);
  if (eigen.info() != Eigen::Success) throw std::invalid_argument("the sderf statistic M has no eigendecomposition");
  Eigen::VectorXd a(d), root(d);
  double log_det = 0;  // log det(I − 4A)
  for (Eigen::Index l = 0; l < d; ++l) {
    // M is a mean of outer products, so λ ≥ 0 up to rounding; a tiny negative eigenvalue is treated as 0.
    const double lambda = std::max(eigen.eigenvalues()(l), 0.0);
    a(l) = oprf_a_star(lambda, 1);  // the d = 1 optimum at λ_l (as sderf_eigen_a, kernels/gerf_moments.hpp)
    root(l) = std::sqrt(1 - 4 * a(l));
    log_det += std::log1p(-4 * a(l));
  }
  const Eigen::MatrixXd& q = eigen.eigenvectors();
  const Eigen::MatrixXd rotated = w * q;  // row i: (Qᵀω_i)ᵀ
  ShiftedProjection s;
  s.w = (rotated * root.asDiagonal()) * q.transpose();  // rows (Bω_i)ᵀ = ω_iᵀ Q diag(√(1−4a)) Qᵀ
  s.offset = ((rotated.array().square().matrix() * a).array() + log_det / 4).matrix();
  return s;
}

Eigen::MatrixXd packed(const ShiftedProjection& s) {
  Eigen::MatrixXd out(s.w.rows(), s.w.cols() + 1);
  out << s.w, s.offset;
  return out;
}

Eigen::VectorXd oprf_pair_estimates(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::MatrixXd& w) {
  const double d = static_cast<double>(w.cols());
  const Eigen::MatrixXd proj = (x + y) * w.transpose();
  const Eigen::ArrayXd row_sq = w.rowwise().squaredNorm().array();
  Eigen::VectorXd out(x.rows());
  for (Eigen::Index p = 0; p < x.rows(); ++p) {
    const double a = oprf_a_star((x.row(p) + y.row(p)).squaredNorm(), w.cols());
    const double log_lambda = -(x.row(p).squaredNorm() + y.row(p).squaredNorm()) / 2;
    // f(ω, x) f(ω, y) = (1 − 4a)^{d/2} exp(2a‖ω‖² + √(1 − 4a) ωᵀ(x + y) − (‖x‖² + ‖y‖²)/2)
    out(p) = mean_exp(std::sqrt(1 - 4 * a) * proj.row(p).transpose().array() + 2 * a * row_sq +
                      d / 2 * std::log1p(-4 * a) + log_lambda);
  }
  return out;
}

Eigen::VectorXd sderf_pair_estimates(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::MatrixXd& w) {
  const Eigen::MatrixXd sum = x + y;
  const Eigen::MatrixXd proj = sum * w.transpose();
  Eigen::VectorXd out(x.rows());
  for (Eigen::Index p = 0; p < x.rows(); ++p) {
    const double norm = sum.row(p).norm();
    const double log_lambda = -(x.row(p).squaredNorm() + y.row(p).squaredNorm()) / 2;
    Eigen::ArrayXd exponent = proj.row(p).transpose().array() + log_lambda;
    if (norm > 0) {
      // M = zzᵀ has one eigenvalue φ = ‖z‖² along v = z/‖z‖ and 0 elsewhere, where a_l = 0: A = a vvᵀ,
      // B = I + (√(1 − 4a) − 1) vvᵀ, det(I − 4A) = 1 − 4a. With t_i = vᵀω_i:
      // f(ω_i, x) f(ω_i, y) = (1 − 4a)^{1/2} exp(ω_iᵀz + (√(1 − 4a) − 1) t_i ‖z‖ + 2a t_i² − (‖x‖² + ‖y‖²)/2).
      const double a = oprf_a_star(norm * norm, 1);
      const Eigen::ArrayXd t = (w * (sum.row(p).transpose() / norm)).array();
      exponent += (std::sqrt(1 - 4 * a) - 1) * norm * t + 2 * a * t.square() + std::log1p(-4 * a) / 2;
    }
    out(p) = mean_exp(exponent);
  }
  return out;
}

}  // namespace favorlab
