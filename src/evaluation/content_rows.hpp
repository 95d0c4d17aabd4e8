#pragma once
// The query and key contents of sampled draws: rows a user supplied (every row of every head of two .npy files,
// stacked), or Gaussian rows when there are no files. Draw t takes row t mod rows, so a short file is cycled.
#include <Eigen/Core>

#include <cstdint>
#include <string>

namespace favorlab {

struct ContentRows {
  Eigen::MatrixXd q, k;  // empty: Gaussian contents
};

// Both files or neither (then empty rows). Throws std::invalid_argument: one file without the other ("--q and --k
// go together"), the .npy readers' errors, or keys whose d differs from the queries' (naming both files).
ContentRows read_content_rows(const std::string& q_file, const std::string& k_file);

// Row `draw mod rows` of `rows` (1 × d), or with no rows a Gaussian 1 × d row of standard deviation `scale` from
// (seed, stream, draw).
Eigen::MatrixXd content_row(const Eigen::MatrixXd& rows, int d, double scale, std::uint64_t seed, std::uint64_t stream,
                            std::uint64_t draw);

}  // namespace favorlab
