#include "mc/importance_gerf.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/softmax_kernel.hpp"
#include "rng/philox_stream.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

namespace {

namespace mp = boost::multiprecision;
using Big50 = mp::number<mp::cpp_bin_float<50>, mp::et_off>;
using Big100 = mp::number<mp::cpp_bin_float<100>, mp::et_off>;
using Big250 = mp::number<mp::cpp_bin_float<250>, mp::et_off>;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A double for messages: std::to_string prints 1e-30 as 0.000000.
std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// Search box in units of 1/√(1 − 8a⁺) (docs/theory.md#importance-sampling-for-the-gerf-families):
// σ², τ² ≥ 0.81/(1 − 8a⁺) > 3/(4(1 − 8a⁺)), where the 4th moment of Y stops existing; 3 is far beyond the measured
// optima (σ ≤ 1.75).
constexpr double kMinScaledSd = 0.9, kMaxScaledSd = 3.0;
// Start of the Newton search (after the μ scan): σ = τ = this (× 1/√(1 − 8a⁺)) is inside the box and near the
// measured optima; τ = 1 there would be as good.
constexpr double kStartScaledSd = 1.3;
// Reported moments: relative rounding bound above which the 100-digit evaluation is redone with 250 digits.
constexpr double kMomentTolerance = 1e-20;
// Search objective: relative rounding bound above which an evaluation is redone at the next precision. The Newton
// steps compare objective values ~1e-9 apart near convergence; 1e-11 keeps the noise below that.
constexpr double kSearchTolerance = 1e-11;

void require_gerf_estimator(Family e) {
  if (!has_gerf_importance(e))
    throw std::invalid_argument("estimator must be " + family_list(has_gerf_importance, true) +
                                " for gerf importance sampling, got '" + std::string(estimator_name(e)) + "'");
}

void require_d(int d) {
  if (d < 1) throw std::invalid_argument("dimension d must be positive, got " + std::to_string(d));
}

void require_proposal(const GerfProposal& q) {
  if (!std::isfinite(q.mean))
    throw std::invalid_argument("proposal mean must be finite, got " + std::to_string(q.mean));
  if (!(q.sd > 0 && q.sd <= 1e3))
    throw std::invalid_argument("proposal sd must lie in (0, 1000], got " + std::to_string(q.sd));
  if (!(q.perp_sd > 0 && q.perp_sd <= 1e3))
    throw std::invalid_argument("proposal perp_sd must lie in (0, 1000], got " + std::to_string(q.perp_sd));
}

// Everything about the pair the moments depend on.
struct Pair {
  double a = 0;     // A of the isotropic gerf
  int k = 1;        // dimensions A acts in
  int n = 0;        // k − 1 directions across ẑ where A acts (0 for k = 1)
  double r_sq = 0;  // ‖z‖²
  bool degenerate() const { return a == 0 && r_sq == 0; }  // h ≡ 1, Y ≡ 0
  bool perp_free() const { return n > 0 && a != 0; }
  double box_scale() const { return 1 / std::sqrt(1 - 8 * std::max(a, 0.0)); }
};

Pair pair_of(Family e, const Geometry& g, int d, const FeatureParameters& params) {
  const PairGerf pg = gerf_importance_pair(e, g, d, params);
  if (pg.dimension != d && pg.dimension != 1)
    throw std::logic_error("gerf importance sampling knows A acting in all d or in 1 dimension, got " +
                           std::to_string(pg.dimension));
  Pair p;
  p.a = pg.a;
  p.k = pg.dimension;
  p.n = pg.dimension - 1;
  p.r_sq = std::max(0.0, g.z_sq());  // z_sq can round to a tiny negative value at cos = −1, ‖x‖ = ‖y‖
  return p;
}

// ---- the closed-form terms T(i, j) = E_q[w^j h^i] -----------------------------------------------------------------

// Natural parameters of q: ν = μ/σ², λ = 1/σ², κ = 1/τ².
struct Natural {
  double nu = 0, lambda = 1, kappa = 1;
};

// The pieces of log T(i, j) shared by its terms, in Real (all inputs are doubles, converted exactly).
template <class Real>
struct TermContext {
  Real a, r_sq, br, nu, lambda, kappa, log_lambda, log_kappa, log_1m4a;
  int k, n;

