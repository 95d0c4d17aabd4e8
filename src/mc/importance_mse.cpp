#include "mc/importance_mse.hpp"

#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "features/feature_map.hpp"
#include "kernels/softmax_kernel.hpp"
#include "runtime/eigen_threads.hpp"
#include "rng/philox_stream.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kLogSqrtTwoPi = 0.5 * std::log(2 * std::numbers::pi);

// Search box of the proposal (docs/theory.md#importance-sampling-for-positive-and-hyperbolic-features): σ ≥ 0.9
// keeps the moments up to the 4th finite (σ² > 3/4); σ ≤ 3 and μ ≤ 3r + 3 are far beyond the measured optima
// (σ ≤ 1.75, μ ≈ 2r, μ ≈ 1.9 for hyperbolic as r → 0).
constexpr double kMinSd = 0.9, kMaxSd = 3.0;

// Quadrature (integrate_log below).
// The envelope range reaches kEnvelopeSds standard deviations beyond every Gaussian term of an upper envelope of the
// integrand, so a neglected envelope tail is below e^{−kEnvelopeSds²/2} = e^{−288} of that term — far below the
// ratio of the envelope to the true integral, ≲ (4/r²)^k for (h+1)^{2k} against (h−1)^{2k} (~1e68 at r = 1e-11, k = 3).
constexpr double kEnvelopeSds = 24;
// Inside that range only the hull of grid points with a log integrand within kLogDrop of the largest is integrated;
// what lies outside is below e^{−80} ≈ 2e-35 of the peak per unit length (relative 1e-32 over a range of 1e3 widths).
constexpr double kLogDrop = 80;
// Relative accuracy asked of the Gauss–Kronrod pieces (against the whole integral): the k = 1 moment must match
// Lemma 2 to 1e-10 (tests); 1e-14 leaves four digits of margin above that and sits just above rounding.
constexpr double kRelativeTolerance = 1e-14;
constexpr unsigned kMaxDepth = 10;  // pieces are one Gaussian width already; smooth ones stop by depth 3
}  // namespace

void require_importance_estimator(Family e) {
  if (!is_importance_estimator(e))
    throw std::invalid_argument("estimator must be positive or hyperbolic for importance sampling, got '" +
                                std::string(estimator_name(e)) + "'");
}

// The quadrature grid spans the widest Gaussian term at the resolution of the narrowest: |mean| ≤ 1000 and sd ≤ 100
// keep it below ~1e5 points (proposals that wide are useless anyway: the optima have σ < 2, μ ≈ 2r).
void check_importance_proposal(const ImportanceProposal& q) {
  if (!(std::abs(q.mean) <= 1000))
    throw std::invalid_argument("proposal mean must be finite with |mean| <= 1000, got " + std::to_string(q.mean));
  if (!(q.sd > 0 && q.sd <= 100))
    throw std::invalid_argument("proposal sd must lie in (0, 100], got " + std::to_string(q.sd));
}

namespace {

// ‖z‖ of a valid geometry; z_sq can round to a tiny negative value at cos = −1, ‖x‖ = ‖y‖.
double z_norm(const Geometry& g) { return std::sqrt(std::max(0.0, g.z_sq())); }

// log((1 + e^t)/2) without overflow.
double log_half_one_plus_exp(double t) {
  return (t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t))) - std::numbers::ln2;
}

// log cosh x: for |x| < 1 through cosh x − 1 = 2 sinh²(x/2) (no rounding of 1 + tiny), else
// |x| + log((1 + e^{−2|x|})/2).
double log_cosh(double x) {
  x = std::abs(x);
  if (x < 1) {
    const double sh = std::sinh(x / 2);
    return std::log1p(2 * sh * sh);
  }
  return x + std::log1p(std::exp(-2 * x)) - std::numbers::ln2;
}

// log|e^u − 1| (−inf at u = 0), without overflow for large u.
double log_abs_expm1(double u) { return u > 40 ? u + std::log1p(-std::exp(-u)) : std::log(std::abs(std::expm1(u))); }

