#pragma once
// FAVOR+ and softmax attention in long double, and the entry-by-entry check against a rounding bound, shared by the
// reduced-precision tests on the CPU (test_reduced_precision_favor.cpp, test_reduced_precision_exact.cpp) and on the
// GPU (test_product_gemm.cpp, test_cudnn_attention.cpp).
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "attention/reduced_precision_favor.hpp"

namespace favorlab::test {

using LongMatrix = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;

// FAVOR+ written out in long double, with the exact maxima as stabilizers (they cancel in exact arithmetic); causal:
// query i sums keys 0 … i.
inline Eigen::MatrixXd favor_long_double(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                         const Eigen::MatrixXf& w, bool causal = false) {
  const long double scale = 1 / std::sqrt(std::sqrt(static_cast<long double>(q.cols())));
  const LongMatrix qs = q.cast<long double>() * scale, ks = k.cast<long double>() * scale;
  const LongMatrix wl = w.cast<long double>();
  LongMatrix pq = qs * wl.transpose(), pk = ks * wl.transpose();
  for (Eigen::Index j = 0; j < pk.rows(); ++j) pk.row(j).array() -= ks.row(j).squaredNorm() / 2;
  const LongMatrix phi_k = (pk.array() - pk.maxCoeff()).exp().matrix();
  Eigen::MatrixXd out(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const Eigen::Matrix<long double, 1, Eigen::Dynamic> phi_q = (pq.row(i).array() - pq.row(i).maxCoeff()).exp();
    const Eigen::Index keys = causal ? i + 1 : phi_k.rows();
    const Eigen::Matrix<long double, Eigen::Dynamic, 1> s = phi_k.topRows(keys) * phi_q.transpose();
    const LongMatrix numerators = s.transpose() * v.topRows(keys).cast<long double>();
    for (Eigen::Index c = 0; c < v.cols(); ++c) out(i, c) = static_cast<double>(numerators(0, c) / s.sum());
  }
  return out;
}

// Softmax attention written out in long double; causal: query i takes keys 0 … i.
inline Eigen::MatrixXd exact_long_double(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                         bool causal = false) {
  const LongMatrix logits = q.cast<long double>() * k.cast<long double>().transpose() /
                            std::sqrt(static_cast<long double>(q.cols()));
  Eigen::MatrixXd out(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const Eigen::Index keys = causal ? i + 1 : k.rows();
    const auto row = logits.row(i).head(keys);
    const Eigen::Matrix<long double, 1, Eigen::Dynamic> weights = (row.array() - row.maxCoeff()).exp();
    const LongMatrix numerators = weights * v.topRows(keys).cast<long double>();
    for (Eigen::Index c = 0; c < v.cols(); ++c) out(i, c) = static_cast<double>(numerators(0, c) / weights.sum());
  }
  return out;
}

struct PrecisionHead {
  Eigen::MatrixXf q, k, v, w;
};

// One head of Gaussian Q, K (scale input_scale) and V (8 columns), W from the engine's draw (orthogonal, m rows).
inline PrecisionHead random_precision_head(int l, int d, int m, double input_scale, std::uint64_t seed) {
  AttentionConfig config;
  config.m = m;
  return PrecisionHead{gaussian_input(l, d, input_scale, seed, 1, 0).cast<float>(),
                       gaussian_input(l, d, input_scale, seed, 2, 0).cast<float>(),
                       gaussian_input(l, 8, 1.0, seed, 3, 0).cast<float>(),
                       draw_attention_projection(config, d, seed, 0).cast<float>()};
}

// Entries where |computed − reference| exceeds the bound plus the long-double reference's own bound.
inline Eigen::Index outside(const Eigen::MatrixXf& computed, const Eigen::MatrixXd& reference,
                            const Eigen::MatrixXd& bound, const Eigen::MatrixXd& reference_bound,
                            double* worst_ratio = nullptr) {
  Eigen::Index count = 0;
  double worst = 0;
  for (Eigen::Index i = 0; i < computed.rows(); ++i)
    for (Eigen::Index c = 0; c < computed.cols(); ++c) {
      const double error = std::abs(static_cast<double>(computed(i, c)) - reference(i, c));
      const double allowed = bound(i, c) + reference_bound(i, c);
      worst = std::max(worst, error / allowed);
      if (error > allowed) ++count;
    }
  if (worst_ratio != nullptr) *worst_ratio = worst;
  return count;
}

// The long-double reference's own rounding, in the bound's terms.
inline const ProductRounding kLongDoubleRounding{0x1p-64, 0x1p-64, 0x1p-63};

}  // namespace favorlab::test