  // The search's variables are the natural parameters themselves.
  TermContext(const Pair& p, const Natural& x)
      : a(p.a), r_sq(p.r_sq), nu(x.nu), lambda(x.lambda), kappa(x.kappa), k(p.k), n(p.n) {
    init();
  }
  // A given proposal: its natural parameters in Real, so the moments are those of exactly (μ, σ, τ).
  TermContext(const Pair& p, const GerfProposal& q) : a(p.a), r_sq(p.r_sq), k(p.k), n(p.n) {
    const Real sd(q.sd), perp_sd(q.perp_sd);
    lambda = 1 / (sd * sd);
    nu = Real(q.mean) * lambda;
    kappa = 1 / (perp_sd * perp_sd);
    init();
  }

  void init() {
    using std::log;
    using std::sqrt;
    br = sqrt((Real(1) - 4 * a) * r_sq);  // B r
    log_lambda = log(lambda);
    log_kappa = log(kappa);
    log_1m4a = log(Real(1) - 4 * a);
  }

  Real quad_s(int i, int j) const { return Real(j) - (j - 1) * lambda - 4 * a * i; }  // A
  Real quad_u(int i, int j) const { return Real(j) - (j - 1) * kappa - 4 * a * i; }   // C
  bool exists(int i, int j) const { return quad_s(i, j) > 0 && (n == 0 || quad_u(i, j) > 0); }

