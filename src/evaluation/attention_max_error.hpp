#pragma once
// ‖Â − A‖_∞ = max_ij |Â_ij − A_ij| between FAVOR's implicit attention matrix Â = Q'(K')ᵀ and the exact
// A = exp(QKᵀ/√d) (Theorem 4 concerns this *unnormalized* A), for several numbers of random features at once, without
// ever holding an L×L matrix: rows are processed in blocks of `block_rows`, each block of A computed from its
// definition and each block of Â from the library's feature maps (attention_features_of_rows), and only the running
// maxima are kept. Memory O(L·m_max + block_rows·L).
// The feature counts share one projection: m uses the first m rows of w (an orthogonal W's first m rows are again an
// orthogonal projection: full independent d×d blocks and the top rows of one more), so Â_m is accumulated from Â_{m'}
// (m' < m) by adding the features m'..m−1 only: the cost is that of the largest m.
// Alongside, the same maximum for the row-normalized matrices D̂⁻¹Â and D⁻¹A (the attention weights a model uses).
// Softmax-kernel features only (trig, positive, hyperbolic, regularized); config.m is ignored (w gives m_max).
#include <vector>

#include "attention/attention_config.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

struct AttentionMaxError {
  int m = 0;
  double unnormalized = 0;  // max_ij |Â_ij − A_ij|; +∞ if some Â_ij is not finite
  double normalized = 0;    // max_ij |(D̂⁻¹Â)_ij − (D⁻¹A)_ij|; +∞ if not finite
};

// q: Lq×d and k: L×d raw (scaled by d^{-1/4} here, as in attention); w: m_max×d. ms: ascending, each in [1, m_max].
// Throws std::invalid_argument on a non-softmax feature kind, bad shapes or a bad ms.
std::vector<AttentionMaxError> attention_max_errors(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                                    const Eigen::MatrixXd& w, const AttentionConfig& config,
                                                    const std::vector<int>& ms, int block_rows = 128);

// The same at several lengths of one pair of inputs, with one W: for each L of `ls` in turn, attention_max_errors on
// the first L rows of q and k; entry li·|ms| + mi is (ls[li], ms[mi]). Throws std::invalid_argument when an L is
// outside [1, rows of q and of k], and whatever attention_max_errors throws.
std::vector<AttentionMaxError> prefix_max_errors(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                                 const Eigen::MatrixXd& w, const AttentionConfig& config,
                                                 const std::vector<int>& ls, const std::vector<int>& ms);

// One grid entry across draws: entry `entry` of every draw's errors (e.g. prefix_max_errors of each W), the
// unnormalized and the normalized maxima each sorted ascending (+∞ last), ready for sample quantiles. Throws
// std::invalid_argument when a draw has no such entry.
struct MaxErrorSamples {
  std::vector<double> unnormalized, normalized;
};
MaxErrorSamples max_error_samples(const std::vector<std::vector<AttentionMaxError>>& draws, std::size_t entry);

}  // namespace favorlab
