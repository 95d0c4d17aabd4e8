#include "attention/position_permutation.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "features/shifted_exp.hpp"

namespace favorlab {

// The rotation of each cycle for tokens first, first + 1, …: t mod c for a cycle of length c, t = the token (1-D) or
// its grid column x (π_x's cycles) and grid row y (π_y's) in 2-D. next() moves to the following token: x cycles
// advance by one (back to 0 at the start of a grid row, where π_x^0 = identity), y cycles advance at a new grid row.
class PositionPermutation::Offsets {
 public:
  Offsets(const PositionPermutation& p, Eigen::Index first) : p_(p), shift_(p.cycles_.size(), 0) {
    x_ = p.width_ == 0 ? first : first % p.width_;
    const Eigen::Index y = p.width_ == 0 ? 0 : first / p.width_;
    for (std::size_t c = 0; c < shift_.size(); ++c) {
      const Cycle& cycle = p.cycles_[c];
      if (cycle.axis != Axis::none) shift_[c] = static_cast<int>((cycle.axis == Axis::x ? x_ : y) % cycle.length);
    }
  }
  int operator[](std::size_t c) const { return shift_[c]; }
  void next() {
    const bool new_row = p_.width_ > 0 && ++x_ == p_.width_;
    if (new_row) x_ = 0;
    for (std::size_t c = 0; c < shift_.size(); ++c) {
      const Cycle& cycle = p_.cycles_[c];
      int& s = shift_[c];
      if (cycle.axis == Axis::x)
        s = new_row || s + 1 == cycle.length ? 0 : s + 1;
      else if (cycle.axis == Axis::y && new_row)
        s = s + 1 == cycle.length ? 0 : s + 1;
    }
  }

 private:
  const PositionPermutation& p_;
  std::vector<int> shift_;
  Eigen::Index x_;
};

PositionPermutation::PositionPermutation(const PermuteHead& head, const PermuteLayout& layout, Eigen::Index length)
    : columns_(layout.two_d() ? 2 * head.pi.size() : head.pi.size()),
      width_(layout.two_d() ? layout.width : 0),
      length_(length),
      pi_x_(head.pi),
      pi_y_(layout.two_d() ? head.pi_y : std::nullopt) {
  // Fixed points of both maps first, as one segment that never rotates (an identity π costs one copy per row, not
  // m one-entry pieces); then each cycle of π_x, then each cycle of π_y (its columns offset by m/2).
  std::vector<std::pair<std::vector<int>, Axis>> moving;
  const auto add = [&](const Permutation& pi, int offset, Axis axis) {
    for (std::vector<int>& cycle : pi.cycles()) {
      for (int& a : cycle) a += offset;
      if (cycle.size() == 1)
        order_.push_back(cycle.front());
      else
        moving.emplace_back(std::move(cycle), axis);
    }
  };
  add(pi_x_, 0, Axis::x);
  if (pi_y_) add(*pi_y_, pi_x_.size(), Axis::y);
  if (!order_.empty()) cycles_.push_back({0, static_cast<int>(order_.size()), Axis::none});
  for (const auto& [cycle, axis] : moving) {
    cycles_.push_back({static_cast<int>(order_.size()), static_cast<int>(cycle.size()), axis});
    order_.insert(order_.end(), cycle.begin(), cycle.end());
  }
}

void PositionPermutation::check_tokens(Eigen::Index first, Eigen::Index count) const {
  if (first < 0 || count < 0 || first + count > length_)
    throw std::invalid_argument("position permutation: tokens [" + std::to_string(first) + ", " +
                                std::to_string(first + count) + ") outside the " + std::to_string(length_) +
                                " positions");
}

void PositionPermutation::check_columns(Eigen::Index count) const {
  if (count != columns_)
    throw std::invalid_argument("position permutation: rows of " + std::to_string(count) + " features, not " +
                                std::to_string(columns_));
}

void PositionPermutation::index_map(Eigen::Index token, std::int32_t* out) const {
  check_tokens(token, 1);
  const std::vector<int> x = pi_x_.power(width_ == 0 ? token : token % width_).image();
  std::copy(x.begin(), x.end(), out);
  if (width_ == 0) return;
  const int half = pi_x_.size();
  const std::vector<int> y = pi_y_->power(token / width_).image();
  for (int a = 0; a < half; ++a) out[half + a] = half + y[std::size_t(a)];
}

template <class Piece>
void PositionPermutation::for_each_piece(const Offsets& offsets, Piece&& piece) const {
  // Left rotation by s of the segment [start, start + c): its first c − s entries come from start + s on, the last s
  // from the segment's head.
  for (std::size_t c = 0; c < cycles_.size(); ++c) {
    const Cycle& cycle = cycles_[c];
    const int s = offsets[c];
    piece(cycle.start, cycle.start + s, cycle.length - s);
    if (s > 0) piece(cycle.start + cycle.length - s, cycle.start, s);
  }
}

template <class T>
RowMatrix<T> PositionPermutation::gather_rows(const Matrix<T>& values, Eigen::Index first) const {
  // Read straight from the column-major features: row r's entries lie `stride` apart, but consecutive rows read
  // neighbouring entries of the same cache lines (one line per column), so no transposed copy is needed first
  // (docs/performance.md#tried-and-dropped). The fused path (rotate_exp_rows) reads contiguous rows and is faster.
  check_tokens(first, values.rows());
  check_columns(values.cols());
  RowMatrix<T> out(values.rows(), columns_);
  const Eigen::Index stride = values.rows();
  Offsets offsets(*this, first);
  for (Eigen::Index r = 0; r < values.rows(); ++r, offsets.next()) {
    const T* src = values.data() + r;
    T* dst = out.row(r).data();
    for_each_piece(offsets, [&](int to, int from, int count) {
      for (int i = 0; i < count; ++i) dst[to + i] = src[Eigen::Index(order_[std::size_t(from + i)]) * stride];
    });
  }
  return out;
}

template <class T>
RowMatrix<T> PositionPermutation::rotate_exp_rows(const RowMatrix<T>& proj,
                                                  const Eigen::Array<T, Eigen::Dynamic, 1>& shift, T factor,
                                                  Eigen::Index first) const {
  check_tokens(first, proj.rows());
  check_columns(proj.cols());
  RowMatrix<T> out(proj.rows(), columns_);
  Offsets offsets(*this, first);
  for (Eigen::Index r = 0; r < proj.rows(); ++r, offsets.next()) {
    const T* src = proj.row(r).data();
    T* dst = out.row(r).data();
    for_each_piece(offsets, [&](int to, int from, int count) { std::copy_n(src + from, count, dst + to); });
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> row(dst, columns_);
    exp_into(row, row - shift(r), factor);  // SIMD exp over the row, exact underflow (features/shifted_exp.hpp)
  }
  return out;
}

template RowMatrix<float> PositionPermutation::gather_rows(const Matrix<float>&, Eigen::Index) const;
template RowMatrix<double> PositionPermutation::gather_rows(const Matrix<double>&, Eigen::Index) const;
template RowMatrix<float> PositionPermutation::rotate_exp_rows(const RowMatrix<float>&,
                                                               const Eigen::Array<float, Eigen::Dynamic, 1>&, float,
                                                               Eigen::Index) const;
template RowMatrix<double> PositionPermutation::rotate_exp_rows(const RowMatrix<double>&,
                                                                const Eigen::Array<double, Eigen::Dynamic, 1>&, double,
                                                                Eigen::Index) const;

}  // namespace favorlab