  // log T(i, j) (docs/theory.md#importance-sampling-for-the-gerf-families); call only where exists(i, j).
  Real log_term(int i, int j) const {
    using std::log;
    const int jm = j - 1;
    const Real A = quad_s(i, j), b = i * br - jm * nu;
    Real out = -Real(jm) / 2 * log_lambda + Real(i * k) / 2 * log_1m4a - log(A) / 2 + b * b / (2 * A) +
               jm * nu * nu / (2 * lambda) - Real(i) * r_sq / 2;
    if (n > 0) out += -Real(n * jm) / 2 * log_kappa - Real(n) / 2 * log(quad_u(i, j));
    return out;
  }
};

double binomial(int n, int k) {
  double out = 1;
  for (int i = 1; i <= k; ++i) out = out * (n - k + i) / i;
  return out;
}

// ---- reported moments (multiprecision) ------------------------------------------------------------------------------

template <class Real>
struct Value {
  Real value = 0, error = 0;  // the quantity and a bound on its rounding error
  bool exists = true;
};

template <class Real>
Real epsilon_of() {
  return std::numeric_limits<Real>::epsilon();
}

// Σ_i coefficient_i T(i, j) over the given i, with its rounding bound and the digits its cancellation consumed.
template <class Real>
Value<Real> term_sum(const TermContext<Real>& t, int j, const std::vector<std::pair<int, double>>& terms,
                     double& cancellation_digits) {
  using std::abs;
  using std::exp;
  Value<Real> out;
  for (const auto& [i, c] : terms)
    if (!t.exists(i, j)) {
      out.exists = false;
      return out;
    }
  Real magnitude = 0, error = 0;
  for (const auto& [i, c] : terms) {
    const Real l = t.log_term(i, j);
    const Real term = c * exp(l);
    out.value += term;
    magnitude += abs(term);
    // log T has absolute rounding error ≲ ε (|log T| + 16) (a dozen operations on parts no larger than |log T| + a
    // few), so T has that relative error; the sum adds one ε per term.
    error += abs(term) * (abs(l) + 16 + static_cast<double>(terms.size()));
  }
  out.error = error * epsilon_of<Real>();
  if (out.value != 0)
    cancellation_digits =
        std::max(cancellation_digits, static_cast<double>(mp::log10(Big50(magnitude / abs(out.value)))));
  return out;
}

struct MomentsOut {
  WeightedMoments moments;
  bool resolved = true;  // every existing quantity within kMomentTolerance (relative), or degenerate
  double cancellation_digits = 0;
};

// Moments of Y (squared_error) or of w h, at precision Real.
template <class Real>
MomentsOut compute_moments(const Pair& p, const GerfProposal& q, bool squared_error) {
  using std::abs;
  using std::pow;
  MomentsOut out;
  WeightedMoments& wm = out.moments;
  const TermContext<Real> t(p, q);
  std::array<Value<Real>, 4> raw;
  for (int j = 1; j <= 3; ++j) {
    std::vector<std::pair<int, double>> terms;
    if (squared_error) {
      for (int i = 0; i <= 2 * j; ++i) terms.emplace_back(i, (i % 2 == 0 ? 1 : -1) * binomial(2 * j, i));
    } else {
      terms.emplace_back(j, 1.0);
    }
    raw[static_cast<std::size_t>(j)] = term_sum(t, j, terms, out.cancellation_digits);
  }
  const auto relative = [](const Value<Real>& v) {
    return v.value != 0 ? static_cast<double>(v.error / abs(v.value)) : kInfinity;
  };
  const auto to_double = [](const Real& v) {
    const double x = static_cast<double>(v);
    return std::isfinite(x) ? x : kInfinity;
  };
  const Value<Real>& m1 = raw[1];
  const Value<Real>& m2 = raw[2];
  const Value<Real>& m3 = raw[3];
  if (!(m1.value > 0) || relative(m1) > kMomentTolerance) {
    out.resolved = false;
    return out;
  }
  wm.mean = to_double(m1.value);
  wm.second = m2.exists ? to_double(m2.value) : kInfinity;
  wm.third = m3.exists ? to_double(m3.value) : kInfinity;
  wm.finite = m2.exists && m3.exists;
  if (!m2.exists) {
    wm.relative_variance = wm.skewness = kInfinity;
    return out;
  }
  // Central moments by differences of the raw ones (all in Real), with propagated rounding bounds.
  const Real var = m2.value - m1.value * m1.value;
  const Real var_error = m2.error + 2 * m1.value * m1.error + 4 * epsilon_of<Real>() * m2.value;
  // Constant as far as double precision can tell (a zero-variance proposal, w h ≡ 1, given up to the rounding of its
  // parameters): kRoundingRelativeVariance, the threshold of every weighted moment (mc/importance_mse.hpp says why).
  if (abs(var) <= 4 * var_error || var / (m1.value * m1.value) < kRoundingRelativeVariance) {
    wm.degenerate = true;
    wm.relative_variance = wm.skewness = 0;
    return out;
  }
  if (static_cast<double>(var_error / abs(var)) > kMomentTolerance) out.resolved = false;
  wm.relative_variance = to_double(var / (m1.value * m1.value));
  if (!m3.exists) {
    wm.skewness = kInfinity;
    return out;
  }
  const Real mu3 = m3.value - 3 * m1.value * m2.value + 2 * m1.value * m1.value * m1.value;
  const Real mu3_error = m3.error + 3 * (m1.error * m2.value + m1.value * m2.error) +
                         6 * m1.value * m1.value * m1.error +
                         8 * epsilon_of<Real>() * (m3.value + 3 * m1.value * m2.value);
  if (mu3 != 0 && static_cast<double>(mu3_error / abs(mu3)) > kMomentTolerance) out.resolved = false;
  wm.skewness = static_cast<double>(mu3 / pow(var, Real(1.5)));
  return out;
}

WeightedMoments moments(Family e, const Geometry& g, int d, const FeatureParameters& params, const GerfProposal& q,
                        bool squared_error, GerfMomentPrecision* precision, bool extended) {
  require_proposal(q);
  const Pair p = pair_of(e, g, d, params);
  if (squared_error && p.degenerate()) {
    if (precision) *precision = {0, 0};
    WeightedMoments wm;
    wm.degenerate = true;
    return wm;
  }
  MomentsOut out;
  int digits = 100;
  if (!extended) out = compute_moments<Big100>(p, q, squared_error);
  if (extended || !out.resolved) {
    digits = 250;
    out = compute_moments<Big250>(p, q, squared_error);
    if (!out.resolved)
      throw std::invalid_argument("the closed-form moments at |z|^2 = |x + y|^2 = " + number(p.r_sq) +
                                  " cancel beyond 250 digits; |x + y| is too small for them (|x + y| >= 1e-12 works)");
  }
  if (precision) *precision = {digits, out.cancellation_digits};
  return out.moments;
}

// ---- the search ----------------------------------------------------------------------------------------------------

// log E_q[Y³] with its gradient and Hessian in x = (ν, λ, κ).
struct Objective {
  double f = kInfinity;
  Eigen::Vector3d gradient = Eigen::Vector3d::Zero();
  Eigen::Matrix3d hessian = Eigen::Matrix3d::Identity();
};

// At precision Real; nullopt when the rounding bound exceeds kSearchTolerance (or the sum is not positive).
// With T_i = e^{ℓ_i}, weights ω_i = c_i T_i / Σ c_i T_i: ∇L = Σ ω_i ∇ℓ_i, ∇²L = Σ ω_i (∇²ℓ_i + ∇ℓ_i ∇ℓ_iᵀ) − ∇L ∇Lᵀ;
// per term (J = 2, A, b, C as in log_term):
//   ∂ν ℓ = −J b/A + Jν/λ,  ∂λ ℓ = −J/(2λ) + J/(2A) + J b²/(2A²) − Jν²/(2λ²),  ∂κ ℓ = −nJ/(2κ) + nJ/(2C),
//   ∂νν = J²/A + J/λ,  ∂νλ = −J² b/A² − Jν/λ²,  ∂λλ = J/(2λ²) + J²/(2A²) + J² b²/A³ + Jν²/λ³,
//   ∂κκ = nJ/(2κ²) + nJ²/(2C²),  ∂νκ = ∂λκ = 0.
template <class Real>
std::optional<Objective> third_moment_objective(const Pair& p, const Natural& x) {
  using std::abs;
  using std::exp;
  using std::log;
  constexpr int j = 3, jm = 2;
  const TermContext<Real> t(p, x);
  std::array<Real, 2 * j + 1> ell;
  Real peak = 0;
  for (int i = 0; i <= 2 * j; ++i) {
    if (!t.exists(i, j)) return Objective{};  // outside the third moment's domain (never inside the box)
    ell[static_cast<std::size_t>(i)] = t.log_term(i, j);
    if (i == 0 || ell[static_cast<std::size_t>(i)] > peak) peak = ell[static_cast<std::size_t>(i)];
  }
  Real sum = 0, error = 0;
  std::array<Real, 3> g1{};
  std::array<std::array<Real, 3>, 3> g2{};
  const Real nu = x.nu, lambda = x.lambda, kappa = x.kappa, n = p.n;
  for (int i = 0; i <= 2 * j; ++i) {
    const Real l = ell[static_cast<std::size_t>(i)];
    const Real term = ((i % 2 == 0 ? 1 : -1) * binomial(2 * j, i)) * exp(l - peak);
    sum += term;
    error += abs(term) * (abs(l) + 24);
    const Real A = t.quad_s(i, j), b = i * t.br - jm * nu;
    std::array<Real, 3> d1{-jm * b / A + jm * nu / lambda,
                           -jm / (2 * lambda) + jm / (2 * A) + jm * b * b / (2 * A * A) -
                               jm * nu * nu / (2 * lambda * lambda),
                           Real(0)};
    std::array<std::array<Real, 3>, 3> d2{};
    d2[0][0] = jm * jm / A + jm / lambda;
    d2[0][1] = d2[1][0] = -jm * jm * b / (A * A) - jm * nu / (lambda * lambda);
    d2[1][1] = jm / (2 * lambda * lambda) + jm * jm / (2 * A * A) + jm * jm * b * b / (A * A * A) +
               jm * nu * nu / (lambda * lambda * lambda);
    if (p.n > 0) {
      const Real C = t.quad_u(i, j);
      d1[2] = -n * jm / (2 * kappa) + n * jm / (2 * C);
      d2[2][2] = n * jm / (2 * kappa * kappa) + n * jm * jm / (2 * C * C);
    }
    for (std::size_t r = 0; r < 3; ++r) {
      g1[r] += term * d1[r];
      for (std::size_t c = 0; c < 3; ++c) g2[r][c] += term * (d2[r][c] + d1[r] * d1[c]);
    }
  }
  if (!(sum > 0)) return std::nullopt;
  if (static_cast<double>(error * epsilon_of<Real>() / sum) > kSearchTolerance) return std::nullopt;
  Objective o;
  o.f = static_cast<double>(log(sum) + peak);
  std::array<Real, 3> grad;
  for (std::size_t r = 0; r < 3; ++r) grad[r] = g1[r] / sum;
  for (std::size_t r = 0; r < 3; ++r) {
    o.gradient(static_cast<Eigen::Index>(r)) = static_cast<double>(grad[r]);
    for (std::size_t c = 0; c < 3; ++c)
      o.hessian(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          static_cast<double>(g2[r][c] / sum - grad[r] * grad[c]);
  }
  return o;
}

Objective evaluate(const Pair& p, const Natural& x) {
  if (auto o = third_moment_objective<double>(p, x)) return *o;
  if (auto o = third_moment_objective<Big50>(p, x)) return *o;
  if (auto o = third_moment_objective<Big100>(p, x)) return *o;
  throw std::invalid_argument("the proposal search at |z|^2 = |x + y|^2 = " + number(p.r_sq) +
                              " cancels beyond 100 digits; |x + y| is too small for it (|x + y| >= 1e-12 works)");
}

// One direction of the projected Newton search at x, where `best` is the objective: the free coordinates (ν, and λ, κ
// unless held at a bound of [lambda_lo, lambda_hi] by the gradient), the gradient over them, and the step over them.
struct NewtonDirection {
  std::vector<int> free;
  Eigen::VectorXd gf, step;
};

NewtonDirection newton_direction(const Objective& best, const Natural& x, bool perp, double lambda_lo,
                                 double lambda_hi) {
  const Eigen::Vector3d& grad = best.gradient;
  std::vector<int> free{0};
  const auto add_if_free = [&](int c, double value) {
    const double span = lambda_hi - lambda_lo;
    const bool at_lo = value <= lambda_lo + 1e-12 * span, at_hi = value >= lambda_hi - 1e-12 * span;
    if (!((at_lo && grad(c) > 0) || (at_hi && grad(c) < 0))) free.push_back(c);
  };
  add_if_free(1, x.lambda);
  if (perp) add_if_free(2, x.kappa);
  const auto nf = static_cast<Eigen::Index>(free.size());
  Eigen::MatrixXd h(nf, nf);
  Eigen::VectorXd gf(nf);
  for (Eigen::Index a = 0; a < nf; ++a) {
    gf(a) = grad(free[static_cast<std::size_t>(a)]);
    for (Eigen::Index b = 0; b < nf; ++b)
      h(a, b) = best.hessian(free[static_cast<std::size_t>(a)], free[static_cast<std::size_t>(b)]);
  }
  Eigen::VectorXd step;
  const Eigen::LLT<Eigen::MatrixXd> llt(h);
  if (llt.info() == Eigen::Success) step = -llt.solve(gf);
  if (step.size() == 0 || !step.allFinite() || step.dot(gf) >= 0)  // not positive definite by rounding: gradient
    step = -gf.cwiseQuotient(h.diagonal().cwiseAbs().cwiseMax(1e-12));
  return {std::move(free), std::move(gf), std::move(step)};
}

}  // namespace

bool has_gerf_importance(Family e) {
  const FamilyInfo& info = family_info(e);
  return info.pair_gerf != nullptr && info.iid_mse != nullptr;
}

PairGerf gerf_importance_pair(Family e, const Geometry& g, int d, const FeatureParameters& params) {
  require_gerf_estimator(e);
  require_d(d);
  validate_geometry(g, d);
  return family_info(e).pair_gerf(std::max(0.0, g.z_sq()), d, params);
}

GerfProposal optimal_gerf_proposal(Family e, const Geometry& g, int d, const FeatureParameters& params) {
  const Pair p = pair_of(e, g, d, params);
  if (p.degenerate()) return {};
  const double scale = p.box_scale();
  const double lambda_lo = 1 / (kMaxScaledSd * kMaxScaledSd * scale * scale);
  const double lambda_hi = 1 / (kMinScaledSd * kMinScaledSd * scale * scale);
  const bool perp = p.perp_free();
  const double start_lambda = 1 / (kStartScaledSd * kStartScaledSd * scale * scale);

  // Coarse scan of μ (σ, τ at the start value) around the mode 2Br/(1 − 8a) of φ h² along ẑ.
  const double r = std::sqrt(p.r_sq);
  const double mode = 2 * std::sqrt(1 - 4 * p.a) * r / (1 - 8 * p.a);
  Natural x{0, start_lambda, perp ? start_lambda : 1.0};
  Objective best = evaluate(p, x);
  for (double frac : {0.25, 0.5, 0.75, 1.0, 1.25}) {
    const Natural trial{frac * mode * start_lambda, start_lambda, x.kappa};
    const Objective o = evaluate(p, trial);
    if (o.f < best.f) {
      best = o;
      x = trial;
    }
  }

  // Projected Newton on the convex objective (docs/theory.md#importance-sampling-for-the-gerf-families).
  // Coordinates 0 = ν (free), 1 = λ, 2 = κ (boxed).
  const auto clamp = [&](Natural v) {
    v.lambda = std::clamp(v.lambda, lambda_lo, lambda_hi);
    v.kappa = perp ? std::clamp(v.kappa, lambda_lo, lambda_hi) : 1.0;
    return v;
  };
  for (int iteration = 0; iteration < 100; ++iteration) {
    const Eigen::Vector3d& grad = best.gradient;
    const auto [free, gf, step] = newton_direction(best, x, perp, lambda_lo, lambda_hi);
    const auto nf = static_cast<Eigen::Index>(free.size());
    const double decrement = -step.dot(gf);
    // Converged: the quadratic model promises less than the objective's own rounding.
    if (!(decrement > 1e-10 * std::max(1.0, std::abs(best.f)))) break;
    bool moved = false;
    for (double s = 1; s > 1e-12; s /= 2) {
      Natural trial = x;
      for (Eigen::Index a = 0; a < nf; ++a) {
        const double delta = s * step(a);
        switch (free[static_cast<std::size_t>(a)]) {
          case 0: trial.nu += delta; break;
          case 1: trial.lambda += delta; break;
          default: trial.kappa += delta; break;
        }
      }
      trial = clamp(trial);
      const Eigen::Vector3d moved_by(trial.nu - x.nu, trial.lambda - x.lambda, trial.kappa - x.kappa);
      const Objective o = evaluate(p, trial);
      if (o.f <= best.f + 1e-4 * grad.dot(moved_by)) {
        moved = o.f < best.f || moved_by.norm() > 0;
        x = trial;
        best = o;
        break;
      }
    }
    if (!moved) break;
  }
  GerfProposal q;
  q.sd = 1 / std::sqrt(x.lambda);
  q.mean = x.nu / x.lambda;
  q.perp_sd = perp ? 1 / std::sqrt(x.kappa) : 1.0;
  return q;
}

WeightedMoments gerf_weighted_squared_error_moments(Family e, const Geometry& g, int d,
                                                    const FeatureParameters& params, const GerfProposal& q,
                                                    GerfMomentPrecision* precision, bool extended) {
  return moments(e, g, d, params, q, true, precision, extended);
}

WeightedMoments gerf_weighted_estimate_moments(Family e, const Geometry& g, int d, const FeatureParameters& params,
                                               const GerfProposal& q, GerfMomentPrecision* precision,
                                               bool extended) {
  return moments(e, g, d, params, q, false, precision, extended);
}

namespace {

// Under MPI the trial blocks are exchanged between ranks (mc/parallel_trials.hpp): the accumulator must be encodable.
static_assert(BlockEncodable<ImportanceTrials>);

}  // namespace

namespace {

// The checks both entry points make before anything runs, in the order their errors are documented; returns SM.
double checked_run(Family e, const Geometry& g, int d, int m, std::int64_t trials, int threads,
                   const FeatureParameters& params) {
  require_gerf_estimator(e);
  require_d(d);
  if (m < 1) throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(m));
  if (trials < 2) throw std::invalid_argument("trials must be at least 2, got " + std::to_string(trials));
  if (threads < 1) throw std::invalid_argument("threads must be at least 1, got " + std::to_string(threads));
  validate_geometry(g, d);
  pair_of(e, g, d, params);  // refuses gerf's A
  const double sm = softmax_kernel(g);
  if (!std::isfinite(sm) || !(sm > 0))
    throw std::invalid_argument("the kernel value SM = exp(x'y) at x'y = " + std::to_string(g.dot()) +
                                " is not representable in double precision; use smaller norms");
  return sm;
}

}  // namespace

