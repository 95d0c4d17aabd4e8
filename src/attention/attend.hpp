#pragma once
// One attention call over several heads: the entry point of `favorlab attend`, the experiments and the tests.
// Inputs are per head: q[h] is Lq×d, k[h] is L×d, v[h] is L×dv (raw queries and keys: the mechanisms scale them by
// d^{-1/4}). One projection W (m×d, double; see attention_projection.hpp) serves every head, as in the reference
// implementation. Heads run in parallel when there are at least as many as threads, otherwise the row blocks inside
// a head do; either way the numbers do not depend on the thread count.
#include <Eigen/Dense>

#include <vector>

#include "attention/attention_config.hpp"
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
using Heads = std::vector<Matrix<T>>;

// Throws std::invalid_argument naming the problem: no heads, head counts or shapes that disagree (Q/K dimension,
// K/V length, causal with Lq ≠ L), empty inputs, NaN/Inf in Q, K or V, a bad configuration or a W of the wrong shape.
template <class T>
void check_attention_inputs(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                            const AttentionConfig& config);

// The CPU engine multiplies in its own type (float or double): it refuses a config.precision other than float32,
// naming the backend that has it. Called by every CPU entry point (attend, attention_matrix, PermuteFormer).
void require_cpu_precision(const AttentionConfig& config);

// Q, K, V, W and a configuration that check_attention_inputs accepted: the engine runs on them without checking or
// scanning them again, so a caller that checks at its own boundary (the command line, to name its files) pays for
// one check. Holds references: the heads and W must outlive it.
template <class T>
struct AttentionInputs {
  AttentionInputs(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                  const AttentionConfig& config);  // throws as check_attention_inputs
  const Heads<T>& q;
  const Heads<T>& k;
  const Heads<T>& v;
  const Eigen::MatrixXd& w;
  const AttentionConfig config;
};

template <class T>
Heads<T> attend(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                const AttentionConfig& config, int threads = 1);
template <class T>
Heads<T> attend(const AttentionInputs<T>& in, int threads = 1);

// The attention matrix of the mechanism (section C.4): the output for one-hot values V = I_L, so row i is the
// weights query i gives to the keys. One head; Lq×L.
template <class T>
Matrix<T> attention_matrix(const Matrix<T>& q, const Matrix<T>& k, const Eigen::MatrixXd& w,
                           const AttentionConfig& config, int threads = 1);
// The same for head `head` of checked inputs (their V unused).
template <class T>
Matrix<T> attention_matrix(const AttentionInputs<T>& in, std::size_t head, int threads = 1);

}  // namespace favorlab
