#pragma once
// PermuteFormer's properties checked point by point on sampled position pairs, for one draw of (φ(q), φ(k), π, π_x,
// π_y) (docs/theory.md#permuteformer-properties). Every similarity is absolute_similarity (permute_similarity.hpp),
// formed from absolute positions as the mechanism forms it; tol = 2γ_{m'+1} (dot_rounding_bound, m' features):
//   P1 shift: |sim(i+t, j+t) − sim(i, j)| ≤ tol·max of the two, the same φ(q), φ(k) at the shifted positions — 1-D
//      (i, j, t from spread_positions(positions/2)) and 2-D (grid points and shifts (0|1|W/3, 0|1|H/2) inside the
//      grid), bidirectional (r = 1) and causal (r = grid.r, j ≤ i only).
//   P2 (a): sim ≤ ‖φq‖‖φk‖ up to 1 + 2γ_{m'+2}, and P3: sim > 0, at the 1-D pairs moved by 0, longest/2 and up to
//      longest − 1; P3 also at every shifted 2-D pair.
//   Period (bidirectional, 1-D, base position 123): offsets δ and δ + order(π) give sims within tol, and offsets
//      below min(order, 2³⁰, offsets) give pairwise different sims (smallest relative gap between the sorted sims
//      above tol) — for order_sixty_permutation(m') and for the draw's π.
//   Row wrap (bidirectional, at the grid centre row): (W−1, y) → (0, y+1) against (x, y) → (x+1, y); the 2-D
//      encoding tells them apart (relative gap > tol), the flattened 1-D one does not (gap ≤ tol).
// Each point's badness goes into a CountedCheck (stats/counted_check.hpp): > 1 is a violation.
#include <Eigen/Core>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attention/permute_config.hpp"
#include "perm/permutation.hpp"
#include "stats/counted_check.hpp"

namespace favorlab {

// Where the properties are sampled.
struct PermutePropertyGrid {
  std::int64_t positions = 8;          // 1-D base positions and shifts: spread_positions(positions / 2); ≥ 2
  std::int64_t longest = 8;            // far pairs reach position longest − 1; ≥ positions
  std::int64_t width = 2, height = 2;  // the 2-D grid; sides ≥ 2
  std::int64_t offsets = 2;            // offsets tested below the order; ≥ 2
  double r = 1;                        // decay of the causal mode, in (0, 1]
};

// One draw.
struct PermuteDraw {
  Eigen::VectorXd phi_q, phi_k;  // the features of a query and a key content, m' each (explicit_permute_features)
  Permutation pi, pi_x, pi_y;    // π on m' columns (1-D); π_x, π_y on m'/2 each (2-D)
  std::string label;             // the start of every point label ("positive, draw 3, ")
};

struct PermutePropertyTallies {
  CountedCheck shift[2][2];                          // P1, [1-D, 2-D][bidirectional, causal]
  CountedCheck bound, positive;                      // P2 (a), P3
  CountedCheck period_equal[2], period_distinct[2];  // [order_sixty_permutation, the draw's π]
  CountedCheck wrap_2d, wrap_1d;
  double min_sim = std::numeric_limits<double>::infinity();  // over the P3 points
  double max_norm_ratio = 0;                                 // max sim/(‖φq‖‖φk‖) over the P2 (a) points
};

// The row wrap of one draw: the four sims and the relative gaps |wrap − unit| / max(wrap, unit).
struct RowWrap {
  std::int64_t x = 0, y = 0;  // the unit step starts at (x, y) = (W/2, H/2); the wrap at (W−1, y)
  double wrap_2d = 0, unit_2d = 0, wrap_1d = 0, unit_1d = 0, gap_2d = 0, gap_1d = 0;
};

// The base position of the period offsets: pairs (123, 123 + δ).
inline constexpr std::int64_t kPeriodBase = 123;

// 0, 1, 2, 3, then v → 3v − 1 while ≤ top, then top itself (for top > 0).
std::vector<std::int64_t> spread_positions(std::int64_t top);

// tol = 2γ_{m'+1}: two orders of summing the same m' positive products (the same r^{i−j} factor) differ by less.
double permute_similarity_tolerance(int columns);

// Adds every point of one draw to `tallies` and returns its row wrap. Throws std::invalid_argument naming the
// problem: feature vectors of different sizes, permutations that do not fit m' (π) or m'/2 (π_x, π_y; m' odd), a
// grid field outside its range.
RowWrap add_permute_properties(const PermuteDraw& draw, const PermutePropertyGrid& grid,
                               PermutePropertyTallies& tallies);

}  // namespace favorlab
