#pragma once
// Importance sampling of the MSE of m coupled rows (orthogonal or simplex blocks with chi_d norms, or iid rows) for
// the positive and hyperbolic estimators: the second route to the exact orthogonal and simplex MSEs, whose plain
// Monte Carlo squared errors are far too skewed for a z test (docs/theory.md#importance-sampling-for-coupled-rows).
// Every such row is marginally N(0, I_d), so the proposal is a mixture over the rows: pick row J uniformly, draw
// its s_J = ω_Jᵀẑ from the one-row proposal q₁ of mc/importance_mse.hpp (the rest of ω_J as under N(0, I_d)), then
// the other rows of J's block from their law given ω_J, and every other block as usual. Its density over the plain
// law is the mean over the rows of q₁(s_i)/φ(s_i), so the weight of a draw is w = 1 / ((1/m) Σ_i q₁(s_i)/φ(s_i)), in
// closed form. q₁ is the one-row optimum (third-moment criterion): the block's tail comes from one row's large s.
// Every weighted moment exists wherever q₁'s exists, since w ≤ m φ(s_i)/q₁(s_i) for every i.
// Rows of norm √d (smreg: iid or orthogonal, uniform directions) work the same way with the one-row tilt of
// mc/importance_sphere.hpp in place of q₁ (docs/theory.md#importance-sampling-for-rows-of-norm-d).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "features/estimator.hpp"
#include "features/projection.hpp"
#include "kernels/geometry.hpp"
#include "mc/defensive_estimate.hpp"
#include "mc/importance_mse.hpp"
#include "mc/importance_sphere.hpp"
#include "mc/parallel_trials.hpp"

namespace favorlab {

// iid, orthogonal and simplex: the couplings whose rows are marginally N(0, I_d) with chi_d norms (and, for iid and
// orthogonal, uniform on the sphere of radius √d for smreg).
bool is_importance_coupling(Coupling c);

struct CoupledImportanceSampledMse {
  ImportanceProposal proposal;                     // q₁, the law of the tilted row's s (chi-norm rows)
  bool sphere = false;                             // rows of norm √d (smreg): t = s/√d drawn from sphere_tilt
  SphereTilt sphere_tilt{};
  double estimate_mean = 0, estimate_stderr = 0;   // of E[g] (compare with SM: unbiasedness of the coupled rows)
  double mse = 0, mse_stderr = 0;                  // of the MSE of the m-row estimator
  // Skewness of one trial's weighted squared error w (g/SM − 1)²: sampled (g1 of the trials), and a priori for one
  // row (q₁'s exact figure, which is this sampler's at m = 1).
  double mse_sample_skewness = 0, row_mse_skewness = 0;
  std::int64_t trials = 0, nonfinite = 0;
  // The run's sums and the trials drawn (trials + nonfinite): what a later look continues from.
  ImportanceTrials sums;
  std::int64_t drawn = 0;
  // The skewness the z test's gate takes (stats/edgeworth.hpp): the larger of the two above in magnitude. No a-priori
  // figure exists for m coupled rows; this gate's level is simulated in tests/mc/test_importance_coupled.cpp.
  double gate_skewness() const { return std::max(std::abs(mse_sample_skewness), std::abs(row_mse_skewness)); }
  // The same two figures for one trial's weighted estimate w g/SM, and the gate of a z test of E[g] built on them.
  double estimate_sample_skewness = 0, row_estimate_skewness = 0;
  double estimate_gate_skewness() const {
    return std::max(std::abs(estimate_sample_skewness), std::abs(row_estimate_skewness));
  }
};

// The rows of one trial under the plain law of the coupling, drawn from rng into w (resized to m × d): what the
// proposal tilts one row of. Empty: the sampler's own blocks (CoupledBlockSampler below).
using RowsSource = std::function<void(Eigen::MatrixXd& w, PhiloxStream& rng)>;

// The plain rows as an experiment draws them: features/projection.hpp's draw_projection with chi norms, rescaled to
// norm √d for smreg's rows (as mc/estimator_sweep.cpp does). An importance-sampled line that must speak for the
// experiment's own sampler draws its untilted rows from here, so that a fault in that sampler moves the line too.
RowsSource projection_rows_source(Coupling c, int m, int d, bool sphere_norms);

// A block of `rows` coupled rows as r_k (R v_k)ᵀ (R Haar on O(d), r_k iid chi_d, v_k the coupling's unit template
// vectors: e_k for orthogonal, the simplex vertices for simplex, e_1 for iid). Only R restricted to span{v_k} enters:
// with B an orthonormal basis of that span (p = rows, or min(rows, d − 1) for simplex), R B is a uniform d×p frame
// F and R v_k = F Bᵀv_k. So a block costs a d×p QR instead of the d×d one of features/projection.hpp, the same law.
class CoupledBlockSampler {
 public:
  // Rows of norm √d instead of chi_d norms when sphere_norms (the smreg estimator's rows).
  CoupledBlockSampler(Coupling c, int rows, int d, bool sphere_norms = false);  // throws as
                                                                                // importance_sampled_coupled_mse
  int rows() const { return static_cast<int>(coefficients_.rows()); }
  // The block's rows into w.middleRows(start, rows()).
  void draw(Eigen::MatrixXd& w, int start, PhiloxStream& rng) const;

