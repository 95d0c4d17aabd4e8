#pragma once
// What PermuteFormer adds to a FAVOR head (docs/theory.md#permuteformer): the permutation(s) of the feature
// coordinates, the decay r and the positions of the tokens.
//   1-D: token i sits at position i; q̃_i = r^i P_π^i φ(q_i), k̃_j = r^{−j} P_π^j φ(k_j), π on all m' feature columns.
//   2-D: token i = y·W + x sits at (x, y) of a W×H grid (row-major, W·H = L); the first m'/2 feature columns are
//        permuted by π_x^x and the last m'/2 by π_y^y (disjoint supports, so the two commute); m' must be even.
//        Causal 2-D attention masks and decays along the raster order i (r^{i−j}, j ≤ i).
// m' = feature_columns(config, d): m for positive/relu features, 2m for hyperbolic.
// r: 1 for bidirectional attention (any r < 1 would weight later keys by r^{i−j} > 1, without bound as L grows);
// 0 < r ≤ 1 for causal attention, where only j ≤ i meet and r^{i−j} ≤ 1.
// Features must be positive (positive, regularized, hyperbolic; relu, exp, sigmoid, abs with ε_k) so that every
// similarity is > 0 (PF property 3) and the normalizer Σ_j sim(i, j) cannot vanish or change sign.
#include <Eigen/Core>

#include <optional>

#include "attention/attention_config.hpp"
#include "perm/permutation.hpp"

namespace favorlab {

struct PermuteHead {
  Permutation pi;                   // 1-D: π on all feature columns; 2-D: π_x on the first half
  std::optional<Permutation> pi_y;  // 2-D only: π_y on the second half
  double r = 1.0;
};

struct PermuteLayout {
  Eigen::Index width = 0, height = 0;  // 0 × 0: 1-D positions; otherwise the W×H grid of a 2-D input
  bool two_d() const { return width > 0 || height > 0; }
  static PermuteLayout line() { return {}; }
  static PermuteLayout grid(Eigen::Index w, Eigen::Index h) { return {w, h}; }
};

// Throws std::invalid_argument naming the problem: features that can be negative; r outside (0, 1], or r ≠ 1 for
// bidirectional attention; a grid with W·H ≠ length or a non-positive side; an odd feature count in 2-D; a
// permutation of the wrong size, a missing or superfluous π_y.
void validate_permute_head(const AttentionConfig& config, int d, const PermuteHead& head, const PermuteLayout& layout,
                           Eigen::Index length);

// Whether every feature of this kind is > 0 (the kinds PermuteFormer accepts).
bool positive_feature_kind(Family kind);

}  // namespace favorlab
