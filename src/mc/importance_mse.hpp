#pragma once
// Importance sampling (IS) of Lemma 1 and Lemma 2 for the positive and hyperbolic estimators: a light-tailed second
// route to the closed forms beside the plain Monte Carlo of `mse`, whose squared errors are too heavy-tailed for a z
// test at most grid points (docs/theory.md#heavy-tails). Only s = ωᵀẑ is tilted: s ~ N(μ, σ²) (positive) or
// ½N(μ, σ²) + ½N(−μ, σ²) (hyperbolic), weight w = φ(s)/q(s), σ ∈ [0.9, 3] so that four moments exist; (μ, σ)
// minimise the relative third moment of y = w (g − SM)², computed a priori by quadrature. Trial t draws from
// PhiloxStream(seed, stream, t), evaluates the project's feature maps with W = ωᵀ, m = 1 and records a/SM, y/SM².
// Derivation: docs/theory.md#importance-sampling-for-positive-and-hyperbolic-features
#include <cstdint>
#include <functional>

#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/parallel_trials.hpp"
#include "rng/philox_stream.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

// positive and hyperbolic: the estimators this sampler's proposals are derived for.
bool is_importance_estimator(Family e);

// The law of s = ωᵀẑ under the proposal: N(mean, sd²), or ½N(mean, sd²) + ½N(−mean, sd²) when symmetric.
struct ImportanceProposal {
  double mean = 0;
  double sd = 1;
  bool symmetric = false;
};

// log(q(s)/φ(s)): the proposal's density of s over the standard normal's (the inverse of the weight of a draw s).
double proposal_log_ratio(const ImportanceProposal& q, double s);

// What optimal_importance_proposal minimises: E_q[y^k]/(E_q y)^k for k = 2 or 3 (why 3:
// docs/theory.md#importance-sampling-for-positive-and-hyperbolic-features).
enum class ProposalCriterion { relative_second_moment, relative_third_moment };

// The proposal minimising the criterion for the weighted squared error y (positive: one Gaussian; hyperbolic: the
// symmetric mixture); at r = 0 (g ≡ SM) the plain law {0, 1}. Throws std::invalid_argument for an estimator other
// than positive or hyperbolic, or an invalid geometry.
ImportanceProposal optimal_importance_proposal(Family e, const Geometry& g,
                                               ProposalCriterion criterion = ProposalCriterion::relative_third_moment);

// Throws std::invalid_argument unless e is positive or hyperbolic (the families these proposals are for).
void require_importance_estimator(Family e);

// A relative variance Var(Y)/(E Y)² below this is rounding: Y is formed with a relative error of a few ε, so
// (Y/E Y − 1)² ≲ 1e-30 is noise, and a skewness divided by its 3/2 power would be meaningless.
inline constexpr double kRoundingRelativeVariance = 1e-26;

// Exact (quadrature) moments of one trial's weighted value under q.
struct WeightedMoments {
  double mean = 0, second = 0, third = 0;  // raw moments E_q[v^k], k = 1..3 (+inf where they do not exist, or overflow)
  double relative_variance = 0;            // Var_q(v)/(E_q v)², computed directly (no cancellation)
  double skewness = 0;                     // E_q[(v − E v)³]/Var^{3/2}; +inf where the third moment does not exist
  bool finite = true;                      // all three moments exist (σ² > 2/3); overflowed values still exist
  bool degenerate = false;                 // v is constant (r = 0, or a zero-variance proposal): skewness 0
};

// Moments of y/SM² = w (h − 1)² under q (so mean = e^{r²} − 1 for positive, 2 sinh²(r²/2) for hyperbolic, for every
// q) and of a/SM = w h (mean = 1). Throws std::invalid_argument for another estimator, an invalid geometry, a proposal
// with |mean| > 1000 or sd outside (0, 100], or an sd so close to √((k−1)/k) (k = 2, 3) that the moment's quadrature
// would need more than 4e6 grid points.
WeightedMoments weighted_squared_error_moments(Family e, const Geometry& g, const ImportanceProposal& q);
WeightedMoments weighted_estimate_moments(Family e, const Geometry& g, const ImportanceProposal& q);

struct ImportanceSampledMse {
  ImportanceProposal proposal;
  double estimate_mean = 0, estimate_stderr = 0;   // of E[g] (compare with SM)
  double mse = 0, mse_stderr = 0;                  // of the MSE with m features (compare with Lemma 2)
  double estimate_skewness = 0, mse_skewness = 0;  // a priori, of one trial's weighted value (a, y)
  double plain_relative_variance = 0;              // Var_p((g−SM)²)/(Var_p g)², one plain feature (may be +inf)
  double relative_variance = 0;                    // Var_q(y)/(E_q y)² of the proposal used (a priori)
  std::int64_t trials = 0, nonfinite = 0;          // trials with finite a and y (used), trials with a non-finite one
};