 private:
  Eigen::MatrixXd coefficients_;  // rows × p: row k is (Bᵀ v_k)ᵀ
  bool identity_ = false;         // coefficients_ = I (orthogonal and iid rows): the frame's columns are the rows
  bool sphere_norms_ = false;
  int d_;
};

// The reflection H = I − 2nnᵀ (n ∥ from − to) taking the unit vector `from` to the unit vector `to`, applied to every
// row of the block of `block` rows that holds `row` (nothing when they agree to rounding).
void reflect_block(Eigen::MatrixXd& w, int block, int row, const Eigen::VectorXd& from, const Eigen::VectorXd& to);

// The weight 1 / ((1/n) Σ_i exp(l_i)) of a mixture proposal from the n log ratios l_i of its components' densities
// over the plain law (log-sum-exp, no overflow).
double inverse_mean_ratio(const std::vector<double>& log_ratios);

// Row J's block redrawn from its law given ω_J, in place: with the block's rows r_k R v_k, the reflection H taking
// W_J's direction to ω_J's, applied to every row of the block, gives H R, uniform among the R' with R' v_J =
// ω_J/‖ω_J‖, and keeps the other norms; row J then becomes ω_J. `block` is the number of rows per block (d for
// orthogonal and simplex, 1 for iid). Exposed for tests.
void condition_block_on_row(Eigen::MatrixXd& w, int block, int row, const Eigen::VectorXd& omega);

// The one-row proposal q₁ at a point and the a-priori skewness of one row's weighted squared error under it: they
// depend on the estimator and the geometry alone (a quadrature optimisation), so one serves every m and coupling.
// For rows of norm √d the proposal of t = s/√d replaces q₁ (sphere = true).
struct RowProposal {
  ImportanceProposal proposal;
  double mse_skewness = 0;
  bool sphere = false;
  SphereTilt sphere_tilt{};
  // Chi-norm rows: the share β of draws whose row J is left plain (a defensive mixture; its ratio to the plain law is
  // β + (1 − β) q₁(s)/φ(s)). Rows of norm √d carry theirs in sphere_tilt.plain_share.
  double plain_share = 0;
  // The a-priori skewness of one row's weighted estimate w h under this proposal (0 for a constant one).
  double estimate_skewness = 0;
};
// The third-moment optimum (optimal_importance_proposal). Throws as that function, and when the MSE at g overflows
// double precision.
RowProposal optimal_row_proposal(Family e, const Geometry& g);
// The zero-variance proposal (mean_tuned_proposal): with it every weighted estimate of the m rows is SM, whatever the
// coupling and whatever rows were drawn (w·g = SM · mean_i h(s_i) / mean_i q₁(s_i)/φ(s_i), and q₁/φ = h). A line on
// it is an identity check of the map's algebra, never evidence about a law
// (docs/theory.md#lemma-1-by-the-zero-variance-proposal); its squared error is not what it is for (MSE skewness +∞).
RowProposal mean_tuned_row_proposal(Family e, const Geometry& g);
// Draws per point of a run under that proposal: each draw must give SM to rounding, so a few hundred show it.
constexpr std::int64_t kZeroVarianceTrials = 256;

// Lemma 1's proposal for sampled evidence: half the draws plain, half with one row tilted by the zero-variance q₁
// (plain share β = 1/2). One trial's weighted estimate is then H / (β + (1 − β) H), H = g/SM of the m rows drawn: it
// depends on the rows, lies in [0, 1/(1 − β)), and has mean 1 exactly when the rows have the law the weight assumes
// (docs/theory.md#lemma-1-by-a-defensive-proposal). The estimate skewness is one row's, by quadrature. Throws as
// mean_tuned_proposal.
RowProposal defensive_mean_row_proposal(Family e, const Geometry& g);
// The same for rows of norm √d in dimension d: the sphere tilt at κ = a with plain share 1/2.
RowProposal defensive_mean_sphere_row_proposal(const Geometry& g, int d);
constexpr double kDefensivePlainShare = 0.5;

// The same for rows of norm √d (smreg) in dimension d: optimal_sphere_tilt. Throws as that function.
RowProposal optimal_sphere_row_proposal(const Geometry& g, int d);
// Lemma 1's proposal for those rows (mean_tuned_sphere_tilt): every weighted estimate is SMREG (its Λ M_d(a) with M_d
// from the moment series); skewness +∞ as for mean_tuned_row_proposal. Throws as that function.
RowProposal mean_tuned_sphere_row_proposal(const Geometry& g, int d);

// One draw of m coupled rows under the mixture proposal above, and its weight: what importance_sampled_coupled_mse
// evaluates its estimator on, shared with mc/paired_simplex_gap.hpp, which evaluates a second set of rows on the same
// draw. The caller validates the arguments first (importance_sampled_coupled_mse's checks).
class CoupledRowsProposal {
 public:
  // `source` draws the untilted rows (empty: this class's block samplers).
  CoupledRowsProposal(Coupling c, const Geometry& g, int d, int m, bool sphere, const RowProposal& q,
                      RowsSource source = {});
  // The rows into w (resized to m × d), ξ ~ N(0, I_d) the trial's first normals, further draws from rng; returns the
  // weight p/q of the draw. It is the parts below in this order: the tilted row J (uniform), its ω, the blocks, ω_J
  // put in place (condition_block_on_row), and the weight from the rows' log ratios (inverse_mean_ratio).
  double draw(Eigen::MatrixXd& w, PhiloxStream& rng, const Eigen::VectorXd& xi) const;
  // ω of the tilted row: s = ωᵀẑ from q₁ (t = s/√d from the sphere tilt), the rest across ẑ from ξ as under the
  // plain law. With a plain share β the row is ξ itself (plain) with probability β, decided by one uniform draw.
  Eigen::VectorXd tilted_row(PhiloxStream& rng, const Eigen::VectorXd& xi) const;
  // Every block under the plain law into w (resized to m × d): the source's rows, or this class's block samplers.
  void draw_blocks(Eigen::MatrixXd& w, PhiloxStream& rng) const;
  // log of a row's proposal-over-plain ratio at s = ωᵀẑ: log(β + (1 − β) q₁(s)/φ(s)) (the sphere tilt's ratio at
  // t = s/√d for rows of norm √d).
  double log_ratio(double s) const;
  const ImportanceFrame& frame() const { return frame_; }