// log q(s) of the proposal q, given log q.sd.
double log_proposal_density(const ImportanceProposal& q, double log_sd, double s) {
  const double u = (s - q.mean) / q.sd;
  const double single = -u * u / 2 - log_sd - kLogSqrtTwoPi;
  if (!q.symmetric || q.mean == 0) return single;
  // N(−μ)(s)/N(μ)(s) = e^{−2μs/σ²}
  return single + log_half_one_plus_exp(-2 * q.mean * s / (q.sd * q.sd));
}

// The integrand family of one estimator, geometry and proposal, all relative to SM:
//   log h(s), log w(s) = log φ(s) − log q(s), log q(s).
class Integrands {
 public:
  Integrands(Family e, double r, const ImportanceProposal& q) : e_(e), r_(r), q_(q), log_sd_(std::log(q.sd)) {}

  double log_h(double s) const {
    const double half = r_ * r_ / 2;
    return e_ == Family::positive ? r_ * s - half : log_cosh(r_ * s) - half;
  }
  double log_q(double s) const { return log_proposal_density(q_, log_sd_, s); }
  double log_w(double s) const { return -s * s / 2 - kLogSqrtTwoPi - log_q(s); }

  // log F(s): F = (h − 1)² for the squared error, F = h for the estimate.
  double log_f(bool squared_error, double s) const {
    return squared_error ? 2 * log_abs_expm1(log_h(s)) : log_h(s);
  }

  // A range [lo, hi] holding the mass of every integrand F^i φ^i q^{1−i} for i in [i_min, i_max], and the
  // resolution (a quarter of the narrowest Gaussian width) at which to look at it. Upper envelope: F^i ≤
  // Σ_c C_c e^{c r s} with c ∈ [0, 2i] (positive squared error, (h + 1)^{2i}), [−2i, 2i] (hyperbolic), c = i
  // (positive estimate) or [−i, i] (hyperbolic estimate); φ^i q^{1−i} ≤ const · Gaussian(m_i, 1/A_i) with
  // A_i = i − (i−1)/σ², m_i = −(i−1)μ/(σ² A_i) (for the mixture, q ≥ ½N(±μ, σ²) gives the same with ±μ).
  // e^{crs} shifts a Gaussian's peak by c r/A_i.
  std::pair<std::array<double, 2>, double> range(bool squared_error, int i_min, int i_max) const {
    double lo = kInf, hi = -kInf, a_max = 0;
    const double inv_var = 1 / (q_.sd * q_.sd);
    for (int i = i_min; i <= i_max; ++i) {
      const double a = i - (i - 1) * inv_var;
      a_max = std::max(a_max, a);
      const double c_hi = squared_error ? 2.0 * i : static_cast<double>(i);
      const double c_lo = e_ == Family::hyperbolic ? -c_hi : (squared_error ? 0.0 : c_hi);
      const double spread = kEnvelopeSds / std::sqrt(a);
      for (double sign : {1.0, -1.0}) {
        if (sign < 0 && !q_.symmetric) continue;
        const double m = -(i - 1) * sign * q_.mean * inv_var / a;
        lo = std::min(lo, m + c_lo * r_ / a - spread);
        hi = std::max(hi, m + c_hi * r_ / a + spread);
      }
    }
    return {{lo, hi}, 0.25 / std::sqrt(a_max)};
  }

 private:
  Family e_;
  double r_;
  ImportanceProposal q_;
  double log_sd_;
};

// log ∫ |f| over the parts of the line where f > 0 and where f < 0, given ℓ = log|f| (−inf where f = 0) and the sign
// of f, for an integrand whose mass lies in [lo, hi] and varies on scales ≥ 4·step.
// ℓ is sampled on a grid of that step; the hull of grid points within kLogDrop of the largest sample is cut into
// pieces of 4 steps, and at every sign change between grid samples (located by bisection), so that no piece has a
// kink; each piece is integrated by the 61-point Kronrod rule with e^{ℓ − max} (no overflow), refined adaptively
// where its error estimate exceeds kRelativeTolerance of the whole.
struct LogParts {
  double positive = -kInf, negative = -kInf;
};

