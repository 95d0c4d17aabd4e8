#include "attention/causal_favor_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/attention_features.hpp"
#include "attention/values_with_ones.hpp"

namespace favorlab {

template <class T>
Matrix<T> causal_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                                 const AttentionConfig& config) {
  using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
  const Eigen::Index length = q.rows(), dv = v.cols(), chunk = config.chunk;
  Matrix<T> out(length, dv);
  Matrix<T> state;                                         // G at the end of the previous chunk, relative to exp(carried)
  T carried = -std::numeric_limits<T>::infinity();         // M at the end of the previous chunk (−∞: no keys yet)
  for (Eigen::Index first = 0; first < length; first += chunk) {
    const Eigen::Index rows = std::min(chunk, length - first);
    ScaledFeatures<T> keys = attention_features_of_rows(k, first, rows, w, config);
    const ScaledFeatures<T> queries = attention_features_of_rows(q, first, rows, w, config);
    if (state.size() == 0) state = Matrix<T>::Zero(keys.values.cols(), dv + 1);

    Column running(rows);  // M_j for the chunk's rows
    T top = carried;
    for (Eigen::Index j = 0; j < rows; ++j) running(j) = top = std::max(top, keys.log_scale(j));
    keys.values.array().colwise() *= (keys.log_scale - running).exp();  // K̃_j, relative to exp(M_j)

    Matrix<T> scores = queries.values * keys.values.transpose();
    for (Eigen::Index i = 0; i < rows; ++i) {
      for (Eigen::Index j = 0; j < i; ++j) scores(i, j) *= std::exp(running(j) - running(i));
      scores.row(i).tail(rows - i - 1).setZero();
    }
    const Matrix<T> values = values_with_ones(v, first, rows);
    const Column carry_factor = (carried - running).exp();  // 0 while no earlier keys exist
    Matrix<T> num = scores * values;
    if (first > 0) num += ((queries.values * state).array().colwise() * carry_factor).matrix();

    if (config.renormalize)
      out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() / num.col(dv).array()).matrix();
    else
      out.middleRows(first, rows) =
          (num.leftCols(dv).array().colwise() * (queries.log_scale + running).exp()).matrix();

    const T last = running(rows - 1);
    keys.values.array().colwise() *= (running - last).exp();
    if (first > 0) state *= std::exp(carried - last);
    state.noalias() += keys.values.transpose() * values;
    carried = last;
  }
  return out;
}

template Matrix<float> causal_favor_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                                              const Matrix<float>&, const AttentionConfig&);
template Matrix<double> causal_favor_attention(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                               const Matrix<double>&, const AttentionConfig&);

}  // namespace favorlab
