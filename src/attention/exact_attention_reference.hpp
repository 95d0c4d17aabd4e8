#pragma once
// The naive reference of exact softmax attention (docs/theory.md#exact-softmax-attention), kept beside the tiled kernel
// (exact_attention.hpp) that every caller uses: blocks of 128 query rows, each against all of its keys at once —
// a 128 × L logits matrix shifted by its rows' maxima, exponentiated, multiplied by V — so it is short enough to read
// at a glance. Same contract as exact_attention (q: Lq×d, k: L×d, v: L×dv; causal needs Lq = L; renormalize = false
// returns A V); the two agree to rounding (tests/attention/test_exact_attention.cpp).
#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
Matrix<T> exact_attention_reference(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v, bool causal,
                                    bool renormalize, int threads = 1);

}  // namespace favorlab