template <class LogAbs, class Sign>
LogParts integrate_log(const LogAbs& ell, const Sign& sign, double lo, double hi, double step) {
  // A moment next to the edge of its existence (σ² → (k−1)/k) is a Gaussian of vanishing precision A_k: its range
  // outgrows any grid at the resolution of the other terms.
  constexpr double kMaxGrid = 1 << 22;
  if (!((hi - lo) / step < kMaxGrid))
    throw std::invalid_argument("proposal sd is too close to sqrt((k-1)/k), where the k-th moment stops existing: "
                                "its quadrature would need more than 4e6 points; use sd >= 0.9");
  const auto n = static_cast<std::size_t>(std::ceil((hi - lo) / step)) + 1;
  std::vector<double> grid(n), value(n);
  double peak = -kInf;
  for (std::size_t i = 0; i < n; ++i) {
    grid[i] = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
    value[i] = ell(grid[i]);
    if (value[i] > peak) peak = value[i];
  }
  if (!(peak > -kInf)) return {};
  if (!std::isfinite(peak)) return {kInf, kInf};  // the integrand itself overflowed the log (never for valid input)
  std::size_t first = n, last = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (value[i] >= peak - kLogDrop) {
      first = std::min(first, i);
      last = i;
    }
  first = first > 0 ? first - 1 : 0;
  last = std::min(n - 1, last + 1);

  // Piece boundaries: every 4th grid point, plus the sign changes of f between neighbouring grid points (two sign
  // changes inside one grid step go unseen; the piece then keeps a C² kink, which the adaptive refinement handles).
  std::vector<double> cuts{grid[first]};
  for (std::size_t i = first + 1; i <= last; ++i) {
    const int s0 = sign(grid[i - 1]), s1 = sign(grid[i]);
    if (s0 != 0 && s1 != 0 && s0 != s1) {
      double a = grid[i - 1], b = grid[i];
      for (int it = 0; it < 200 && b - a > 4 * std::numeric_limits<double>::epsilon() * (std::abs(a) + 1); ++it) {
        const double mid = (a + b) / 2;
        if (sign(mid) == s0) a = mid;
        else b = mid;
      }
      cuts.push_back((a + b) / 2);
    }
    if ((i - first) % 4 == 0 || i == last) cuts.push_back(grid[i]);
  }

  using Kronrod = boost::math::quadrature::gauss_kronrod<double, 61>;
  const auto scaled = [&](double s) {
    const double l = ell(s);
    return l > -kInf ? std::exp(l - peak) : 0.0;
  };
  struct Piece {
    double a, b, value, error, l1;
    int sign;
  };
  std::vector<Piece> pieces;
  double total = 0;
  for (std::size_t i = 1; i < cuts.size(); ++i) {
    if (!(cuts[i] > cuts[i - 1])) continue;
    Piece p{cuts[i - 1], cuts[i], 0, 0, 0, sign((cuts[i - 1] + cuts[i]) / 2)};
    p.value = Kronrod::integrate(scaled, p.a, p.b, 0, 0.0, &p.error, &p.l1);
    total += p.value;
    pieces.push_back(p);
  }
  // The integrand is exp(ℓ − max ℓ) with ℓ itself a sum of terms of size ~|max ℓ|, so its values carry a relative
  // rounding noise of about ε·|max ℓ| (measured: with |max ℓ| ≈ 250 the Kronrod–Gauss differences never fell below
  // 1e-13 of the whole). Asking for less than that noise buys nothing but pieces split to full depth
  // (docs/performance.md#tried-and-dropped).
  const double tolerance =
      std::max(kRelativeTolerance, 16 * std::numeric_limits<double>::epsilon() * (1 + std::abs(peak)));
  double pos = 0, neg = 0;
  for (Piece& p : pieces) {
    if (p.error > tolerance * total && p.l1 > 0) {
      const double tol = std::max(tolerance * total / p.l1, 4 * std::numeric_limits<double>::epsilon());
      p.value = Kronrod::integrate(scaled, p.a, p.b, kMaxDepth, tol, &p.error, &p.l1);
    }
    (p.sign < 0 ? neg : pos) += p.value;
  }
  LogParts out;
  if (pos > 0) out.positive = peak + std::log(pos);
  if (neg > 0) out.negative = peak + std::log(neg);
  return out;
}

