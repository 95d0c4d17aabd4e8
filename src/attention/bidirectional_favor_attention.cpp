#include "attention/bidirectional_favor_attention.hpp"

#include "attention/bidirectional_favor_blocks.hpp"

namespace favorlab {

template <class T>
Matrix<T> bidirectional_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                                        const Matrix<T>& w, const AttentionConfig& config, int threads) {
  return bidirectional_favor_blocks(q.rows(), v, config, threads, FavorFeatures<T>{q, k, w, config});
}

template Matrix<float> bidirectional_favor_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                                                     const Matrix<float>&, const AttentionConfig&, int);
template Matrix<double> bidirectional_favor_attention(const Matrix<double>&, const Matrix<double>&,
                                                      const Matrix<double>&, const Matrix<double>&,
                                                      const AttentionConfig&, int);

}  // namespace favorlab
