#include "attention/permute_attention.hpp"

#include <stdexcept>
#include <string>

#include "attention/bidirectional_favor_blocks.hpp"
#include "attention/causal_favor_windows.hpp"
#include "attention/head_parallel.hpp"
#include "attention/permuted_features.hpp"

namespace favorlab {

namespace {

template <class T>
Matrix<T> bidirectional_permute(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                                const AttentionConfig& config, const PositionPermutation& positions, int threads) {
  return bidirectional_favor_blocks(q.rows(), v, config, threads, PermutedFeatures<T>(q, k, w, config, positions));
}

// Causal PermuteFormer: causal FAVOR's windowed algorithm (attention/causal_favor_windows.hpp) on the permuted
// features, with the relative-position decay r^(i−j).
template <class T>
Matrix<T> causal_permute(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                         const AttentionConfig& config, const PositionPermutation& positions, double r, int threads) {
  return causal_favor_windows(q.rows(), v, config, threads, PermutedFeatures<T>(q, k, w, config, positions), r);
}

}  // namespace

template <class T>
Matrix<T> permute_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                            const AttentionConfig& config, const PositionPermutation& positions, double r,
                            int threads) {
  if (config.causal) return causal_permute(q, k, v, w, config, positions, r, threads);
  return bidirectional_permute(q, k, v, w, config, positions, threads);
}

template <class T>
void check_permute_inputs(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                          const AttentionConfig& config, const std::vector<PermuteHead>& heads,
                          const PermuteLayout& layout) {
  check_attention_inputs(q, k, v, w, config);
  require_cpu_precision(config);
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
