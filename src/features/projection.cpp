#include "features/projection.hpp"

#include <cmath>
#include <stdexcept>

#include "features/structured_projection.hpp"

namespace favorlab {

std::string_view coupling_name(Coupling c) {
  switch (c) {
    case Coupling::iid: return "iid";
    case Coupling::orthogonal: return "orthogonal";
    case Coupling::hadamard: return "hadamard";
    case Coupling::givens: return "givens";
    case Coupling::simplex: return "simplex";
  }
  return "unknown";
}

Coupling parse_coupling(std::string_view name) {
  for (Coupling c : {Coupling::iid, Coupling::orthogonal, Coupling::hadamard, Coupling::givens, Coupling::simplex})
    if (name == coupling_name(c)) return c;
  throw std::invalid_argument("unknown coupling '" + std::string(name) +
                              "' (expected iid, orthogonal, hadamard, givens or simplex)");
}

void require_projection_shape(int m, int d) {
  if (m <= 0) throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(m));
  if (d <= 0) throw std::invalid_argument("dimension d must be positive, got " + std::to_string(d));
}

namespace {

// A d×d Haar-random orthogonal matrix. Without the sign fix QR would favour a positive diagonal of R and Q would
// not be Haar-distributed.
Eigen::MatrixXd haar_orthogonal(int d, PhiloxStream& rng) {
  Eigen::MatrixXd g(d, d);
  rng.normals(g.data(), g.size());  // column by column
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ();
  const auto& r = qr.matrixQR();
  for (int j = 0; j < d; ++j)
    if (r(j, j) < 0) q.col(j) = -q.col(j);
  return q;
}

}  // namespace

double chi_variate(int d, PhiloxStream& rng) {
  Eigen::VectorXd g(d);
  rng.normals(g.data(), d);
  double s = 0;
  for (int i = 0; i < d; ++i) s += g(i) * g(i);
  return std::sqrt(s);
}

Eigen::MatrixXd iid_projection(int m, int d, PhiloxStream& rng) {
  require_projection_shape(m, d);
  Eigen::MatrixXd w(m, d);
  Eigen::RowVectorXd row(d);  // drawn row by row, through a buffer: no second m × d matrix at any m
  for (int i = 0; i < m; ++i) {
    rng.normals(row.data(), d);
    w.row(i) = row;
  }
  return w;
}

Eigen::MatrixXd orthogonal_projection(int m, int d, PhiloxStream& rng) {
  require_projection_shape(m, d);
  Eigen::MatrixXd w(m, d);
  for (int start = 0; start < m; start += d) {
    const int rows = std::min(d, m - start);
    const Eigen::MatrixXd q = haar_orthogonal(d, rng);
    w.middleRows(start, rows) = q.topRows(rows);
    for (int i = 0; i < rows; ++i) w.row(start + i) *= chi_variate(d, rng);
  }
  return w;
}

Eigen::MatrixXd simplex_projection(int m, int d, PhiloxStream& rng) {
  require_projection_shape(m, d);
  if (d < 2) throw std::invalid_argument("simplex random features need d >= 2, got d = " + std::to_string(d));
  // The d vertices of a regular simplex centred at 0: s_i = (e_i − 1/d)/√(1 − 1/d), so ‖s_i‖ = 1,
  // s_iᵀs_j = (−1/d)/(1 − 1/d) = −1/(d − 1) and Σ s_i = 0.
  const double norm = std::sqrt(1 - 1.0 / d);
  const Eigen::MatrixXd vertices =
      (Eigen::MatrixXd::Identity(d, d) - Eigen::MatrixXd::Constant(d, d, 1.0 / d)) / norm;  // row i: s_iᵀ
  Eigen::MatrixXd w(m, d);
  for (int start = 0; start < m; start += d) {
    const int rows = std::min(d, m - start);
    const Eigen::MatrixXd r = haar_orthogonal(d, rng);  // w_i = r_i R s_i: row i is r_i s_iᵀ Rᵀ
    w.middleRows(start, rows) = vertices.topRows(rows) * r.transpose();
    for (int i = 0; i < rows; ++i) w.row(start + i) *= chi_variate(d, rng);
  }
  return w;
}

void rescale_rows_to_sqrt_d(Eigen::MatrixXd& w) {
  const double target = std::sqrt(static_cast<double>(w.cols()));
  for (Eigen::Index i = 0; i < w.rows(); ++i) w.row(i) *= target / w.row(i).norm();
}

Eigen::MatrixXd draw_projection(Coupling coupling, RowNorms norms, int m, int d, PhiloxStream& rng) {
  // The structured kinds draw their row norms themselves.
  if (coupling == Coupling::hadamard) return HadamardProjection::draw(m, d, norms, rng).dense();
  if (coupling == Coupling::givens) return GivensProjection::draw(m, d, norms, rng).dense();
  Eigen::MatrixXd w = coupling == Coupling::iid          ? iid_projection(m, d, rng)
                      : coupling == Coupling::simplex ? simplex_projection(m, d, rng)
                                                      : orthogonal_projection(m, d, rng);
  if (norms == RowNorms::sqrt_d) rescale_rows_to_sqrt_d(w);
  return w;
}

}  // namespace favorlab
