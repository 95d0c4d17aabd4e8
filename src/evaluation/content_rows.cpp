#include "evaluation/content_rows.hpp"

#include <stdexcept>

#include "attention/random_inputs.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"

namespace favorlab {

ContentRows read_content_rows(const std::string& q_file, const std::string& k_file) {
  if (q_file.empty() != k_file.empty()) throw std::invalid_argument("--q and --k go together");
  ContentRows rows;
  if (q_file.empty()) return rows;
  rows.q = npy_stacked_rows(read_npy(q_file), q_file);
  rows.k = npy_stacked_rows(read_npy(k_file), k_file);
  if (rows.q.cols() != rows.k.cols())
    throw std::invalid_argument(k_file + ": keys have d = " + std::to_string(rows.k.cols()) + " but " + q_file +
                                " has d = " + std::to_string(rows.q.cols()));
  return rows;
}

Eigen::MatrixXd content_row(const Eigen::MatrixXd& rows, int d, double scale, std::uint64_t seed, std::uint64_t stream,
                            std::uint64_t draw) {
  if (rows.size() > 0) return rows.row(static_cast<Eigen::Index>(draw % static_cast<std::uint64_t>(rows.rows())));
  return gaussian_input(1, d, scale, seed, stream, draw);
}

}  // namespace favorlab