GerfProposal mean_tuned_gerf_proposal(Family e, const Geometry& g, int d, const FeatureParameters& params) {
  require_gerf_estimator(e);
  require_d(d);
  validate_geometry(g, d);
  const Pair pair = pair_of(e, g, d, params);
  // The product of one row's features is ∝ exp(2A‖ω‖² + √(1 − 4A) ωᵀz) in the k dimensions A acts in: times the
  // N(0, I) density that is N(z/√(1 − 4A), I/(1 − 4A)) there (docs/theory.md#lemma-1-by-the-zero-variance-proposal).
  const double scale = 1 / std::sqrt(1 - 4 * pair.a);
  return {std::sqrt(pair.r_sq) * scale, scale, pair.n > 0 ? scale : 1.0};
}

GerfImportanceSampledMse importance_sampled_gerf_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                                     std::uint64_t seed, std::uint64_t stream, int threads,
                                                     const FeatureParameters& params, const ProgressFn& progress) {
  checked_run(e, g, d, m, trials, threads, params);
  return importance_sampled_gerf_mse(e, g, d, m, trials, seed, stream, threads, params,
                                     optimal_gerf_proposal(e, g, d, params), progress);
}

GerfImportanceSampledMse importance_sampled_gerf_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                                     std::uint64_t seed, std::uint64_t stream, int threads,
                                                     const FeatureParameters& params, const GerfProposal& q,
                                                     const ProgressFn& progress) {
  const double sm = checked_run(e, g, d, m, trials, threads, params);
  const Pair pair = pair_of(e, g, d, params);
  require_proposal(q);

  GerfImportanceSampledMse result;
  result.pair = {pair.a, pair.k};
  result.gerf_proposal = q;
  result.proposal = {q.mean, q.sd, false};
  set_a_priori_moments(result, gerf_weighted_squared_error_moments(e, g, d, params, q),
                       gerf_weighted_estimate_moments(e, g, d, params, q),
                       gerf_weighted_squared_error_moments(e, g, d, params, {0, 1, 1}), sm, g);

  const ImportanceFrame frame = importance_frame(g, d);  // at z = 0 h depends on s only through s²
  const Eigen::MatrixXd &xr = frame.x_row, &yr = frame.y_row;
  const Eigen::VectorXd& unit = frame.unit;
  const int n = pair.n;                                // directions across ẑ where A acts (0 or d − 1)
  const double tau = n > 0 ? q.perp_sd : 1.0;          // their proposal sd; the others stay N(0, 1)
  const double log_weight_constant = std::log(q.sd) + n * std::log(tau);

  const ImportanceTrials total = run_importance_trials(
      trials, threads, seed, stream, d,
      [&](PhiloxStream& rng, const Eigen::VectorXd& xi) {
        const double s = q.mean + q.sd * rng.normal();
        const Eigen::VectorXd across = xi - unit.dot(xi) * unit;
        const Eigen::MatrixXd w = (s * unit + tau * across).transpose();  // one projection row: m = 1
        const double ratio = estimate_kernel(e, xr, yr, w, params)(0) / sm;  // g/SM = h
        // log w = log φ(s) − log N(s; μ, σ²) + n log τ − (τ² − 1) c/2 with c = ‖(I − ẑẑᵀ)ξ‖²
        // (docs/theory.md#importance-sampling-for-the-gerf-families).
        const double t = (s - q.mean) / q.sd;
        const double log_w = (t * t - s * s) / 2 + log_weight_constant -
                             (n > 0 ? (tau * tau - 1) * across.squaredNorm() / 2 : 0.0);
        return ImportanceDraw{std::exp(log_w), ratio};
      },
      progress);
  total.report(sm, m, result);
  return result;
}

}  // namespace favorlab
