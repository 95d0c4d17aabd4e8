#include "attention/reduced_precision_favor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {

void require_favor_shapes(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                          const Eigen::MatrixXf& w) {
  const auto shape = [](const Eigen::MatrixXf& x) {
    return std::to_string(x.rows()) + " x " + std::to_string(x.cols());
  };
  if (q.cols() < 1 || w.rows() < 1 || k.rows() < 1)
    throw std::invalid_argument("reduced-precision FAVOR: q needs d >= 1 columns, w m >= 1 rows and k a row");
  if (k.cols() != q.cols()) throw std::invalid_argument("k is " + shape(k) + ", q " + shape(q) + ": d differs");
  if (w.cols() != q.cols()) throw std::invalid_argument("w is " + shape(w) + ", q " + shape(q) + ": d differs");
  if (v.rows() != k.rows()) throw std::invalid_argument("v is " + shape(v) + ", k " + shape(k) + ": L differs");
}

Eigen::MatrixXf rounded_to_format(const Eigen::MatrixXf& x, ProductPrecision p) {
  return x.unaryExpr([p](float e) { return round_to_precision(e, p); });
}

// a · bᵀ from operands already in the format, each sum in float32 (a naive loop: the reference, not the fast path).
Eigen::MatrixXf float32_product_abt(const Eigen::MatrixXf& a, const Eigen::MatrixXf& b) {
  Eigen::MatrixXf out(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.rows(); ++j) {
      float sum = 0;
      for (Eigen::Index c = 0; c < a.cols(); ++c) sum += a(i, c) * b(j, c);
      out(i, j) = sum;
    }
  return out;
}

// d^{-1/4} X in float32, as the engine scales its inputs.
Eigen::MatrixXf scaled_input(const Eigen::MatrixXf& x) {
  const auto s = static_cast<float>(1 / std::sqrt(std::sqrt(static_cast<double>(x.cols()))));
  return x * s;
}

// γ_n: the relative error bound of an n-term sum of one sign with unit roundoff u.
double sum_gamma(double n, double u) { return n * u / (1 - n * u); }

}  // namespace

FavorRounding rounding_of(ProductPrecision p) { return FavorRounding{unit_roundoff(p), 0x1p-24, 0x1p-22}; }

Eigen::MatrixXf favor_in_precision(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                   const Eigen::MatrixXf& w, ProductPrecision precision) {
  require_favor_shapes(q, k, v, w);
  const Eigen::MatrixXf qs = scaled_input(q), ks = scaled_input(k), wr = rounded_to_format(w, precision);
  Eigen::MatrixXf phi_q = float32_product_abt(rounded_to_format(qs, precision), wr);
  Eigen::MatrixXf phi_k = float32_product_abt(rounded_to_format(ks, precision), wr);
  // Queries: exp(p − the row's largest p); ‖q̃‖²/2 is common to the row and cancels in the ratio.
  for (Eigen::Index i = 0; i < phi_q.rows(); ++i) {
    const float top = phi_q.row(i).maxCoeff();
    for (Eigen::Index a = 0; a < phi_q.cols(); ++a)
      phi_q(i, a) = round_to_precision(std::exp(phi_q(i, a) - top), precision);
  }
  // Keys: exp(p − ‖k̃‖²/2 − the largest such exponent over all keys).
  for (Eigen::Index j = 0; j < phi_k.rows(); ++j) phi_k.row(j).array() -= 0.5f * ks.row(j).squaredNorm();
  const float top = phi_k.maxCoeff();
  phi_k = phi_k.unaryExpr([&](float x) { return round_to_precision(std::exp(x - top), precision); });
  const Eigen::Index dv = v.cols(), m = w.rows();
  Eigen::MatrixXf values(v.rows(), dv + 1);
  values << rounded_to_format(v, precision), Eigen::VectorXf::Ones(v.rows());
  // State S = Φ_Kᵀ [V, 1] (m × (d_v + 1)), then rounded for the read-out Φ_Q S.
  Eigen::MatrixXf state(m, dv + 1);
  for (Eigen::Index a = 0; a < m; ++a)
    for (Eigen::Index c = 0; c <= dv; ++c) {
      float sum = 0;
      for (Eigen::Index j = 0; j < values.rows(); ++j) sum += phi_k(j, a) * values(j, c);
      state(a, c) = round_to_precision(sum, precision);
    }
  const Eigen::MatrixXf numerators = float32_product_abt(phi_q, state.transpose());
  Eigen::MatrixXf out(q.rows(), dv);
  for (Eigen::Index i = 0; i < q.rows(); ++i)
    for (Eigen::Index c = 0; c < dv; ++c) out(i, c) = numerators(i, c) / numerators(i, dv);
  return out;
}

