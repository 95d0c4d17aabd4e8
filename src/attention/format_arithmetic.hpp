#pragma once
// The arithmetic of the reduced-precision references (reduced_precision_favor.cpp, reduced_precision_exact.cpp):
// operands rounded to a format, products summed in float32 by a naive loop, and the classical bound γ_n on a sum.
#include <Eigen/Dense>

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

}  // namespace favorlab::format_arithmetic