// log E_q[v^k] for v = F w: ∫ F^k φ^k q^{1−k} (positive integrand).
double log_raw_moment(const Integrands& in, bool squared_error, int k) {
  const auto [bounds, step] = in.range(squared_error, k, k);
  const auto ell = [&](double s) { return k * (in.log_f(squared_error, s) + in.log_w(s)) + in.log_q(s); };
  return integrate_log(ell, [](double) { return 1; }, bounds[0], bounds[1], step).positive;
}

// log of the positive and negative parts of E_q[(Y − 1)^j], Y = v/E_q[v] (log E_q[v] = log_mean).
LogParts log_central_moment(const Integrands& in, bool squared_error, int j, double log_mean) {
  const auto [bounds, step] = in.range(squared_error, 0, j);
  const auto log_y = [&](double s) { return in.log_f(squared_error, s) + in.log_w(s) - log_mean; };
  const auto ell = [&](double s) { return j * log_abs_expm1(log_y(s)) + in.log_q(s); };
  const auto sign = [&](double s) {
    const double u = log_y(s);
    return (j % 2 == 0 || u > 0) ? 1 : (u < 0 ? -1 : 0);
  };
  return integrate_log(ell, sign, bounds[0], bounds[1], step);
}

WeightedMoments weighted_moments(Family e, const Geometry& g, const ImportanceProposal& q, bool squared_error) {
  require_importance_estimator(e);
  check_importance_proposal(q);
  validate_geometry(g, 2);  // the moments do not depend on d; d = 2 admits every cosine
  const Integrands in(e, z_norm(g), q);
  WeightedMoments out;
  const double var = q.sd * q.sd;
  const double log_m1 = log_raw_moment(in, squared_error, 1);
  if (log_m1 == -kInf) {  // v ≡ 0: the squared error at r = 0
    out.degenerate = true;
    return out;
  }
  out.mean = std::exp(log_m1);
  out.finite = var > 2.0 / 3;
  out.second = var > 0.5 ? std::exp(log_raw_moment(in, squared_error, 2)) : kInf;
  out.third = out.finite ? std::exp(log_raw_moment(in, squared_error, 3)) : kInf;
  if (!(var > 0.5)) {
    out.relative_variance = out.skewness = kInf;
    return out;
  }
  const double log_var = log_central_moment(in, squared_error, 2, log_m1).positive;
  out.relative_variance = std::exp(log_var);
  if (!(out.relative_variance > kRoundingRelativeVariance)) {
    out.relative_variance = 0;
    out.degenerate = true;
    return out;
  }
  if (!out.finite) {
    out.skewness = kInf;
    return out;
  }
  const LogParts third = log_central_moment(in, squared_error, 3, log_m1);
  out.skewness = std::exp(third.positive - 1.5 * log_var) - std::exp(third.negative - 1.5 * log_var);
  return out;
}

// Minimum of f on [lo, hi]: a scan of `points` equally spaced values, then Brent's method between the neighbours of
// the best one (the objectives are unimodal: log E_q[y^k] is convex in the natural parameters (μ/σ², 1/σ²) of a
// single Gaussian — a log-integral of exponentials of linear functions plus k−1 times the convex log-partition —
// and the scan guards the mixture, where that argument does not apply).
template <class F>
std::pair<double, double> scan_then_brent(const F& f, double lo, double hi, int points, int bits) {
  std::vector<double> x(static_cast<std::size_t>(points)), fx(x.size());
  std::size_t best = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(points - 1);
    fx[i] = f(x[i]);
    if (fx[i] < fx[best]) best = i;
  }
  const double a = x[best > 0 ? best - 1 : 0], b = x[std::min(x.size() - 1, best + 1)];
  std::uintmax_t iterations = 64;
  const auto [xm, fm] = boost::math::tools::brent_find_minima(f, a, b, bits, iterations);
  return fm < fx[best] ? std::pair{xm, fm} : std::pair{x[best], fx[best]};
}

}  // namespace

