#include "attention/position_permutation.hpp"

#include "features/shifted_exp.hpp"

namespace favorlab {

namespace {

// Rows the table of π needs for positions 0..positions−1: the powers repeat with period order(π).
Eigen::Index table_rows(const Permutation& pi, Eigen::Index positions) {
  const BigInt order = pi.order();
  return order < BigInt(positions) ? static_cast<Eigen::Index>(order) : positions;
}

}  // namespace

PositionPermutation::PositionPermutation(const PermuteHead& head, const PermuteLayout& layout, Eigen::Index length)
    : columns_(layout.two_d() ? 2 * head.pi.size() : head.pi.size()),
      width_(layout.two_d() ? layout.width : 0),
      x_period_(table_rows(head.pi, layout.two_d() ? layout.width : length)),
      x_(head.pi, x_period_) {
  if (layout.two_d()) {
    y_period_ = table_rows(*head.pi_y, layout.height);
    y_.emplace(*head.pi_y, y_period_);
  }
}

void PositionPermutation::index_map(Eigen::Index token, std::int32_t* out) const {
  if (width_ == 0) {
    const std::int32_t* row = x_row(token);
    for (int a = 0; a < columns_; ++a) out[a] = row[a];
    return;
  }
  const int half = columns_ / 2;
  const std::int32_t* xr = x_row(token % width_);
  const std::int32_t* yr = y_row(token / width_);
  for (int a = 0; a < half; ++a) out[a] = xr[a];
  for (int a = 0; a < half; ++a) out[half + a] = half + yr[a];
}

template <class T>
void PositionPermutation::gather_row(const T* src, Eigen::Index stride, Eigen::Index token, T* dst) const {
  if (width_ == 0) {
    const std::int32_t* map = x_row(token);
    for (int a = 0; a < columns_; ++a) dst[a] = src[Eigen::Index(map[a]) * stride];
    return;
  }
  const int half = columns_ / 2;
  const std::int32_t* xmap = x_row(token % width_);
  const std::int32_t* ymap = y_row(token / width_);
  for (int a = 0; a < half; ++a) dst[a] = src[Eigen::Index(xmap[a]) * stride];
  for (int a = 0; a < half; ++a) dst[half + a] = src[Eigen::Index(half + ymap[a]) * stride];
}

template <class T>
RowMatrix<T> PositionPermutation::gather_rows(const Matrix<T>& values, Eigen::Index first) const {
  // Read straight from the column-major features: row r's entries lie `stride` apart, but consecutive rows read
  // neighbouring entries of the same cache lines (one line per column), so no transposed copy is needed first.
  // Measured on a 512 × 256 float block: 0.46–0.54 ms against 2.1–2.4 ms for a row-major copy followed by
  // contiguous gathers. (A stride of 512 floats maps all 256 columns onto 2 of the L1's 64 sets, so the lines do
  // not stay in L1: gather_exp_rows, which reads contiguous rows, is the fast path.)
  RowMatrix<T> out(values.rows(), columns_);
  for (Eigen::Index r = 0; r < values.rows(); ++r) gather_row(values.data() + r, values.rows(), first + r, out.row(r).data());
  return out;
}

template <class T>
RowMatrix<T> PositionPermutation::gather_exp_rows(const RowMatrix<T>& proj, const Eigen::Array<T, Eigen::Dynamic, 1>& shift,
                                                  T factor, Eigen::Index first) const {
  RowMatrix<T> out(proj.rows(), columns_);
  for (Eigen::Index r = 0; r < proj.rows(); ++r) {
    T* dst = out.row(r).data();
    gather_row(proj.row(r).data(), 1, first + r, dst);  // within one contiguous row: L1
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> row(dst, columns_);
    exp_into(row, row - shift(r), factor);  // Eigen's SIMD exp over the row, exact underflow (features/shifted_exp.hpp)
  }
  return out;
}

template RowMatrix<float> PositionPermutation::gather_rows(const Matrix<float>&, Eigen::Index) const;
template RowMatrix<double> PositionPermutation::gather_rows(const Matrix<double>&, Eigen::Index) const;
template RowMatrix<float> PositionPermutation::gather_exp_rows(const RowMatrix<float>&,
                                                               const Eigen::Array<float, Eigen::Dynamic, 1>&, float,
                                                               Eigen::Index) const;
template RowMatrix<double> PositionPermutation::gather_exp_rows(const RowMatrix<double>&,
                                                                const Eigen::Array<double, Eigen::Dynamic, 1>&, double,
                                                                Eigen::Index) const;

}  // namespace favorlab
