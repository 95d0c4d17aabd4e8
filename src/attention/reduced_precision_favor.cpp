#include "attention/reduced_precision_favor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/format_arithmetic.hpp"

namespace favorlab {

using namespace format_arithmetic;

namespace {

void require_favor_shapes(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                          const Eigen::MatrixXf& w, int causal_chunk) {
  const auto shape = [](const Eigen::MatrixXf& x) {
    return std::to_string(x.rows()) + " x " + std::to_string(x.cols());
  };
  if (q.cols() < 1 || w.rows() < 1 || k.rows() < 1)
    throw std::invalid_argument("reduced-precision FAVOR: q needs d >= 1 columns, w m >= 1 rows and k a row");
  if (k.cols() != q.cols()) throw std::invalid_argument("k is " + shape(k) + ", q " + shape(q) + ": d differs");
  if (w.cols() != q.cols()) throw std::invalid_argument("w is " + shape(w) + ", q " + shape(q) + ": d differs");
  if (v.rows() != k.rows()) throw std::invalid_argument("v is " + shape(v) + ", k " + shape(k) + ": L differs");
  if (causal_chunk > 0 && q.rows() != k.rows())
    throw std::invalid_argument("causal: q is " + shape(q) + ", k " + shape(k) + ": one row per position");
  if (causal_chunk < 0) throw std::invalid_argument("causal chunk must be >= 0, got " + std::to_string(causal_chunk));
}

// d^{-1/4} X in float32, as the engine scales its inputs.
Eigen::MatrixXf scaled_input(const Eigen::MatrixXf& x) {
  const auto s = static_cast<float>(1 / std::sqrt(std::sqrt(static_cast<double>(x.cols()))));
  return x * s;
}

// The features in float32, rounded to the format: queries relative to their row's largest projection (‖q̃‖²/2 is
// common to the row and cancels in the ratio); keys as log features p − ‖k̃‖²/2, not yet exponentiated.
struct FormatFeatures {
  Eigen::MatrixXf phi_q, log_k;
};

FormatFeatures format_features(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& w,
                               ProductPrecision precision) {
  const Eigen::MatrixXf qs = scaled_input(q), ks = scaled_input(k), wr = rounded_to_format(w, precision);
  FormatFeatures f{float32_product_abt(rounded_to_format(qs, precision), wr),
                   float32_product_abt(rounded_to_format(ks, precision), wr)};
  for (Eigen::Index i = 0; i < f.phi_q.rows(); ++i) {
    const float top = f.phi_q.row(i).maxCoeff();
    for (Eigen::Index a = 0; a < f.phi_q.cols(); ++a)
      f.phi_q(i, a) = round_to_precision(std::exp(f.phi_q(i, a) - top), precision);
  }
  for (Eigen::Index j = 0; j < f.log_k.rows(); ++j) f.log_k.row(j).array() -= 0.5f * ks.row(j).squaredNorm();
  return f;
}

// Σ_j x_j [v̂_j, 1] over rows [first, first + count) of x, each sum in float32.
Eigen::MatrixXf float32_state(const Eigen::MatrixXf& x, const Eigen::MatrixXf& values, Eigen::Index first,
                              Eigen::Index count) {
  Eigen::MatrixXf state = Eigen::MatrixXf::Zero(x.cols(), values.cols());
  for (Eigen::Index a = 0; a < x.cols(); ++a)
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      float sum = 0;
      for (Eigen::Index j = first; j < first + count; ++j) sum += x(j, a) * values(j, c);
      state(a, c) = sum;
    }
  return state;
}

// Causal: chunks of `chunk` rows. Key j is held relative to the running maximum M_j of the keys' log scales and
// query i takes it with exp(M_j − M_i) ≤ 1 (inside its chunk) or through the state, carried relative to the maximum
// at the end of the previous chunk and rescaled when it grows: no exponent ever depends on a later key.
Eigen::MatrixXf causal_numerators(const FormatFeatures& f, const Eigen::MatrixXf& values, int chunk,
                                  ProductPrecision p) {
  const Eigen::Index l = f.log_k.rows(), m = f.log_k.cols();
  Eigen::VectorXf running(l);
  for (Eigen::Index j = 0; j < l; ++j)
    running(j) = std::max(j > 0 ? running(j - 1) : -std::numeric_limits<float>::infinity(),
                          f.log_k.row(j).maxCoeff());
  Eigen::MatrixXf own(l, m);  // exp(ℓ_ja − M_j) ≤ 1
  for (Eigen::Index j = 0; j < l; ++j)
    for (Eigen::Index a = 0; a < m; ++a) own(j, a) = std::exp(f.log_k(j, a) - running(j));
  Eigen::MatrixXf out = Eigen::MatrixXf::Zero(l, values.cols()), state;
  for (Eigen::Index first = 0; first < l; first += chunk) {
    const Eigen::Index rows = std::min<Eigen::Index>(chunk, l - first), last = first + rows - 1;
    const Eigen::MatrixXf scores = float32_product_abt(f.phi_q.middleRows(first, rows),
                                                       rounded_to_format(own.middleRows(first, rows), p));
    Eigen::MatrixXf weights = Eigen::MatrixXf::Zero(rows, rows);  // masked, rescaled, in the format
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j <= i; ++j)
        weights(i, j) = round_to_precision(scores(i, j) * std::exp(running(first + j) - running(first + i)), p);
    const Eigen::MatrixXf local = float32_product_abt(weights, values.middleRows(first, rows).transpose());
    out.middleRows(first, rows) = local;
    if (first > 0) {
      const Eigen::MatrixXf carried = float32_product_abt(f.phi_q.middleRows(first, rows),
                                                          rounded_to_format(state.transpose(), p));
      for (Eigen::Index i = 0; i < rows; ++i)
        out.row(first + i) += carried.row(i) * std::exp(running(first - 1) - running(first + i));
    }
    Eigen::MatrixXf to_end(l, m);  // this chunk's keys relative to M at its end, in the format
    for (Eigen::Index j = first; j <= last; ++j)
      for (Eigen::Index a = 0; a < m; ++a)
        to_end(j, a) = round_to_precision(own(j, a) * std::exp(running(j) - running(last)), p);
    const Eigen::MatrixXf added = float32_state(to_end, values, first, rows);
    state = first > 0 ? Eigen::MatrixXf(state * std::exp(running(first - 1) - running(last)) + added) : added;
  }
  return out;
}

}  // namespace

