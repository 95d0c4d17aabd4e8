#include "mc/tilted_tail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/smreg.hpp"
#include "mc/importance_sphere.hpp"

namespace favorlab {

namespace {

const double kLogTruncation = std::log(1e-17);  // the mixture's truncation τ stays below 1e-17
constexpr double kTermErrorFloor = 1e-12;

double kappa_of(const Geometry& g, int d) { return std::sqrt(d * g.z_sq()); }

void check_law(const Geometry& g, int d, double theta) {
  if (d < 2) throw std::invalid_argument("the tilted tail estimate needs d >= 2, got d = " + std::to_string(d));
  validate_geometry(g, d);
  if (!(theta > 0) || !std::isfinite(theta))
    throw std::invalid_argument("the tilt theta must be finite and > 0, got " + std::to_string(theta));
}

// The last term K of the mixture: the first K ≥ λ = θ·max X at which the bound on the Poisson tail,
// P[Poisson(λ) > K] ≤ e^{−λ} λ^{K+1}/(K+1)! / (1 − λ/(K+2)) (the terms beyond fall at least geometrically with ratio
// λ/(K+2)), is below 1e-17. Returns −1 past kMaxTerms; `log_tail` gets the bound's log.
int last_term(double log_rate, double& log_tail) {
  const double rate = std::exp(log_rate);
  for (int k = static_cast<int>(std::ceil(rate)); k < TiltedFeature::kMaxTerms; ++k) {
    log_tail = -rate + (k + 1) * log_rate - std::lgamma(k + 2.0) - std::log1p(-rate / (k + 2));
    if (log_tail <= kLogTruncation) return k;
  }
  return -1;
}

}  // namespace

bool tilted_feature_available(const Geometry& g, int d, double theta) {
  check_law(g, d, theta);
  double log_tail = 0;
  return last_term(std::log(theta) + g.log_lambda() + kappa_of(g, d), log_tail) >= 0;
}

TiltedFeature::TiltedFeature(const Geometry& g, int d, double theta)
    : d_(d), theta_(theta), kappa_((check_law(g, d, theta), kappa_of(g, d))), log_lambda_(g.log_lambda()) {
  double log_tail = 0;
  const int last = last_term(std::log(theta) + log_lambda_ + kappa_, log_tail);
  if (last < 0)
    throw std::invalid_argument("the tilted law needs more than " + std::to_string(kMaxTerms) +
                                " mixture terms here (theta * max X = " +
                                std::to_string(theta * std::exp(log_lambda_ + kappa_)) + ")");
  truncation_ = std::exp(log_tail);
  // log T_k = k log(θΛ) − log k! + log M_d(kκ), M_d by its Bessel form; its moment series is the independent check.
  std::vector<double> log_terms(static_cast<std::size_t>(last) + 1);
  double worst = 0, top = -std::numeric_limits<double>::infinity();
  for (int k = 0; k <= last; ++k) {
    const double bessel = log_sphere_mgf(d, k * kappa_), series = log_sphere_mgf_series(d, k * kappa_);
    worst = std::max(worst, std::abs(std::expm1(bessel - series)));
    log_terms[static_cast<std::size_t>(k)] = k * (std::log(theta) + log_lambda_) - std::lgamma(k + 1.0) + bessel;
    top = std::max(top, log_terms[static_cast<std::size_t>(k)]);
  }
  // Twice the disagreement allows the series to err as much as the Bessel form; the floor covers the factors
  // (θΛ)^k/k! the two share (|log| ≤ 10³ here, a few roundings of 2⁻⁵³ each).
  term_error_ = std::max(kTermErrorFloor, 2 * worst);
  double sum = 0;
  for (double lt : log_terms) sum += std::exp(lt - top);
  log_mgf_ = top + std::log(sum);
  cumulative_.reserve(log_terms.size());
  double running = 0;
  for (double lt : log_terms) cumulative_.push_back(running += std::exp(lt - top) / sum);
  cumulative_.back() = 1;  // what rounding left of Σ π_k = 1 goes to the last term (counted in draw_error)
}

double TiltedFeature::draw(PhiloxStream& rng) const {
  const double u = rng.uniform();  // in (0, 1): the first k with Σ_{j≤k} π_j > u has probability π_k
  const std::ptrdiff_t first = std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin();
  const auto k = std::min<std::ptrdiff_t>(first, terms() - 1);
  const double t = draw_sphere_tilt(d_, {static_cast<double>(k) * kappa_, 0.0}, rng);
  return std::exp(log_lambda_ + kappa_ * t);
}

double TiltedFeature::draw_error() const {
  // Each partial sum is off by at most (K + 1) roundings of 2⁻⁵³ (the last one also absorbs the forced 1), and u lives
  // on a grid of step 2⁻⁵³: every P[K = k] is off by at most 2(K + 2)·2⁻⁵³, the total variation by K + 1 times that.
  const double terms = static_cast<double>(cumulative_.size());
  return 2 * (terms + 1) * terms * 0x1.0p-53;
}

namespace {

struct Sums {
  std::vector<double> sum, sum_sq;
  std::vector<std::int64_t> hits;
  auto fields() { return std::tie(sum, sum_sq, hits); }  // for the exchange between MPI ranks (block_codec.hpp)
  void merge(const Sums& o) {
    for (std::size_t j = 0; j < sum.size(); ++j) {
      sum[j] += o.sum[j];
      sum_sq[j] += o.sum_sq[j];
      hits[j] += o.hits[j];
    }
  }
};

}  // namespace

std::vector<TiltedTailEstimate> run_tilted_tails(int d, const std::vector<TiltedTailPoint>& points, std::uint64_t seed,
                                                 std::uint64_t stream, std::int64_t trials, int threads,
                                                 const ProgressFn& progress) {
  constexpr std::int64_t kIndexBits = 40;
  if (trials < 1 || trials >= (std::int64_t{1} << kIndexBits))
    throw std::invalid_argument("--tilted-trials must lie in [1, 2^40), got " + std::to_string(trials));
  if (threads < 1) throw std::invalid_argument("--threads must be >= 1, got " + std::to_string(threads));
  // One law per distinct (geometry, θ): building one checks every mixture term against the moment series.
  std::vector<TiltedFeature> laws;
  std::vector<std::size_t> law_of;
  for (std::size_t j = 0; j < points.size(); ++j) {
    const TiltedTailPoint& p = points[j];
    if (p.key >= (std::uint64_t{1} << 24)) throw std::invalid_argument("tilted tail point key beyond 2^24");
    if (p.m < 1) throw std::invalid_argument("number of features m must be >= 1, got " + std::to_string(p.m));
    if (!std::isfinite(p.a)) throw std::invalid_argument("the tail threshold must be finite");
    std::size_t same = 0;
    while (same < j && !(points[same].g.x_norm == p.g.x_norm && points[same].g.y_norm == p.g.y_norm &&
                         points[same].g.cos_angle == p.g.cos_angle && points[same].theta == p.theta))
      ++same;
    if (same == j) {
      law_of.push_back(laws.size());
      laws.emplace_back(p.g, d, p.theta);
    } else {
      law_of.push_back(law_of[same]);
    }
  }
  const std::size_t n = points.size();
  const Sums zero{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::vector<std::int64_t>(n, 0)};
  const Sums total = run_parallel_trials(
      trials, threads, zero,
      [&](std::int64_t trial, Sums& acc) {
        for (std::size_t j = 0; j < n; ++j) {
          PhiloxStream rng(seed, stream, (points[j].key << kIndexBits) | static_cast<std::uint64_t>(trial));
          double sum = 0;
          for (int i = 0; i < points[j].m; ++i) sum += laws[law_of[j]].draw(rng);
          const double excess = sum - points[j].m * points[j].a;
          if (!(excess > 0)) continue;
          const double y = std::exp(-points[j].theta * excess);  // Y/R, in (0, 1]
          acc.sum[j] += y;
          acc.sum_sq[j] += y * y;
          ++acc.hits[j];
        }
      },
      progress);
  std::vector<TiltedTailEstimate> out(n);
  const auto count = static_cast<double>(trials);
  for (std::size_t j = 0; j < n; ++j) {
    TiltedTailEstimate& e = out[j];
    const TiltedFeature& law = laws[law_of[j]];
    const int m = points[j].m;
    e.trials = trials;
    e.hits = total.hits[j];
    e.mean_ratio = total.sum[j] / count;
    const double spread = total.sum_sq[j] - count * e.mean_ratio * e.mean_ratio;
    e.sd_ratio = trials > 1 ? std::sqrt(std::max(0.0, spread / (count - 1))) : 0.0;
    e.log_range = m * (law.log_mgf() - points[j].theta * points[j].a);
    e.low_factor = std::pow((1 - law.term_error()) * (1 - law.truncation()), m);
    e.high_factor = std::pow(1 + law.term_error(), m);
    e.shift = m * law.draw_error();
    e.terms = law.terms();
  }
  return out;
}

}  // namespace favorlab
