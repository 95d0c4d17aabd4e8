#pragma once
// Feature maps of FAVOR attention in log-scaled form: φ(u_i) = exp(log_scale_i) · values_i for every row u_i of U
// (U already multiplied by d^{-1/4}). With the stabilizer on, the exponential part of a softmax feature is taken out
// of each row — values_i = φ(u_i)·exp(−log_scale_i) has its largest exponent 0, so it cannot overflow — and
// log_scale_i carries it. The attention routines combine the log scales of keys so that no causal output ever
// depends on a later key (causal_favor_attention.hpp). With the stabilizer off, or for generalized kernels, the
// log scales are 0 and values is φ(U) itself.
//   trig:        φ(u) = exp(‖u‖²/2)/√m · [sin Wu, cos Wu]          log scale ‖u‖²/2
//   positive,
//   regularized: φ(u) = exp(Wu − ‖u‖²/2)/√m                         log scale max_i (ω_iᵀu) − ‖u‖²/2
//   hyperbolic:  φ(u) = exp(±Wu − ‖u‖²/2)/√(2m)                     log scale max_i |ω_iᵀu| − ‖u‖²/2
//   gerf, oprf,
//   sderf:       φ(u) = exp(W'u + c − ‖u‖²/2)/√m, W = [W' | c]       log scale max_i (ω'_iᵀu + c_i) − ‖u‖²/2
//                (the prepared projection of attention/prepared_projection.hpp: m×(d+1))
//   generalized: φ(u) = f(Wu) + ε_k, or f(u) + ε_k without projection
// The engine holds one algorithm for every family: it calls the family's map (features/feature_map.hpp) once per block
// of rows, and ScaledFeatures and ReferenceScales are that header's.
#include <Eigen/Dense>

#include "attention/attention_config.hpp"
#include "features/feature_map.hpp"

namespace favorlab {

// w: the projection (m×d, or 0×d for generalized kernels without projection), already in precision T.
template <class T>
ScaledFeatures<T> attention_features(const Matrix<T>& u, const Matrix<T>& w, const AttentionConfig& config);

}  // namespace favorlab

namespace favorlab {

// attention_features of rows [first, first + count) of the raw inputs X (L×d), scaled by d^{-1/4} on the way.
template <class T>
ScaledFeatures<T> attention_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                             const Matrix<T>& w, const AttentionConfig& config);

}  // namespace favorlab

namespace favorlab {

// Features of rows [first, first + count) of X (scaled by d^{-1/4}) relative to reference scales instead of their own:
// φ(u_i) = exp(log_scale_i) · values_i with log_scale = reference(own log scales), reference_i ≥ own_i, so every value
// stays ≤ 1. The variation is the reference: one scale for the whole block (block_features_of_rows: the largest row
// log scale — what a sum over the rows, bidirectional FAVOR's key side, needs) or the running maximum of a causal key
// side (running_maxima). With the stabilizer, a map that has a relative form (MapFunctions::relative: the positive,
// shifted positive and hyperbolic maps) takes the reference straight into the exponent, exp(ω_iᵀu − ‖u‖²/2 −
// reference_i) ≤ 1: one pass and no rescaling afterwards; the other maps are attention_features_of_rows rescaled row
// by row.
template <class T>
ScaledFeatures<T> relative_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                            const Matrix<T>& w, const AttentionConfig& config,
                                            const ReferenceScales<T>& reference);

// running_j = max(carried, max_{i ≤ j} log_scale_i) (carried = −∞: no earlier keys).
template <class T>
Eigen::Array<T, Eigen::Dynamic, 1> running_maxima(const Eigen::Array<T, Eigen::Dynamic, 1>& log_scale, T carried);

template <class T>
struct BlockFeatures {
  Matrix<T> values;
  T log_scale = 0;
};

// relative_features_of_rows with one reference for the block: the largest row log scale.
template <class T>
BlockFeatures<T> block_features_of_rows(const Matrix<T>& x, Eigen::Index first, Eigen::Index count,
                                        const Matrix<T>& w, const AttentionConfig& config);

}  // namespace favorlab