Eigen::MatrixXf favor_in_precision(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                   const Eigen::MatrixXf& w, ProductPrecision precision, int causal_chunk) {
  require_favor_shapes(q, k, v, w, causal_chunk);
  const FormatFeatures f = format_features(q, k, w, precision);
  const Eigen::Index dv = v.cols();
  Eigen::MatrixXf values(v.rows(), dv + 1);
  values << rounded_to_format(v, precision), Eigen::VectorXf::Ones(v.rows());
  Eigen::MatrixXf numerators;
  if (causal_chunk > 0) {
    numerators = causal_numerators(f, values, causal_chunk, precision);
  } else {
    // Keys relative to the largest log feature of all keys; the state S = Φ_Kᵀ [V, 1], rounded for Φ_Q S.
    const float top = f.log_k.maxCoeff();
    const Eigen::MatrixXf phi_k =
        f.log_k.unaryExpr([&](float x) { return round_to_precision(std::exp(x - top), precision); });
    const Eigen::MatrixXf state = rounded_to_format(float32_state(phi_k, values, 0, values.rows()), precision);
    numerators = float32_product_abt(f.phi_q, state.transpose());
  }
  Eigen::MatrixXf out(q.rows(), dv);
  for (Eigen::Index i = 0; i < q.rows(); ++i)
    for (Eigen::Index c = 0; c < dv; ++c) out(i, c) = numerators(i, c) / numerators(i, dv);
  return out;
}

namespace {

// What a term of D_i and N_ic passes through after its two features (docs/theory.md#favor-in-reduced-precision).
struct TermChain {
  int roundings = 1;         // into the format (D; N one more, for V)
  int rescales = 0;          // float32 factors exp(M − M′)
  double sum_terms = 0;      // float32 sums along the chain, each product's rounding included
  int key_subtractions = 2;  // rounded subtractions in a key's exponent
};

TermChain term_chain(Eigen::Index l, Eigen::Index m, int causal_chunk) {
  if (causal_chunk <= 0) return TermChain{1, 0, static_cast<double>(l + m + 2), 2};
  const Eigen::Index chunks = (l + causal_chunk - 1) / causal_chunk;
  // Key exponents: p − h, ℓ − M_j, the rescale to M_i or to the chunk's end, the state's rescales (their arguments
  // telescope to at most 2|M|) and the carried state's rescale to M_i, each at most 2C_K in size.
  return TermChain{2, static_cast<int>(chunks) + 2, static_cast<double>(l + m + causal_chunk + 3), 9};
}

}  // namespace

