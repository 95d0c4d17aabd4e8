#include "io/npy_heads.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace favorlab {

template <class T>
std::vector<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> npy_to_heads(const NpyArray& array,
                                                                           const std::string& what) {
  const auto& shape = array.shape;
  const bool rank_ok = shape.size() == 2 || shape.size() == 3;
  bool size_ok = rank_ok;
  std::size_t count = 1;
  for (const std::int64_t dim : shape) {
    const auto d = static_cast<std::size_t>(dim);
    size_ok = size_ok && dim >= 0 && (d == 0 || count <= std::numeric_limits<std::size_t>::max() / d);
    if (size_ok) count *= d;
  }
  if (!size_ok || count != array.values.size())
    throw std::invalid_argument(what + ": expected shape (L, d) or (H, L, d), got " + npy_shape_string(shape) +
                                (rank_ok ? " with " + std::to_string(array.values.size()) + " values" : ""));

  if (count == 0)  // before anything is sized by the shape: (10^12, 0, 4) holds no values but would ask for 10^12 heads
    throw std::invalid_argument(what + ": shape " + npy_shape_string(shape) +
                                " is empty: at least one head, one row and one column are needed");
  const std::int64_t heads = shape.size() == 3 ? shape[0] : 1;
  const auto rows = static_cast<Eigen::Index>(shape[shape.size() - 2]);
  const auto cols = static_cast<Eigen::Index>(shape[shape.size() - 1]);
  std::vector<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> out;
  out.reserve(static_cast<std::size_t>(heads));
  const double* v = array.values.data();
  for (std::int64_t h = 0; h < heads; ++h) {
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> m(rows, cols);
    // The array is row-major, the matrix column-major: copy element by element rather than through a Map, so the
    // two layouts can never be confused.
    for (Eigen::Index i = 0; i < rows; ++i) {
      for (Eigen::Index j = 0; j < cols; ++j, ++v) {
        m(i, j) = static_cast<T>(*v);
        if (std::isfinite(*v) && !std::isfinite(m(i, j))) {
          std::string message = what;
          message += ": value at [";
          if (shape.size() == 3) message += std::to_string(h) + ", ";
          message += std::to_string(i) + ", " + std::to_string(j) + "] overflows float32";
          throw std::invalid_argument(message);
        }
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

template <class T>
NpyArray heads_to_npy(const std::vector<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>& heads,
                      bool drop_head_axis) {
  if (heads.empty()) throw std::invalid_argument("heads_to_npy: no heads");
  if (drop_head_axis && heads.size() != 1)
    throw std::invalid_argument("heads_to_npy: cannot drop the head axis of " + std::to_string(heads.size()) +
                                " heads");
  const Eigen::Index rows = heads[0].rows(), cols = heads[0].cols();
  for (std::size_t h = 1; h < heads.size(); ++h) {
    if (heads[h].rows() != rows || heads[h].cols() != cols)
      throw std::invalid_argument("heads_to_npy: head " + std::to_string(h) + " is " +
                                  std::to_string(heads[h].rows()) + "x" + std::to_string(heads[h].cols()) +
                                  ", head 0 is " + std::to_string(rows) + "x" + std::to_string(cols));
  }
  NpyArray a;
  a.dtype = std::is_same_v<T, float> ? NpyDtype::float32 : NpyDtype::float64;
  if (!drop_head_axis) a.shape.push_back(static_cast<std::int64_t>(heads.size()));
  a.shape.push_back(rows);
  a.shape.push_back(cols);
  a.values.reserve(heads.size() * static_cast<std::size_t>(rows * cols));
  for (const auto& m : heads)
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j) a.values.push_back(static_cast<double>(m(i, j)));
  return a;
}

template std::vector<Eigen::MatrixXf> npy_to_heads<float>(const NpyArray&, const std::string&);
template std::vector<Eigen::MatrixXd> npy_to_heads<double>(const NpyArray&, const std::string&);
template NpyArray heads_to_npy<float>(const std::vector<Eigen::MatrixXf>&, bool);
template NpyArray heads_to_npy<double>(const std::vector<Eigen::MatrixXd>&, bool);

Eigen::MatrixXd npy_stacked_rows(const NpyArray& array, const std::string& what) {
  const std::vector<Eigen::MatrixXd> heads = npy_to_heads<double>(array, what);
  Eigen::Index rows = 0;
  for (const auto& h : heads) rows += h.rows();
  Eigen::MatrixXd out(rows, heads.front().cols());
  Eigen::Index at = 0;
  for (const auto& h : heads) {
    out.middleRows(at, h.rows()) = h;
    at += h.rows();
  }
  return out;
}

}  // namespace favorlab