 private:
  int block_, m_, d_;
  bool sphere_;
  RowProposal q_;
  SphereTiltRatio tilt_ratio_;
  CoupledBlockSampler full_, last_;  // full blocks and the last, shorter one
  ImportanceFrame frame_;
  RowsSource source_;
};

// `trials` importance-sampled trials of the m-row estimator e with rows coupled by c at g in dimension d, each from
// PhiloxStream(seed, stream, t), under the row proposal q. Bit-identical for any thread count (trial blocks of
// run_parallel_trials). With `from` (an earlier run of the same arguments) the run continues it to `trials` trials in
// all, drawing only trials [from->drawn, trials): a look of a sequential check (mc/sequential_looks.hpp), the same
// bits as one run of `trials` when from->drawn is a multiple of kTrialBlock. Throws std::invalid_argument for an
// estimator other than positive, hyperbolic or smreg, a coupling other than iid, orthogonal or simplex (iid or
// orthogonal for smreg), d < 2 for simplex and smreg, m < 1, trials < 2, threads < 1, an invalid geometry or proposal
// (a sphere tilt exactly for smreg), a kernel value (SM, SMREG) that double precision cannot hold, or `trials` not
// above from->drawn. `source` draws the untilted rows (empty: the block samplers above; projection_rows_source: the
// experiment's own sampler).
CoupledImportanceSampledMse importance_sampled_coupled_mse(Family e, Coupling c, const Geometry& g, int d, int m,
                                                           std::int64_t trials, std::uint64_t seed,
                                                           std::uint64_t stream, int threads, const RowProposal& q,
                                                           const ProgressFn& progress = {},
                                                           const CoupledImportanceSampledMse* from = nullptr,
                                                           const RowsSource& source = {});

// Lemma 1 by sampled evidence: `trials` draws of the m-row estimator e (positive, hyperbolic or smreg) with rows
// coupled by c (iid or orthogonal) under the defensive proposal (defensive_mean_row_proposal, or the sphere's for
// smreg), the untilted rows from the experiment's own sampler (projection_rows_source). A z test of estimate_mean
// against the kernel takes estimate_gate_skewness() as its gate (level simulated in
// tests/mc/test_importance_coupled.cpp). Throws as importance_sampled_coupled_mse.
CoupledImportanceSampledMse importance_sampled_mean(Family e, Coupling c, const Geometry& g, int d, int m,
                                                    std::int64_t trials, std::uint64_t seed, std::uint64_t stream,
                                                    int threads, const ProgressFn& progress = {});

// The default trial count of that line when the user names none: the plain line's own trials, so that the open
// points get as many draws again (a small plain run stays small; at --quick size the line settles most open points);
// at least 2, the fewest a standard error needs, for library callers that skip the CLI's own bound.
std::int64_t default_importance_mean_trials(std::int64_t plain_trials);

// The trials of a continued run: [first, trials), first = from->drawn (0 without `from`). Throws std::invalid_argument
// when `trials` is not above it.
std::int64_t first_continued_trial(std::int64_t trials, std::int64_t drawn_before);

// The figures of a run's accumulated trials (a trial is the whole m-row estimator, SM = sm) under row proposal q.
CoupledImportanceSampledMse coupled_report(const ImportanceTrials& total, double sm, const RowProposal& q,
                                           bool sphere);

}  // namespace favorlab