ImportanceTrials run_importance_trials(std::int64_t trials, int threads, std::uint64_t seed, std::uint64_t stream,
                                       int d, const std::function<ImportanceDraw(PhiloxStream&, const Eigen::VectorXd&)>& draw,
                                       const ProgressFn& progress, std::int64_t first_trial,
                                       const ImportanceTrials* initial) {
  const EigenSingleThread eigen_single_thread;  // the trials loop is the parallelism (runtime/eigen_threads.hpp)
  return run_parallel_trials(
      trials, threads, ImportanceTrials{},
      [&](std::int64_t trial, ImportanceTrials& acc) {
        PhiloxStream rng(seed, stream, static_cast<std::uint64_t>(trial));
        Eigen::VectorXd xi(d);
        rng.normals(xi.data(), d);
        const ImportanceDraw one = draw(rng, xi);
        acc.add(one.weight, one.ratio);
      },
      progress, first_trial, initial);
}

double proposal_log_ratio(const ImportanceProposal& q, double s) {
  return log_proposal_density(q, std::log(q.sd), s) + s * s / 2 + kLogSqrtTwoPi;
}

bool is_importance_estimator(Family e) { return e == Family::positive || e == Family::hyperbolic; }

WeightedMoments weighted_squared_error_moments(Family e, const Geometry& g, const ImportanceProposal& q) {
  return weighted_moments(e, g, q, true);
}

WeightedMoments weighted_estimate_moments(Family e, const Geometry& g, const ImportanceProposal& q) {
  return weighted_moments(e, g, q, false);
}

ImportanceProposal optimal_importance_proposal(Family e, const Geometry& g, ProposalCriterion criterion) {
  require_importance_estimator(e);
  validate_geometry(g, 2);
  const bool symmetric = e == Family::hyperbolic;
  const double r = z_norm(g);
  if (r == 0) return {0, 1, symmetric};
  const int k = criterion == ProposalCriterion::relative_second_moment ? 2 : 3;
  // E_q[y] does not depend on q, so minimising log E_q[y^k] minimises the relative k-th moment.
  const auto objective = [&](double mu, double sd) {
    const double v = log_raw_moment(Integrands(e, r, {mu, sd, symmetric}), true, k);
    return std::isnan(v) ? kInf : v;
  };
  const double mu_max = 3 * r + 3;
  // Tolerances: 2^-14 relative in σ and 2^-16 in μ move the objective by far less than its own scale (its
  // curvature is O(1) in these units); the proposal only needs to be good, any admissible one is unbiased.
  const auto best_mu = [&](double sd) {
    return scan_then_brent([&](double mu) { return objective(mu, sd); }, 0.0, mu_max, 9, 16);
  };
  const double sd = scan_then_brent([&](double s) { return best_mu(s).second; }, kMinSd, kMaxSd, 7, 14).first;
  return {best_mu(sd).first, sd, symmetric};
}

namespace {

}  // namespace

void set_a_priori_moments(ImportanceSampledMse& out, const WeightedMoments& squared_error,
                          const WeightedMoments& estimate, const WeightedMoments& plain, double sm, const Geometry& g) {
  if (!std::isfinite(sm * sm * squared_error.mean))
    throw std::invalid_argument("the MSE at x'y = " + std::to_string(g.dot()) + ", |z|^2 = " +
                                std::to_string(g.z_sq()) + " overflows double precision; use smaller norms");
  out.estimate_skewness = estimate.skewness;
  out.mse_skewness = squared_error.skewness;
  out.relative_variance = squared_error.relative_variance;
  out.plain_relative_variance = plain.relative_variance;
}

ImportanceFrame importance_frame(const Geometry& g, int d) {
  const Eigen::VectorXd x = geometry_x(g, d), y = geometry_y(g, d);
  const Eigen::VectorXd z = x + y;
  const double r = z.norm();
  // At z = 0 the integrands depend on ω only through quantities no direction changes: any unit vector will do.
  return {x.transpose(), y.transpose(), r > 0 ? Eigen::VectorXd(z / r) : Eigen::VectorXd::Unit(d, 0)};
}

