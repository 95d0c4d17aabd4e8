#pragma once
// Structured orthogonal projections (Performers paper, section B.2; docs/theory.md#structured-projections). Both kinds
// stack independent blocks of ≤ d rows, like orthogonal_projection: block b supplies rows b·d … b·d + d − 1 of W, the
// last block only its first m − b·d rows. Inside a block the rows are orthogonal.
//   hadamard: block = √d · H D₁ H D₂ H D₃ (SORF), H the normalized Walsh–Hadamard matrix (walsh_hadamard.hpp),
//             D_i independent diagonals of random signs ±1. d must be a power of 2.
//   givens:   block = √d · G_K ⋯ G_1, K = d·⌈log₂ d⌉ random Givens rotations; rotation k turns the plane of a
//             uniformly random coordinate pair (i ≠ j) by a uniform angle in [0, 2π). d = 1 has no rotations.
// Row norms (RowNorms): sqrt_d keeps the block's norm √d; chi multiplies each row by an independent chi_d / √d, so
// each row's norm is chi_d as for a Gaussian row (the direction is still not uniform on the sphere: the law of the
// directions is what makes the estimators biased for small d).
// Two ways to use one draw: dense() materializes W (m × d) for code that takes a dense W; apply(X) computes W X for
// a d × n batch of column vectors in O(n·m/d·d log d) without forming W. They agree to rounding.
// Randomness: only from the PhiloxStream passed to draw; the same stream state gives the same W.
#include <Eigen/Dense>

#include <vector>

#include "features/projection.hpp"
#include "rng/philox_stream.hpp"

namespace favorlab {

class HadamardProjection {
 public:
  // Throws std::invalid_argument when m ≤ 0, d ≤ 0 or d is not a power of 2 (the message names d).
  static HadamardProjection draw(int m, int d, RowNorms norms, PhiloxStream& rng);
  int rows() const { return m_; }
  int cols() const { return d_; }
  Eigen::MatrixXd dense() const;
  Eigen::MatrixXd apply(const Eigen::MatrixXd& x) const;  // x: d × n; returns m × n

 private:
  int m_ = 0, d_ = 0;
  std::vector<Eigen::VectorXd> signs_;  // per block: D₁, D₂, D₃ as ±1 vectors, 3 per block
  Eigen::VectorXd row_scale_;           // per row of W: √d (sqrt_d) or its chi_d norm
};

class GivensProjection {
 public:
  // Throws std::invalid_argument when m ≤ 0 or d ≤ 0.
  static GivensProjection draw(int m, int d, RowNorms norms, PhiloxStream& rng);
  static int rotations_per_block(int d);  // d·⌈log₂ d⌉
  int rows() const { return m_; }
  int cols() const { return d_; }
  Eigen::MatrixXd dense() const;
  Eigen::MatrixXd apply(const Eigen::MatrixXd& x) const;  // x: d × n; returns m × n

 private:
  struct Rotation {
    int i, j;
    double c, s;  // (v_i, v_j) ← (c v_i − s v_j, s v_i + c v_j)
  };
  int m_ = 0, d_ = 0;
  std::vector<std::vector<Rotation>> blocks_;  // applied first to last
  Eigen::VectorXd row_scale_;
};

}  // namespace favorlab