// Where an importance-sampled trial of a pair lives: x and y as one-row matrices (what the feature maps take) and the
// unit vector ẑ = (x + y)/‖x + y‖ along which the proposal tilts ω (e₁ at z = 0, where no direction is special).
struct ImportanceFrame {
  Eigen::MatrixXd x_row, y_row;
  Eigen::VectorXd unit;
};
ImportanceFrame importance_frame(const Geometry& g, int d);

// The importance-sampled trials of one point, accumulated (here and in mc/importance_gerf.hpp): each trial gives the
// weight w of its draw and h = g/SM; a = w h and y/SM² = w (h − 1)² are kept where both are finite.
// Trivially copyable, so MPI ranks exchange its trial blocks as they are (mc/block_codec.hpp).
struct ImportanceTrials {
  RunningMoments estimate;  // a/SM = w h
  RunningMoments squared;   // y/SM² = w (h − 1)²
  std::int64_t nonfinite = 0;
  void add(double weight, double ratio);
  void merge(const ImportanceTrials& other);
  // The counts, E[estimate] and the MSE with m features (and their standard errors) into `out`, for SM = sm.
  void report(double sm, int m, ImportanceSampledMse& out) const;
};

// One importance-sampled draw: its weight p/q and h = g/SM, the estimate relative to the kernel value.
struct ImportanceDraw {
  double weight = 0;
  double ratio = 0;
};

// The trial loop both samplers share (here and mc/importance_gerf.hpp): trial t draws ξ ~ N(0, I_d) from
// PhiloxStream(seed, stream, t) and `draw` turns it, with further draws from the same stream, into ω and its weighted
// value. Trials are blocks of run_parallel_trials, so the sums do not depend on the thread or rank count.
// Continuing a run: `initial` holds trials [0, first_trial) and the call draws [first_trial, first_trial + trials).
ImportanceTrials run_importance_trials(std::int64_t trials, int threads, std::uint64_t seed, std::uint64_t stream,
                                       int d, const std::function<ImportanceDraw(PhiloxStream&, const Eigen::VectorXd&)>& draw,
                                       const ProgressFn& progress, std::int64_t first_trial = 0,
                                       const ImportanceTrials* initial = nullptr);

// The a-priori figures of a run into `out` from the moments of the weighted squared error under the proposal used, of
// the weighted estimate, and of the plain squared error (the proposal N(0, 1)); throws std::invalid_argument when
// the MSE at g (SM = sm) overflows double precision.
void set_a_priori_moments(ImportanceSampledMse& out, const WeightedMoments& squared_error,
                          const WeightedMoments& estimate, const WeightedMoments& plain, double sm, const Geometry& g);

// The checks every importance-sampled run makes before it draws, in the order the errors below are documented;
// returns SM. And the proposal's: |mean| ≤ 1000, sd in (0, 100] (wider ones are useless and would make the
// quadrature grid huge).
double check_importance_run(Family e, const Geometry& g, int d, int m, std::int64_t trials, int threads);
void check_importance_proposal(const ImportanceProposal& q);

// Runs `trials` importance-sampled trials at g in dimension d with the optimal proposal (third-moment criterion).
// Throws std::invalid_argument for an estimator other than positive or hyperbolic, d < 1, m < 1, trials < 2,
// threads < 1, an invalid geometry, an SM = exp(xᵀy) that overflows or underflows double precision, or an MSE that
// overflows it. At z = 0 (g ≡ SM) the MSE is 0 up to rounding.
ImportanceSampledMse importance_sampled_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                            std::uint64_t seed, std::uint64_t stream, int threads,
                                            const ProgressFn& progress = {});

// Lemma 1's proposal: the one under which the weighted estimate w h is the constant 1, N(r, 1) for positive and
// ½N(r, 1) + ½N(−r, 1) for hyperbolic (r = ‖x + y‖). Each draw then evaluates the project's feature map at a fresh ω
// and must give SM·q(ω)/p(ω), which integrates to E_p[φ(x)ᵀφ(y)] = SM: the check built on it has no Monte Carlo
// variance to overcome, only rounding (docs/theory.md#lemma-1-by-the-zero-variance-proposal). Throws as
// optimal_importance_proposal.
ImportanceProposal mean_tuned_proposal(Family e, const Geometry& g);

// The same trials under a given proposal (mean_tuned_proposal for Lemma 1); the a-priori figures are those of q.
// Throws as above, and for a proposal with |mean| > 1000 or sd outside (0, 100].
ImportanceSampledMse importance_sampled_mse(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                            std::uint64_t seed, std::uint64_t stream, int threads,
                                            const ImportanceProposal& proposal, const ProgressFn& progress = {});

}  // namespace favorlab
