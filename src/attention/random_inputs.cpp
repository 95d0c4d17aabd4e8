#include "attention/random_inputs.hpp"

#include "rng/philox_stream.hpp"

namespace favorlab {

Eigen::MatrixXd gaussian_input(int rows, int cols, double scale, std::uint64_t seed, std::uint64_t stream,
                               std::uint64_t index) {
  PhiloxStream rng(seed, stream, index);
  Eigen::MatrixXd x(rows, cols);
  for (int i = 0; i < rows; ++i)  // row-major draw order: a prefix of rows is the same matrix at any L
    for (int j = 0; j < cols; ++j) x(i, j) = scale * rng.normal();
  return x;
}

}  // namespace favorlab
