#include "attention/attend.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/all_finite.hpp"
#include "attention/attention_projection.hpp"
#include "attention/bidirectional_favor_attention.hpp"
#include "attention/causal_favor_attention.hpp"
#include "attention/exact_attention.hpp"
#include "attention/head_parallel.hpp"
#include "attention/prepared_projection.hpp"

namespace favorlab {

namespace {

std::string shape(const Eigen::Index rows, const Eigen::Index cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

// Where a head's first non-finite entry is, row-major: only on the way to an error, after the fast check failed.
template <class T>
std::string first_nonfinite(const Matrix<T>& x) {
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      if (!std::isfinite(x(i, j))) return " (first at row " + std::to_string(i) + ", column " + std::to_string(j) + ")";
  return "";
}

// wt: W in precision T; w: W as drawn (double), from which the families with a prepared projection build their own.
template <class T>
Matrix<T> attend_one_head(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, const Matrix<T>& wt,
                          const Eigen::MatrixXd& w, const AttentionConfig& config, int threads) {
  if (config.mechanism == Mechanism::exact)
    return exact_attention(q, k, v, config.causal, config.renormalize, threads);
  const Matrix<T> prepared = needs_prepared_projection(config) ? prepared_projection(q, k, w, config) : Matrix<T>();
  const Matrix<T>& used = needs_prepared_projection(config) ? prepared : wt;
  if (config.causal) return causal_favor_attention(q, k, v, used, config, threads);
  return bidirectional_favor_attention(q, k, v, used, config, threads);
}

}  // namespace

template <class T>
void check_attention_inputs(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                            const AttentionConfig& config) {
  if (q.empty()) throw std::invalid_argument("attention needs at least one head");
  if (k.size() != q.size() || v.size() != q.size())
    throw std::invalid_argument("Q, K and V have different numbers of heads (" + std::to_string(q.size()) + ", " +
                                std::to_string(k.size()) + ", " + std::to_string(v.size()) + ")");
  for (std::size_t h = 0; h < q.size(); ++h) {
    const std::string head = q.size() > 1 ? " in head " + std::to_string(h) : "";
    if (q[h].size() == 0 || k[h].size() == 0 || v[h].size() == 0)
      throw std::invalid_argument("Q, K and V must be non-empty" + head);
    if (q[h].cols() != k[h].cols())
      throw std::invalid_argument("Q is " + shape(q[h].rows(), q[h].cols()) + " but K is " +
                                  shape(k[h].rows(), k[h].cols()) + head + ": Q and K need the same dimension d");
    if (k[h].rows() != v[h].rows())
      throw std::invalid_argument("K is " + shape(k[h].rows(), k[h].cols()) + " but V is " +
                                  shape(v[h].rows(), v[h].cols()) + head + ": K and V need the same length L");
    if (config.causal && q[h].rows() != k[h].rows())
      throw std::invalid_argument("causal attention needs as many queries as keys" + head + " (got " +
                                  std::to_string(q[h].rows()) + " and " + std::to_string(k[h].rows()) + ")");
    if (!all_finite(q[h])) throw std::invalid_argument("Q contains NaN or Inf" + head + first_nonfinite(q[h]));
    if (!all_finite(k[h])) throw std::invalid_argument("K contains NaN or Inf" + head + first_nonfinite(k[h]));
    if (!all_finite(v[h])) throw std::invalid_argument("V contains NaN or Inf" + head + first_nonfinite(v[h]));
  }
  const int d = static_cast<int>(q.front().cols());
  validate_attention_config(config, d);
  check_attention_projection(config, d, w);
}

void require_cpu_precision(const AttentionConfig& config) {
  if (config.precision != ProductPrecision::float32)
    throw std::invalid_argument("--precision " + std::string(product_precision_name(config.precision)) +
                                " is a GPU format: the cpu backend multiplies in float32 or float64 (use --backend "
                                "cuda, or --precision float32)");
}

template <class T>
AttentionInputs<T>::AttentionInputs(const Heads<T>& q_, const Heads<T>& k_, const Heads<T>& v_,
                                    const Eigen::MatrixXd& w_, const AttentionConfig& config_)
    : q(q_), k(k_), v(v_), w(w_), config(config_) {
  check_attention_inputs(q, k, v, w, config);
}

template <class T>
Heads<T> attend(const AttentionInputs<T>& in, int threads) {
  require_cpu_precision(in.config);
  const Matrix<T> wt = in.w.template cast<T>();
  Heads<T> out(in.q.size());
  for_each_head(static_cast<int>(in.q.size()), threads, [&](int h, int inner_threads) {
    const std::size_t s = static_cast<std::size_t>(h);
    out[s] = attend_one_head(in.q[s], in.k[s], in.v[s], wt, in.w, in.config, inner_threads);
  });
  return out;
}

template <class T>
Heads<T> attend(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                const AttentionConfig& config, int threads) {
  return attend(AttentionInputs<T>(q, k, v, w, config), threads);
}

template <class T>
Matrix<T> attention_matrix(const AttentionInputs<T>& in, std::size_t head, int threads) {
  require_cpu_precision(in.config);
  // V = I_L is finite and as long as K: the checked inputs stay valid with it.
  const Matrix<T> one_hot = Matrix<T>::Identity(in.k.at(head).rows(), in.k[head].rows());
  Matrix<T> out;
  for_each_head(1, threads, [&](int, int inner_threads) {
    out = attend_one_head(in.q[head], in.k[head], one_hot, Matrix<T>(in.w.template cast<T>()), in.w, in.config,
                          inner_threads);
  });
  return out;
}

template <class T>
Matrix<T> attention_matrix(const Matrix<T>& q, const Matrix<T>& k, const Eigen::MatrixXd& w,
                           const AttentionConfig& config, int threads) {
  const Heads<T> qs{q}, ks{k}, one_hot{Matrix<T>::Identity(k.rows(), k.rows())};
  return attention_matrix(AttentionInputs<T>(qs, ks, one_hot, w, config), 0, threads);
}

template void check_attention_inputs(const Heads<float>&, const Heads<float>&, const Heads<float>&,
                                     const Eigen::MatrixXd&, const AttentionConfig&);
template void check_attention_inputs(const Heads<double>&, const Heads<double>&, const Heads<double>&,
                                     const Eigen::MatrixXd&, const AttentionConfig&);
template struct AttentionInputs<float>;
template struct AttentionInputs<double>;
template Heads<float> attend(const AttentionInputs<float>&, int);
template Heads<double> attend(const AttentionInputs<double>&, int);
template Matrix<float> attention_matrix(const AttentionInputs<float>&, std::size_t, int);
template Matrix<double> attention_matrix(const AttentionInputs<double>&, std::size_t, int);
template Heads<float> attend(const Heads<float>&, const Heads<float>&, const Heads<float>&, const Eigen::MatrixXd&,
                             const AttentionConfig&, int);
template Heads<double> attend(const Heads<double>&, const Heads<double>&, const Heads<double>&,
                              const Eigen::MatrixXd&, const AttentionConfig&, int);
template Matrix<float> attention_matrix(const Matrix<float>&, const Matrix<float>&, const Eigen::MatrixXd&,
                                        const AttentionConfig&, int);
template Matrix<double> attention_matrix(const Matrix<double>&, const Matrix<double>&, const Eigen::MatrixXd&,
                                         const AttentionConfig&, int);

}  // namespace favorlab
