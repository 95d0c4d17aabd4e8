#pragma once
// One PermuteFormer similarity formed the way the linear mechanism forms it, from *absolute* positions:
//   sim(i, j) = r^{i−j} (P^{pos i} φq)ᵀ (P^{pos j} φk),   (P^t x)_a = x_{π^t(a)}
// (2-D: pos i = (i mod W, i div W), π_x on the first half, π_y on the second). The powers come from
// Permutation::power, so any position works (no table). PF's properties are statements about this quantity:
// it depends on i − j only (1), is bounded by ‖φq‖‖φk‖ for j ≤ i (2), is > 0 (3). The quadratic reference
// (permute_reference.hpp) forms the same number from the relative power P^{j−i}.
// i, j ≥ 0; the caller applies the causal mask (r^{i−j} > 1 when j > i and r < 1).
#include <Eigen/Core>

#include <cstdint>

#include "attention/permute_config.hpp"

namespace favorlab {

double absolute_similarity(const Eigen::VectorXd& phi_q, const Eigen::VectorXd& phi_k, const PermuteHead& head,
                           const PermuteLayout& layout, std::int64_t i, std::int64_t j);

// γ_n = n·u/(1 − n·u), u = 2^{−53} (double): |fl(Σ_a x_a y_a) − Σ_a x_a y_a| ≤ γ_n Σ_a |x_a y_a| for a sum of n
// products in any order (Higham, Accuracy and Stability, eq. 3.5). For positive features Σ|x_a y_a| is the sum
// itself, so two orderings of the same n products differ by at most 2γ_n times the value.
double dot_rounding_bound(int n);

}  // namespace favorlab
