#include "attention/permute_reference.hpp"

#include <cmath>

#include "attention/attention_features.hpp"

namespace favorlab {

namespace {

// Σ_a x[a] y[from + π^δ(a)] over the `count` coordinates starting at `from`: xᵀ P_π^δ y on that block.
double permuted_dot(const Eigen::VectorXd& x, const Eigen::VectorXd& y, const Permutation& pi, std::int64_t delta,
                    int from) {
  const Permutation p = pi.power(delta);
  double sum = 0;
  for (int a = 0; a < p.size(); ++a) sum += x(from + a) * y(from + p(a));
  return sum;
}

}  // namespace

Eigen::MatrixXd explicit_permute_features(const Eigen::MatrixXd& x, const Eigen::MatrixXd& w,
                                          const AttentionConfig& config) {
  AttentionConfig plain = config;
  plain.stabilizer = false;
  return attention_features<double>(x / std::pow(static_cast<double>(x.cols()), 0.25), w, plain).values;
}

double reference_similarity(const Eigen::VectorXd& phi_q, const Eigen::VectorXd& phi_k, const PermuteHead& head,
                            const PermuteLayout& layout, Eigen::Index i, Eigen::Index j) {
  const double decay = std::pow(head.r, static_cast<double>(i - j));
  if (!layout.two_d()) return decay * permuted_dot(phi_q, phi_k, head.pi, j - i, 0);
  const Eigen::Index w = layout.width;
  const std::int64_t dx = j % w - i % w, dy = j / w - i / w;
  return decay * (permuted_dot(phi_q, phi_k, head.pi, dx, 0) + permuted_dot(phi_q, phi_k, *head.pi_y, dy, head.pi.size()));
}

Eigen::MatrixXd permute_similarity_matrix(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& w,
                                          const AttentionConfig& config, const PermuteHead& head,
                                          const PermuteLayout& layout, Eigen::Index first, Eigen::Index count) {
  const Eigen::MatrixXd fq = explicit_permute_features(q.middleRows(first, count), w, config);
  const Eigen::MatrixXd fk = explicit_permute_features(k, w, config);
  Eigen::MatrixXd sim = Eigen::MatrixXd::Zero(count, k.rows());
  for (Eigen::Index r = 0; r < count; ++r) {
    const Eigen::Index i = first + r;
    const Eigen::VectorXd phi_q = fq.row(r).transpose();
    const Eigen::Index last = config.causal ? i : k.rows() - 1;
    for (Eigen::Index j = 0; j <= last; ++j)
      sim(r, j) = reference_similarity(phi_q, fk.row(j).transpose(), head, layout, i, j);
  }
  return sim;
}

Eigen::MatrixXd permute_attention_reference(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                            const Eigen::MatrixXd& v, const Eigen::MatrixXd& w,
                                            const AttentionConfig& config, const PermuteHead& head,
                                            const PermuteLayout& layout, Eigen::Index first, Eigen::Index count) {
  const Eigen::MatrixXd sim = permute_similarity_matrix(q, k, w, config, head, layout, first, count);
  Eigen::MatrixXd out = sim * v;
  if (config.renormalize) out.array().colwise() /= sim.rowwise().sum().array();
  return out;
}

}  // namespace favorlab
