#pragma once
// MSE(simplex) − MSE(orthogonal) from paired trials: each trial draws one set of orthogonal rows and turns it into
// simplex rows with the same frame and the same norms (the twin), so the two squared errors move together and their
// difference can have a far smaller variance than the difference of two independent runs. The twin of a block of k
// rows is r_i Σ_j C_ij f_j, with f_j the orthogonal directions and C the symmetric square root of the simplex Gram
// matrix (1 on the diagonal, −1/(d−1) off it): the simplex law under a Haar frame, with rows as close to the
// orthogonal ones as that allows. At k = 1, C = [1] and the two rows are one vector: the difference is 0 on every
// trial, which is the theory (one row has the same law under both couplings). The proposal is a mixture over the 2m
// rows of both couplings, each tilted along x + y by the one-row proposal of mc/importance_coupled.hpp.
// Derivation and measured gains: docs/theory.md#paired-simplex-and-orthogonal-rows
#include <cstdint>

#include <Eigen/Dense>

#include "features/estimator.hpp"
#include "kernels/geometry.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/importance_mse.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

// C for a block of `rows` simplex rows in dimension d: the symmetric square root of the Gram matrix of `rows`
// vertices of a regular simplex, √λ₁ (I − J/k) + √λ₂ J/k with λ₁ = d/(d−1), λ₂ = (d−k)/(d−1), J the all-ones matrix.
// Throws std::invalid_argument unless 2 ≤ d and 1 ≤ rows ≤ d.
Eigen::MatrixXd simplex_twin_coefficients(int rows, int d);

// The simplex twin of orthogonal rows in blocks of d (the last one shorter): row i of a block becomes
// Σ_j C_ij (r_i/r_j) ω_j with r = the rows' norms, so at one row it is ω_1 bit for bit.
Eigen::MatrixXd simplex_twin(const Eigen::MatrixXd& orthogonal, int d);

// One block of paired trials: each coupling's weighted estimate and squared error, and their difference; a trial
// with any non-finite value is left out of all of them. Trivially copyable (MPI ranks exchange it as it is).
struct PairedTrials {
  ImportanceTrials simplex, orthogonal;
  RunningMoments gap;
  std::int64_t nonfinite = 0;
  void merge(const PairedTrials& other);
};

struct PairedSimplexGap {
  // Each coupling's own importance-sampled figures from the shared draws (the weight is a likelihood ratio of the
  // shared frame and norms, so it serves both).
  CoupledImportanceSampledMse simplex, orthogonal;
  double gap = 0, gap_stderr = 0;  // of MSE(simplex) − MSE(orthogonal) with m rows
  double gap_sample_skewness = 0;  // of one trial's weighted difference of squared errors (0 when it is constant)
  std::int64_t trials = 0, nonfinite = 0;
  PairedTrials sums;      // what a later look continues from
  std::int64_t drawn = 0;  // trials drawn (trials + nonfinite)
  // The skewness the z test's gate takes: the larger magnitude of the difference's sampled skewness and the one-row
  // a-priori figure of the proposal (as CoupledImportanceSampledMse::gate_skewness); its level is simulated in
  // tests/mc/test_paired_simplex_gap.cpp.
  double gate_skewness() const;
};

// `trials` paired trials of the m-row estimator e (positive or hyperbolic) at g in dimension d, each from
// PhiloxStream(seed, stream, t), under the row proposal q (pass {{0, 1, false}, s} for plain sampling, s the plain
// squared error's skewness). Bit-identical for any thread count and MPI rank count. With `from` the run continues an
// earlier one of the same arguments to `trials` in all (as importance_sampled_coupled_mse). Throws
// std::invalid_argument as importance_sampled_coupled_mse, and for d < 2.
PairedSimplexGap paired_simplex_gap(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                    std::uint64_t seed, std::uint64_t stream, int threads, const RowProposal& q,
                                    const ProgressFn& progress = {}, const PairedSimplexGap* from = nullptr);

}  // namespace favorlab
