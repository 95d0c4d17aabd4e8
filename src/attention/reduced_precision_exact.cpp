#include "attention/reduced_precision_exact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/format_arithmetic.hpp"

namespace favorlab {

using namespace format_arithmetic;

namespace {

void require_exact_shapes(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v, bool causal,
                          int rescales) {
  const auto shape = [](const Eigen::MatrixXf& x) {
    return std::to_string(x.rows()) + " x " + std::to_string(x.cols());
  };
  if (q.cols() < 1 || k.rows() < 1) throw std::invalid_argument("reduced-precision exact: q needs d >= 1, k a row");
  if (k.cols() != q.cols()) throw std::invalid_argument("k is " + shape(k) + ", q " + shape(q) + ": d differs");
  if (v.rows() != k.rows()) throw std::invalid_argument("v is " + shape(v) + ", k " + shape(k) + ": L differs");
  if (causal && q.rows() != k.rows())
    throw std::invalid_argument("causal: q is " + shape(q) + ", k " + shape(k) + ": one row per position");
  if (rescales < 0) throw std::invalid_argument("rescales must be >= 0, got " + std::to_string(rescales));
}

}  // namespace

Eigen::MatrixXf exact_in_precision(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                   ProductPrecision p, bool causal) {
  require_exact_shapes(q, k, v, causal, 0);
  const auto scale = static_cast<float>(1 / std::sqrt(static_cast<double>(q.cols())));
  const Eigen::MatrixXf logits = float32_product_abt(rounded_to_format(q, p), rounded_to_format(k, p)) * scale;
  const Eigen::MatrixXf values = rounded_to_format(v, p);
  Eigen::MatrixXf out(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const Eigen::Index keys = causal ? i + 1 : k.rows();
    const float top = logits.row(i).head(keys).maxCoeff();
    float sum = 0;
    Eigen::RowVectorXf weights(keys);
    for (Eigen::Index j = 0; j < keys; ++j) {
      const float e = std::exp(logits(i, j) - top);
      sum += e;
      weights(j) = round_to_precision(e, p);
    }
    for (Eigen::Index c = 0; c < v.cols(); ++c) {
      float numerator = 0;
      for (Eigen::Index j = 0; j < keys; ++j) numerator += weights(j) * values(j, c);
      out(i, c) = round_to_precision(numerator / sum, p);
    }
  }
  return out;
}

Eigen::MatrixXd exact_precision_bound(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                      const ProductRounding& r, bool causal, int rescales) {
  require_exact_shapes(q, k, v, causal, rescales);
  const double d = static_cast<double>(q.cols()), u = r.operand, e = r.arithmetic;
  const double inf = std::numeric_limits<double>::infinity(), omega = 0x1p-126;
  const double scale = 1 / std::sqrt(d);
  const Eigen::MatrixXd qd = q.cast<double>(), kd = k.cast<double>();
  const Eigen::MatrixXd logits = qd * kd.transpose() * scale;
  const Eigen::MatrixXd sizes = qd.cwiseAbs() * kd.cwiseAbs().transpose() * scale;  // Σ_a |q_a||k_a| / √d
  // A logit's error: both operands rounded, the float32 sum of d products, the scaling.
  const double theta = (1 + u) * (1 + u) * (1 + sum_gamma(d, e)) * (1 + e) - 1;
  Eigen::MatrixXd out(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const Eigen::Index keys = causal ? i + 1 : k.rows();
    const auto row = logits.row(i).head(keys);
    const double top = row.maxCoeff();
    const double reach = (row.cwiseAbs() + theta * sizes.row(i).head(keys)).maxCoeff();
    // Exponent error of a term relative to the row's common factor: the logit's own, and the rounded subtraction of
    // the running maximum at the start and at each rescale (each at most 2·reach in size).
    const double tau = theta * sizes.row(i).head(keys).maxCoeff() + 2 * e * reach * (1 + rescales);
    if (tau > 0.3) {
      out.row(i).setConstant(inf);
      continue;
    }
    const double n = static_cast<double>(keys);
    const double terms = std::exp(tau) * (1 + r.exp) * (1 + u) * std::pow((1 + r.exp) * (1 + e), rescales);
    const double sums = 1 + sum_gamma(n + rescales + 1, e);
    const double eta_d = terms * sums - 1, eta_n = terms * (1 + u) * sums - 1;
    const Eigen::VectorXd weights = (row.array() - top).exp().matrix().transpose();  // exact; their sum D ≥ 1
    const double eps_d = 2 * omega * n * terms * sums;  // weights below float's normal range: absolute
    const Eigen::RowVectorXd before_store =
        ratio_bound_row(weights, v.topRows(keys), eta_n, eta_d, eps_d, 1.0, u, e);
    // The output stored in the format: u times |o| ≤ Σ_j a_ij |v_jc| plus the error before it.
    const Eigen::RowVectorXd attended =
        (weights.transpose() * v.topRows(keys).cast<double>().cwiseAbs()) / weights.sum();
    out.row(i) = before_store + u * (attended + before_store);
  }
  return out;
}

}  // namespace favorlab
