#include "attention/attention_projection.hpp"

#include <stdexcept>
#include <string>

namespace favorlab {

Eigen::MatrixXd draw_attention_projection(const AttentionConfig& config, int d, std::uint64_t seed,
                                          std::uint64_t draw) {
  validate_attention_config(config, d);
  const int rows = projection_rows(config);
  if (rows == 0) return Eigen::MatrixXd(0, d);
  PhiloxStream rng(seed, kAttentionProjectionStream, draw);
  const RowNorms norms = family_info(config.features).norms;
  return draw_projection(config.coupling, norms, rows, d, rng);
}

void check_attention_projection(const AttentionConfig& config, int d, const Eigen::MatrixXd& w) {
  const int rows = projection_rows(config);
  if (w.rows() != rows || w.cols() != d)
    throw std::invalid_argument("projection W must be " + std::to_string(rows) + "×" + std::to_string(d) +
                                " (m×d), got " + std::to_string(w.rows()) + "×" + std::to_string(w.cols()));
  if (!w.allFinite()) throw std::invalid_argument("projection W contains NaN or Inf");
}

}  // namespace favorlab