void ImportanceTrials::add(double weight, double ratio) {
  const double a = weight * ratio, err = ratio - 1, sq = weight * err * err;
  if (std::isfinite(a) && std::isfinite(sq)) {
    estimate.add(a);
    squared.add(sq);
  } else {
    ++nonfinite;
  }
}

void ImportanceTrials::merge(const ImportanceTrials& other) {
  estimate.merge(other.estimate);
  squared.merge(other.squared);
  nonfinite += other.nonfinite;
}

void ImportanceTrials::report(double sm, int m, ImportanceSampledMse& out) const {
  out.trials = squared.count();
  out.nonfinite = nonfinite;
  out.estimate_mean = sm * estimate.mean();
  out.estimate_stderr = sm * estimate.standard_error();
  out.mse = sm * sm * squared.mean() / m;
  out.mse_stderr = sm * sm * squared.standard_error() / m;
}

ImportanceProposal mean_tuned_proposal(Family e, const Geometry& g) {
  require_importance_estimator(e);
  validate_geometry(g, 2);
  return {z_norm(g), 1, e == Family::hyperbolic};
}

double check_importance_run(Family e, const Geometry& g, int d, int m, std::int64_t trials, int threads) {
  require_importance_estimator(e);
  if (d < 1) throw std::invalid_argument("dimension d must be positive, got " + std::to_string(d));
  if (m < 1) throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(m));
  if (trials < 2) throw std::invalid_argument("trials must be at least 2, got " + std::to_string(trials));
  if (threads < 1) throw std::invalid_argument("threads must be at least 1, got " + std::to_string(threads));
  validate_geometry(g, d);
  const double sm = softmax_kernel(g);
  if (!std::isfinite(sm) || !(sm > 0))
    throw std::invalid_argument("the kernel value SM = exp(x'y) at x'y = " + std::to_string(g.dot()) +
                                " is not representable in double precision; use smaller norms");
  return sm;
}

ImportanceSampledMse importance_sampled_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                            std::uint64_t seed, std::uint64_t stream, int threads,
                                            const ProgressFn& progress) {
  check_importance_run(e, g, d, m, trials, threads);
  return importance_sampled_mse(e, g, d, m, trials, seed, stream, threads, optimal_importance_proposal(e, g), progress);
}

ImportanceSampledMse importance_sampled_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                            std::uint64_t seed, std::uint64_t stream, int threads,
                                            const ImportanceProposal& proposal, const ProgressFn& progress) {
  const double sm = check_importance_run(e, g, d, m, trials, threads);
  check_importance_proposal(proposal);

  ImportanceSampledMse result;
  result.proposal = proposal;
  set_a_priori_moments(result, weighted_squared_error_moments(e, g, result.proposal),
                       weighted_estimate_moments(e, g, result.proposal),
                       weighted_squared_error_moments(e, g, {0, 1, false}), sm, g);

  const ImportanceFrame frame = importance_frame(g, d);
  const Eigen::MatrixXd &xr = frame.x_row, &yr = frame.y_row;
  const Eigen::VectorXd& unit = frame.unit;
  const ImportanceProposal q = result.proposal;
  const Integrands weights(e, z_norm(g), q);

  const auto features = family_info(e).map->f64.features;  // the project's own map, one row of W
  const ImportanceTrials total = run_importance_trials(
      trials, threads, seed, stream, d,
      [&](PhiloxStream& rng, const Eigen::VectorXd& xi) {
        double s = q.mean + q.sd * rng.normal();
        if (q.symmetric && rng.uniform() < 0.5) s = -s;
        const Eigen::VectorXd omega = xi - unit.dot(xi) * unit + s * unit;
        const Eigen::MatrixXd w = omega.transpose();  // one projection row: m = 1
        Eigen::MatrixXd fx, fy;
        features(xr, w, fx);
        features(yr, w, fy);
        return ImportanceDraw{std::exp(weights.log_w(s)), fx.cwiseProduct(fy).sum() / sm};  // h = g/SM
      },
      progress);
  total.report(sm, m, result);
  return result;
}

}  // namespace favorlab
