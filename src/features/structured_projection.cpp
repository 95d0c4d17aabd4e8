#include "features/structured_projection.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "features/walsh_hadamard.hpp"

namespace favorlab {

namespace {

int blocks_for(int m, int d) { return (m + d - 1) / d; }

// Per-row norms: √d for sqrt_d; for chi the norm of an independent N(0, I_d) vector.
Eigen::VectorXd draw_row_scale(int m, int d, RowNorms norms, PhiloxStream& rng) {
  Eigen::VectorXd scale = Eigen::VectorXd::Constant(m, std::sqrt(static_cast<double>(d)));
  if (norms == RowNorms::chi)
    for (int r = 0; r < m; ++r) scale(r) = chi_variate(d, rng);
  return scale;
}

// A uniform index in [0, n): the modulo bias of 64 random bits is below 2^-50 for the n used here.
int uniform_index(int n, PhiloxStream& rng) { return static_cast<int>(rng.bits() % static_cast<std::uint64_t>(n)); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Hadamard

HadamardProjection HadamardProjection::draw(int m, int d, RowNorms norms, PhiloxStream& rng) {
  require_projection_shape(m, d);
  if (!is_power_of_two(d))
    throw std::invalid_argument("hadamard projections need d to be a power of 2, got d=" + std::to_string(d));
  HadamardProjection p;
  p.m_ = m;
  p.d_ = d;
  const int blocks = blocks_for(m, d);
  for (int b = 0; b < 3 * blocks; ++b) {
    Eigen::VectorXd s(d);
    for (int k = 0; k < d; ++k) s(k) = (rng.bits() >> 63) != 0 ? 1.0 : -1.0;
    p.signs_.push_back(std::move(s));
  }
  p.row_scale_ = draw_row_scale(m, d, norms, rng);
  return p;
}

Eigen::MatrixXd HadamardProjection::apply(const Eigen::MatrixXd& x) const {
  if (x.rows() != d_)
    throw std::invalid_argument("hadamard apply: input has " + std::to_string(x.rows()) + " rows, expected d=" +
                                std::to_string(d_));
  Eigen::MatrixXd out(m_, x.cols());
  for (int start = 0, b = 0; start < m_; start += d_, ++b) {
    const int rows = std::min(d_, m_ - start);
    const Eigen::VectorXd &d1 = signs_[3 * b], &d2 = signs_[3 * b + 1], &d3 = signs_[3 * b + 2];
    // The rightmost factor acts first: y = H D₁ H D₂ H D₃ x, each column (one vector) transformed in place.
    Eigen::MatrixXd y = d3.asDiagonal() * x;
    for (Eigen::Index col = 0; col < y.cols(); ++col) {
      auto v = y.col(col);
      fwht(v);
      v.array() *= d2.array();
      fwht(v);
      v.array() *= d1.array();
      fwht(v);
    }
    // y = B x / √d, and B's rows have norm √d: multiplying by row_scale_ = √d (or the drawn chi norm) gives each
    // row its norm.
    out.middleRows(start, rows) = row_scale_.segment(start, rows).asDiagonal() * y.topRows(rows);
  }
  return out;
}

Eigen::MatrixXd HadamardProjection::dense() const {
  // Row r of block B = √d H D₁ H D₂ H D₃ is Bᵀ e_r = √d D₃ H D₂ H D₁ H e_r (H is symmetric): the transposed chain,
  // a different order of operations from apply(), which makes apply-vs-dense a real check of both.
  Eigen::MatrixXd w(m_, d_);
  Eigen::VectorXd v(d_);
  for (int start = 0, b = 0; start < m_; start += d_, ++b) {
    const int rows = std::min(d_, m_ - start);
    const Eigen::VectorXd &d1 = signs_[3 * b], &d2 = signs_[3 * b + 1], &d3 = signs_[3 * b + 2];
    for (int r = 0; r < rows; ++r) {
      v.setZero();
      v(r) = 1;
      fwht(v);
      v.array() *= d1.array();
      fwht(v);
      v.array() *= d2.array();
      fwht(v);
      v.array() *= d3.array();
      w.row(start + r) = v.transpose() * row_scale_(start + r);
    }
  }
  return w;
}

// ---------------------------------------------------------------------------------------------------------------
// Givens

int GivensProjection::rotations_per_block(int d) {
  int log2 = 0;
  while ((1LL << log2) < d) ++log2;
  return d * log2;
}

GivensProjection GivensProjection::draw(int m, int d, RowNorms norms, PhiloxStream& rng) {
  require_projection_shape(m, d);
  GivensProjection p;
  p.m_ = m;
  p.d_ = d;
  const int blocks = blocks_for(m, d), k = d > 1 ? rotations_per_block(d) : 0;
  for (int b = 0; b < blocks; ++b) {
    std::vector<Rotation> rot;
    rot.reserve(static_cast<std::size_t>(k));
    for (int t = 0; t < k; ++t) {
      const int i = uniform_index(d, rng);
      int j = uniform_index(d - 1, rng);
      if (j >= i) ++j;  // uniform over the d − 1 indices other than i
      const double angle = 2.0 * std::numbers::pi * rng.uniform();
      rot.push_back({i, j, std::cos(angle), std::sin(angle)});
    }
    p.blocks_.push_back(std::move(rot));
  }
  p.row_scale_ = draw_row_scale(m, d, norms, rng);
  return p;
}

Eigen::MatrixXd GivensProjection::apply(const Eigen::MatrixXd& x) const {
  if (x.rows() != d_)
    throw std::invalid_argument("givens apply: input has " + std::to_string(x.rows()) + " rows, expected d=" +
                                std::to_string(d_));
  Eigen::MatrixXd out(m_, x.cols());
  for (int start = 0, b = 0; start < m_; start += d_, ++b) {
    const int rows = std::min(d_, m_ - start);
    Eigen::MatrixXd y = x;  // rotated in place, one contiguous column (vector) at a time
    for (Eigen::Index col = 0; col < y.cols(); ++col) {
      double* v = y.col(col).data();
      for (const Rotation& g : blocks_[static_cast<std::size_t>(b)]) {
        const double a = v[g.i], c = v[g.j];
        v[g.i] = g.c * a - g.s * c;
        v[g.j] = g.s * a + g.c * c;
      }
    }
    // The product of rotations is orthogonal (unit rows); row_scale_ gives each row its drawn norm.
    out.middleRows(start, rows) = row_scale_.segment(start, rows).asDiagonal() * y.topRows(rows);
  }
  return out;
}

Eigen::MatrixXd GivensProjection::dense() const {
  // W_block = G_K ⋯ G_1 I: each rotation mixes two whole rows of the running product (left multiplication).
  Eigen::MatrixXd w(m_, d_);
  for (int start = 0, b = 0; start < m_; start += d_, ++b) {
    const int rows = std::min(d_, m_ - start);
    Eigen::MatrixXd q = Eigen::MatrixXd::Identity(d_, d_);
    for (const Rotation& g : blocks_[static_cast<std::size_t>(b)]) {
      const Eigen::RowVectorXd a = q.row(g.i), c = q.row(g.j);
      q.row(g.i) = g.c * a - g.s * c;
      q.row(g.j) = g.s * a + g.c * c;
    }
    for (int r = 0; r < rows; ++r) w.row(start + r) = q.row(r) * row_scale_(start + r);
  }
  return w;
}

}  // namespace favorlab
