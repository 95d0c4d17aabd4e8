#pragma once
// The arithmetic of the reduced-precision references (reduced_precision_favor.cpp, reduced_precision_exact.cpp):
// operands rounded to a format, products summed in float32 by a naive loop, and the classical bound γ_n on a sum.
#include <Eigen/Dense>

#include <limits>

#include "attention/product_precision.hpp"

namespace favorlab::format_arithmetic {

inline Eigen::MatrixXf rounded_to_format(const Eigen::MatrixXf& x, ProductPrecision p) {
  return x.unaryExpr([p](float e) { return round_to_precision(e, p); });
}

// a · bᵀ from operands already in the format, each sum in float32 (a naive loop: the reference, not the fast path).
inline Eigen::MatrixXf float32_product_abt(const Eigen::MatrixXf& a, const Eigen::MatrixXf& b) {
  Eigen::MatrixXf out(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.rows(); ++j) {
      float sum = 0;
      for (Eigen::Index c = 0; c < a.cols(); ++c) sum += a(i, c) * b(j, c);
      out(i, j) = sum;
    }
  return out;
}

// γ_n: the relative error bound of an n-term sum of one sign with unit roundoff u.
inline double sum_gamma(double n, double u) { return n * u / (1 - n * u); }

// The ratio step of both bounds (docs/theory.md#favor-in-reduced-precision, step 5): one output row's bound on
// |N̂_c/D̂ − N_c/D| from the chains' relative errors η_N and η_D, the absolute error eps_d of the denominator
// D = scale·Σ_j weights_j (weights ≥ 0, the exact terms of the row), the values v (one row per weight) and the
// float32 unit roundoff e of the division. +∞ where the denominator's error could reach it.
inline Eigen::RowVectorXd ratio_bound_row(const Eigen::VectorXd& weights, const Eigen::MatrixXf& v, double eta_n,
                                          double eta_d, double eps_d, double scale, double u, double e) {
  const double denominator = weights.sum() * scale;
  const double shrink = 1 - eta_d - 2 * eps_d / denominator;
  Eigen::RowVectorXd out(v.cols());
  for (Eigen::Index c = 0; c < v.cols(); ++c) {
    if (!(shrink > 0)) {
      out(c) = std::numeric_limits<double>::infinity();
      continue;
    }
    const Eigen::VectorXd magnitudes = v.col(c).cast<double>().cwiseAbs();
    const double a = weights.dot(magnitudes) / weights.sum();  // Σ_j a_j |v_jc|
    const double eps_n = eps_d * (1 + u) * magnitudes.maxCoeff();
    out(c) = ((eta_n + eta_d + e * (1 + eta_n)) * a + (1 + e) * 2 * (eps_n + a * eps_d) / denominator) / shrink;
  }
  return out;
}

}  // namespace favorlab::format_arithmetic
