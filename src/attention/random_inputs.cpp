#include "attention/random_inputs.hpp"

#include "rng/philox_stream.hpp"

namespace favorlab {

Eigen::MatrixXd gaussian_input(int rows, int cols, double scale, std::uint64_t seed, std::uint64_t stream,
                               std::uint64_t index) {
  PhiloxStream rng(seed, stream, index);
  // Row-major draw order (a prefix of rows is the same matrix at any L), through a row buffer: no second matrix.
  Eigen::MatrixXd x(rows, cols);
  Eigen::RowVectorXd row(cols);
  for (int i = 0; i < rows; ++i) {
    rng.normals(row.data(), cols);
    x.row(i) = scale * row;
  }
  return x;
}

Eigen::MatrixXd sphere_input(int rows, int cols, double radius, std::uint64_t seed, std::uint64_t stream,
                             std::uint64_t index) {
  Eigen::MatrixXd x = gaussian_input(rows, cols, 1.0, seed, stream, index);
  for (int i = 0; i < rows; ++i) x.row(i) *= radius / x.row(i).norm();
  return x;
}

}  // namespace favorlab
