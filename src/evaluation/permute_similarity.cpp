#include "evaluation/permute_similarity.hpp"

#include <cmath>
#include <limits>

namespace favorlab {

namespace {

// Σ_a (P^s x)_a (P^t y)_a over the block of coordinates [from, from + π.size()).
double gathered_dot(const Eigen::VectorXd& x, const Eigen::VectorXd& y, const Permutation& pi, std::int64_t s,
                    std::int64_t t, int from) {
  const Permutation ps = pi.power(s), pt = pi.power(t);
  double sum = 0;
  for (int a = 0; a < pi.size(); ++a) sum += x(from + ps(a)) * y(from + pt(a));
  return sum;
}

}  // namespace

double absolute_similarity(const Eigen::VectorXd& phi_q, const Eigen::VectorXd& phi_k, const PermuteHead& head,
                           const PermuteLayout& layout, std::int64_t i, std::int64_t j) {
  const double decay = std::pow(head.r, static_cast<double>(i - j));
  if (!layout.two_d()) return decay * gathered_dot(phi_q, phi_k, head.pi, i, j, 0);
  const std::int64_t w = layout.width;
  return decay * (gathered_dot(phi_q, phi_k, head.pi, i % w, j % w, 0) +
                  gathered_dot(phi_q, phi_k, *head.pi_y, i / w, j / w, head.pi.size()));
}

double dot_rounding_bound(int n) {
  const double nu = n * std::numeric_limits<double>::epsilon() / 2;
  return nu / (1 - nu);
}

}  // namespace favorlab
