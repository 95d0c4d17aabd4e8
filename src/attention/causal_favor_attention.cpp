#include "attention/causal_favor_attention.hpp"

#include "attention/causal_favor_windows.hpp"

namespace favorlab {

template <class T>
Matrix<T> causal_favor_attention(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& w,
                                 const AttentionConfig& config, int threads) {
  return causal_favor_windows(q.rows(), v, config, threads, FavorFeatures<T>{q, k, w, config});
}

template Matrix<float> causal_favor_attention(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                                              const Matrix<float>&, const AttentionConfig&, int);
template Matrix<double> causal_favor_attention(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                               const Matrix<double>&, const AttentionConfig&, int);

}  // namespace favorlab
