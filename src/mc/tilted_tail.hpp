#pragma once
// The tail probability P[(1/m) Σ_{i≤m} X_i > a] of the regularized estimator with iid rows of norm √d, estimated under
// the exponential tilt of Theorem 3's Chernoff bound (docs/theory.md#the-tilted-estimate-of-the-iid-tail).
// One feature is X(t) = Λ e^{κt}, κ = √d‖z‖, with t = uᵀẑ of density p(t) ∝ (1 − t²)^{(d−3)/2} (d ≥ 2). Each t_i is
// drawn from the tilted law q(t) = p(t) e^{θX(t)}/M_X(θ), and a draw scores
//   Y = M_X(θ)^m e^{−θ ΣX_i} · 1[ΣX_i > m a],   E[Y] = P,   0 ≤ Y ≤ R = M_X(θ)^m e^{−θ m a},
// R being the Chernoff bound exp(−m (θa − log M_X(θ))) at this θ: a bounded variable whose mean is the probability.
// The tilted law is sampled exactly as a mixture: e^{θX(t)} = Σ_k (θΛ)^k e^{kκt}/k!, so
//   q = Σ_k π_k vMF_{kκ},   π_k = T_k/M_X(θ),   T_k = (θΛ)^k M_d(kκ)/k!
// with vMF_c the law of t under the von Mises–Fisher tilt e^{ct} (Wood's sampler, mc/importance_sphere.hpp): K from
// the weights, then t given K. The weights come from the Bessel form of M_d, checked term by term against its moment
// series. Their relative error ε (at least 1e-12), the mixture's truncation τ = P[Poisson(θ max X) > K] and the
// total variation η between the drawn K and the weights (the inverse CDF's rounding) bound how far the mean of Y
// over the draws, E_s[Y], can sit from P: E_s[Y]/R ∈ [((1 − ε)(1 − τ))^m P/R − mη, (1 + ε)^m P/R + mη].
#include <cstdint>
#include <vector>

#include "kernels/geometry.hpp"
#include "mc/parallel_trials.hpp"
#include "rng/philox_stream.hpp"

namespace favorlab {

// The tilted law of one feature. Throws std::invalid_argument for d < 2, an invalid geometry, θ not finite and > 0,
// or a mixture of more than kMaxTerms terms (θ·max X beyond ~300).
class TiltedFeature {
 public:
  TiltedFeature(const Geometry& g, int d, double theta);
  static constexpr int kMaxTerms = 512;

  double draw(PhiloxStream& rng) const;  // one X = Λ e^{κt}, t from the tilted law
  double log_mgf() const { return log_mgf_; }          // log Σ_{k≤K} T_k: log M_X(θ) as the weights have it
  double term_error() const { return term_error_; }    // ε
  double truncation() const { return truncation_; }    // τ
  double draw_error() const;                            // η: total variation of the drawn K from the weights
  int terms() const { return static_cast<int>(cumulative_.size()); }
  double theta() const { return theta_; }

 private:
  int d_;
  double theta_, kappa_, log_lambda_, log_mgf_ = 0, term_error_ = 0, truncation_ = 0;
  std::vector<double> cumulative_;  // Σ_{j≤k} π_j, the last entry 1
};

// Whether the tilted law of (g, d, θ) stays within kMaxTerms mixture terms (without building it).
bool tilted_feature_available(const Geometry& g, int d, double theta);

struct TiltedTailPoint {
  Geometry g;
  int m = 1;
  double a = 0;          // the threshold of the mean of m features
  double theta = 0;      // the tilt (the Chernoff-optimal θ of a)
  std::uint64_t key = 0;  // names the point's draws (below): a grid position, so other points do not move them
};

struct TiltedTailEstimate {
  double mean_ratio = 0;  // mean over the draws of Y/R = e^{−θ(ΣX − m a)}·1[ΣX > m a], each in [0, 1]
  double sd_ratio = 0;    // sample standard deviation of Y/R
  std::int64_t trials = 0, hits = 0;  // draws, and draws with ΣX > m a
  double log_range = 0;   // log R = m (log M_X(θ) − θa)
  // The draws' expected Y/R lies in [low_factor·P/R − shift, high_factor·P/R + shift].
  double low_factor = 1, high_factor = 1, shift = 0;
  int terms = 0;
};

// `trials` draws of every point. Draw n of a point uses PhiloxStream(seed, stream, key·2⁴⁰ + n), and the trials are
// reduced in fixed blocks (run_parallel_trials): the same numbers for any thread or rank count. Throws
// std::invalid_argument for trials < 1 or ≥ 2⁴⁰, threads < 1, m < 1, a key ≥ 2²⁴, or a point whose tilted law is
// refused (above).
std::vector<TiltedTailEstimate> run_tilted_tails(int d, const std::vector<TiltedTailPoint>& points, std::uint64_t seed,
                                                 std::uint64_t stream, std::int64_t trials, int threads,
                                                 const ProgressFn& progress = {});

}  // namespace favorlab