Eigen::MatrixXd favor_precision_bound(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                                      const Eigen::MatrixXf& w, const ProductRounding& r, int causal_chunk) {
  require_favor_shapes(q, k, v, w, causal_chunk);
  const double d = static_cast<double>(q.cols()), lk = static_cast<double>(k.rows());
  const double m = static_cast<double>(w.rows()), u = r.operand, e = r.arithmetic;
  const TermChain chain = term_chain(k.rows(), w.rows(), causal_chunk);
  const double inf = std::numeric_limits<double>::infinity();
  const double scale = 1 / std::sqrt(std::sqrt(d));
  const Eigen::MatrixXd qs = q.cast<double>() * scale, ks = k.cast<double>() * scale, wd = w.cast<double>();
  // Projections and their magnitudes Σ_c |x̃_c||w_ac| (the scale of each projection's rounding error).
  const Eigen::MatrixXd pq = qs * wd.transpose(), pk = ks * wd.transpose();
  const Eigen::MatrixXd sq = qs.cwiseAbs() * wd.cwiseAbs().transpose(), sk = ks.cwiseAbs() * wd.cwiseAbs().transpose();
  const double theta = (1 + u) * (1 + u) * (1 + sum_gamma(d + 5, e)) - 1;
  const auto relative = [&](double tau) { return std::exp(tau) * (1 + r.exp) * (1 + u) - 1; };
  // Keys: exponent errors, then the largest relative feature error ρ_K over all keys.
  const Eigen::VectorXd half_norm = 0.5 * ks.rowwise().squaredNorm();
  const Eigen::VectorXd key_size = (pk.cwiseAbs() + sk).rowwise().maxCoeff();
  const double c_size = (key_size + 2 * half_norm).maxCoeff();
  double tau_k = 0;
  for (Eigen::Index j = 0; j < k.rows(); ++j)
    tau_k = std::max(tau_k, theta * sk.row(j).maxCoeff() + sum_gamma(d + 5, e) * half_norm(j) +
                                chain.key_subtractions * e * (key_size(j) + 2 * half_norm(j) + c_size));
  const double rho_k = relative(tau_k);
  // Exact features (keys relative to the largest log feature G of all), for D_i and the weights a_ij; a causal
  // query's terms are at the scale of its running maximum M_i, a factor exp(G − M_i) from these.
  const Eigen::MatrixXd log_k = pk.colwise() - half_norm;
  const double top = log_k.maxCoeff();
  const Eigen::MatrixXd phi_k = (log_k.array() - top).exp().matrix();
  const Eigen::VectorXd key_top = log_k.rowwise().maxCoeff();
  const double omega = 0x1p-126;  // a feature below float's normal range: absolute error at most this
  const double sums = sum_gamma(chain.sum_terms, e), rescale = std::pow((1 + r.exp) * (1 + e), chain.rescales);
  Eigen::MatrixXd out(q.rows(), v.cols());
  double running = -inf;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    running = std::max(running, key_top(std::min<Eigen::Index>(i, k.rows() - 1)));
    const Eigen::Index keys = causal_chunk > 0 ? i + 1 : k.rows();
    const double size = (pq.row(i).cwiseAbs() + sq.row(i)).maxCoeff();
    const double tau_q = theta * sq.row(i).maxCoeff() + 2 * e * size;
    if (std::max(tau_q, tau_k) > 0.3) {
      out.row(i).setConstant(inf);
      continue;
    }
    const double rho_q = relative(tau_q), features = (1 + rho_q) * (1 + rho_k) * rescale * (1 + sums);
    const double eta_d = features * std::pow(1 + u, chain.roundings) - 1;
    const double eta_n = features * std::pow(1 + u, chain.roundings + 1) - 1;
    const Eigen::RowVectorXd phi_q = (pq.row(i).array() - pq.row(i).maxCoeff()).exp().matrix();
    const Eigen::VectorXd s = phi_k.topRows(keys) * phi_q.transpose();  // s_ij > 0 for every key j
    const double eps_d = 4 * omega * lk * m * features * std::pow(1 + u, chain.roundings + 1);
    out.row(i) = ratio_bound_row(s, v.topRows(keys), eta_n, eta_d, eps_d,
                                 causal_chunk > 0 ? std::exp(top - running) : 1.0, u, e);
  }
  return out;
}

}  // namespace favorlab