Eigen::MatrixXd favor_precision_bound(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                      const Eigen::MatrixXf& w, const FavorRounding& r) {
  require_favor_shapes(q, k, v, w);
  const double d = static_cast<double>(q.cols()), lk = static_cast<double>(k.rows());
  const double m = static_cast<double>(w.rows()), u = r.operand, e = r.arithmetic;
  const double inf = std::numeric_limits<double>::infinity();
  const double scale = 1 / std::sqrt(std::sqrt(d));
  const Eigen::MatrixXd qs = q.cast<double>() * scale, ks = k.cast<double>() * scale, wd = w.cast<double>();
  // Projections and their magnitudes Σ_c |x̃_c||w_ac| (the scale of each projection's rounding error).
  const Eigen::MatrixXd pq = qs * wd.transpose(), pk = ks * wd.transpose();
  const Eigen::MatrixXd sq = qs.cwiseAbs() * wd.cwiseAbs().transpose(), sk = ks.cwiseAbs() * wd.cwiseAbs().transpose();
  const double theta = (1 + u) * (1 + u) * (1 + sum_gamma(d + 5, e)) - 1;
  const auto relative = [&](double tau) { return std::exp(tau) * (1 + r.exp) * (1 + u) - 1; };
  // Keys: exponent errors, then the largest relative feature error ρ_K over all keys.
  const Eigen::VectorXd half_norm = 0.5 * ks.rowwise().squaredNorm();
  const Eigen::VectorXd key_size = (pk.cwiseAbs() + sk).rowwise().maxCoeff();
  const double c_size = (key_size + 2 * half_norm).maxCoeff();
  double tau_k = 0;
  for (Eigen::Index j = 0; j < k.rows(); ++j)
    tau_k = std::max(tau_k, theta * sk.row(j).maxCoeff() + sum_gamma(d + 5, e) * half_norm(j) +
                                2 * e * (key_size(j) + 2 * half_norm(j) + c_size));
  const double rho_k = relative(tau_k);
  // Exact stabilized features (the reference's scale), for D_i and the weights a_ij.
  const Eigen::MatrixXd log_k = pk.colwise() - half_norm;
  const Eigen::MatrixXd phi_k = (log_k.array() - log_k.maxCoeff()).exp().matrix();
  const double omega = 0x1p-126;  // a feature below float's normal range: absolute error at most this
  const double chain = sum_gamma(lk + m + 2, e);
  Eigen::MatrixXd out(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const double size = (pq.row(i).cwiseAbs() + sq.row(i)).maxCoeff();
    const double tau_q = theta * sq.row(i).maxCoeff() + 2 * e * size;
    if (std::max(tau_q, tau_k) > 0.3) {
      out.row(i).setConstant(inf);
      continue;
    }
    const double rho_q = relative(tau_q);
    const double eta_d = (1 + rho_q) * (1 + rho_k) * (1 + u) * (1 + chain) - 1;
    const double eta_n = (1 + rho_q) * (1 + rho_k) * (1 + u) * (1 + u) * (1 + chain) - 1;
    const Eigen::RowVectorXd phi_q = (pq.row(i).array() - pq.row(i).maxCoeff()).exp().matrix();
    const Eigen::VectorXd s = phi_k * phi_q.transpose();  // s_ij > 0 for every key j
    const double denominator = s.sum();
    const double eps_d = 4 * omega * lk * m * (1 + rho_q) * (1 + rho_k) * (1 + u) * (1 + u) * (1 + chain);
    const double shrink = 1 - eta_d - 2 * eps_d / denominator;
    for (Eigen::Index c = 0; c < v.cols(); ++c) {
      if (!(shrink > 0)) {
        out(i, c) = inf;
        continue;
      }
      const Eigen::VectorXd magnitudes = v.col(c).cast<double>().cwiseAbs();
      const double a = s.dot(magnitudes) / denominator;  // Σ_j a_ij |v_jc|
      const double eps_n = eps_d * (1 + u) * magnitudes.maxCoeff();
      out(i, c) = ((eta_n + eta_d + e * (1 + eta_n)) * a + (1 + e) * 2 * (eps_n + a * eps_d) / denominator) / shrink;
    }
  }
  return out;
}

}  // namespace favorlab
