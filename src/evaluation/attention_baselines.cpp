#include "evaluation/attention_baselines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace favorlab {

double centered_sum_of_squares(const Eigen::MatrixXd& o) {
  if (o.rows() == 0) return 0;
  const Eigen::RowVectorXd mean = o.colwise().mean();
  return (o.rowwise() - mean).squaredNorm();
}

double relative_output_error(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& exact) {
  if (approx.rows() != exact.rows() || approx.cols() != exact.cols())
    throw std::invalid_argument("relative output error: approximate and exact outputs differ in shape");
  const double centered = centered_sum_of_squares(exact);
  if (!(centered > kNoVariance * kNoVariance * exact.squaredNorm()))
    return std::numeric_limits<double>::quiet_NaN();
  if (!approx.allFinite()) return std::numeric_limits<double>::infinity();
  return (approx - exact).squaredNorm() / centered;
}

Eigen::MatrixXd uniform_attention_output(const Eigen::MatrixXd& v, Eigen::Index rows, bool causal) {
  if (v.rows() == 0) throw std::invalid_argument("uniform attention: no values");
  if (!causal) return v.colwise().mean().replicate(rows, 1);
  if (rows != v.rows()) throw std::invalid_argument("uniform attention: causal needs as many queries as keys");
  Eigen::MatrixXd out(rows, v.cols());
  Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(v.cols());
  for (Eigen::Index i = 0; i < rows; ++i) {
    sum += v.row(i);
    out.row(i) = sum / static_cast<double>(i + 1);
  }
  return out;
}

OutputBaseline output_baseline(const Eigen::MatrixXd& exact, const Eigen::MatrixXd& v, bool causal) {
  const double entries = static_cast<double>(exact.size());
  if (entries == 0) throw std::invalid_argument("output baseline: an empty output");
  const Eigen::MatrixXd uniform = uniform_attention_output(v, exact.rows(), causal);
  const double centered = centered_sum_of_squares(exact);
  const bool varies = centered > kNoVariance * kNoVariance * exact.squaredNorm();
  return {varies ? centered / entries : 0.0, (uniform - exact).squaredNorm() / entries};
}

Eigen::VectorXd singular_values(const Eigen::MatrixXd& a) {
  if (a.size() == 0) return Eigen::VectorXd(0);
  // BDCSVD without vectors: bidiagonalisation plus divide and conquer; small singular values keep their absolute
  // accuracy (~ε‖A‖), which the floor of a low-rank matrix needs (eigenvalues of AAᵀ would square the error).
  Eigen::BDCSVD<Eigen::MatrixXd> svd(a);
  return svd.singularValues();
}

std::vector<double> rank_truncation_errors(const Eigen::VectorXd& sigma) {
  const auto n = static_cast<std::size_t>(sigma.size());
  std::vector<double> tail(n + 1, 0.0);
  double sum = 0;
  for (std::size_t i = n; i-- > 0;) {
    const double s = std::max(0.0, sigma(static_cast<Eigen::Index>(i)));
    sum += s * s;
    tail[i] = std::sqrt(sum);
  }
  return tail;
}

double rank_floor(const std::vector<double>& tail, int rank) {
  if (tail.empty()) return 0;
  const std::size_t r = std::min(static_cast<std::size_t>(std::max(rank, 0)), tail.size() - 1);
  return tail[r];
}

}  // namespace favorlab
