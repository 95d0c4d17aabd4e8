#include "attention/permute_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/attention_features.hpp"
#include "attention/bidirectional_favor_blocks.hpp"
#include "attention/head_parallel.hpp"
#include "attention/permuted_features.hpp"
#include "attention/values_with_ones.hpp"

namespace favorlab {

namespace {

template <class T>
Matrix<T> bidirectional_permute(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                                const AttentionConfig& config, const PositionPermutation& positions, int threads) {
  return bidirectional_favor_blocks(q.rows(), v, config, threads, PermutedFeatures<T>(q, k, w, config, positions));
}

template <class T>
Matrix<T> causal_permute(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                         const AttentionConfig& config, const PositionPermutation& positions, double r) {
  using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
  const Eigen::Index length = q.rows(), dv = v.cols(), chunk = std::min<Eigen::Index>(config.chunk, length);
  // decay[t] = r^t for 0 ≤ t ≤ chunk: the only powers of r ever used (t ≥ 0, so each is ≤ 1; far ones underflow
  // to 0, which is the correctly rounded value of a weight below the smallest subnormal).
  Column decay(chunk + 1);
  for (Eigen::Index t = 0; t <= chunk; ++t) decay(t) = static_cast<T>(std::pow(r, static_cast<double>(t)));

  const PermutedFeatures<T> features(q, k, w, config, positions);
  Matrix<T> out(length, dv);
  Matrix<T> state;  // Σ_{j<first} r^{first−j} k̃'_j exp(M_j − carried) [v_j, 1]ᵀ
  T carried = -std::numeric_limits<T>::infinity();
  for (Eigen::Index first = 0; first < length; first += chunk) {
    const Eigen::Index rows = std::min(chunk, length - first);
    PermutedCausalKeys<T> keys = features.causal_keys(first, rows, carried);  // P^{pos j} φ(k_j) e^{−M_j}
    const PermutedRows<T> queries = features.queries(first, rows);
    const Column& running = keys.running;  // M_j: running maximum of key log scales up to j
    RowMatrix<T>& key_rows = keys.values;
    const RowMatrix<T>& query_rows = queries.values;
    if (state.size() == 0) state = Matrix<T>::Zero(key_rows.cols(), dv + 1);

    Matrix<T> scores = query_rows * key_rows.transpose();
    for (Eigen::Index i = 0; i < rows; ++i) {
      for (Eigen::Index j = 0; j < i; ++j) scores(i, j) *= decay(i - j) * std::exp(running(j) - running(i));
      scores.row(i).tail(rows - i - 1).setZero();
    }
    const Matrix<T> values = values_with_ones(v, first, rows);
    Matrix<T> num = scores * values;
    if (first > 0) {
      // r^{i−first} · exp(carried − M_i) ≤ 1: the state, decayed to the chunk start, read by query i.
      const Column carry_factor = decay.head(rows) * (carried - running).exp();
      num += ((query_rows * state).array().colwise() * carry_factor).matrix();
    }
    if (config.renormalize)
      out.middleRows(first, rows) = (num.leftCols(dv).array().colwise() / num.col(dv).array()).matrix();
    else
      out.middleRows(first, rows) =
          (num.leftCols(dv).array().colwise() * (queries.log_scale + running).exp()).matrix();

    // Carry to the next chunk start first + rows: key j gets r^{rows − j} (exponent ≥ 1), the old state r^{rows}.
    const T last = running(rows - 1);
    const Column to_end = (running - last).exp() * decay.segment(1, rows).reverse();
    key_rows.array().colwise() *= to_end;
    if (first > 0) state *= std::exp(carried - last) * decay(rows);
    state.noalias() += key_rows.transpose() * values;
    carried = last;
  }
  return out;
}

}  // namespace

template <class T>
Matrix<T> permute_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                            const AttentionConfig& config, const PositionPermutation& positions, double r,
                            int threads) {
  if (config.causal) return causal_permute(q, k, v, w, config, positions, r);
  return bidirectional_permute(q, k, v, w, config, positions, threads);
}

template <class T>
void check_permute_inputs(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                          const AttentionConfig& config, const std::vector<PermuteHead>& heads,
                          const PermuteLayout& layout) {
  check_attention_inputs(q, k, v, w, config);
  if (heads.size() != q.size())
    throw std::invalid_argument("PermuteFormer needs one permutation head per attention head (got " +
                                std::to_string(heads.size()) + " for " + std::to_string(q.size()) + " heads)");
  const int d = static_cast<int>(q.front().cols());
  for (std::size_t h = 0; h < q.size(); ++h) {
    if (q[h].rows() != k[h].rows())
      throw std::invalid_argument("PermuteFormer needs as many queries as keys (positions are shared), got " +
                                  std::to_string(q[h].rows()) + " and " + std::to_string(k[h].rows()));
    validate_permute_head(config, d, heads[h], layout, k[h].rows());
  }
}

template <class T>
Heads<T> permute_attend(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                        const AttentionConfig& config, const std::vector<PermuteHead>& heads,
                        const PermuteLayout& layout, int threads) {
  check_permute_inputs(q, k, v, w, config, heads, layout);
  const Matrix<T> wt = w.cast<T>();
  Heads<T> out(q.size());
  for_each_head(static_cast<int>(q.size()), threads, [&](int h, int inner_threads) {
    const std::size_t s = static_cast<std::size_t>(h);
    const PositionPermutation positions(heads[s], layout, k[s].rows());
    out[s] = permute_attention(q[s], k[s], v[s], wt, config, positions, heads[s].r, inner_threads);
  });
  return out;
}

#define FAVORLAB_PERMUTE_INSTANTIATE(T)                                                                             \
  template Matrix<T> permute_attention(const Matrix<T>&, const Matrix<T>&, const Matrix<T>&, const Matrix<T>&,      \
                                       const AttentionConfig&, const PositionPermutation&, double, int);            \
  template void check_permute_inputs(const Heads<T>&, const Heads<T>&, const Heads<T>&, const Eigen::MatrixXd&,     \
                                     const AttentionConfig&, const std::vector<PermuteHead>&, const PermuteLayout&); \
  template Heads<T> permute_attend(const Heads<T>&, const Heads<T>&, const Heads<T>&, const Eigen::MatrixXd&,       \
                                   const AttentionConfig&, const std::vector<PermuteHead>&, const PermuteLayout&, int);
FAVORLAB_PERMUTE_INSTANTIATE(float)
FAVORLAB_PERMUTE_INSTANTIATE(double)
#undef FAVORLAB_PERMUTE_INSTANTIATE

}  // namespace favorlab
