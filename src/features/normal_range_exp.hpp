#pragma once
// normal_range_exp(x): e^x lane by lane for an xsimd batch of float or double, for lanes with
//   NormalRangeExp<T>::low ≤ x ≤ NormalRangeExp<T>::high,
// the range where e^x is a normal number: low = log(smallest normal) (to the type's precision: a lane there has
// n ≥ −(bias − 1), so 2ⁿ below stays normal, and a result just under the normal range comes out of the final product
// correctly rounded), high a little below log(largest finite). Lanes outside it (smaller, larger, ±∞, NaN) get an unspecified finite or non-finite value;
// callers send those entries to std::exp (exp_into in shifted_exp.hpp does).
//
// Method: n = nearest integer to x·log₂e, r = x − n·ln 2 (|r| ≤ ln 2 / 2, the product subtracted in two parts so that
// n·ln2_hi is exact), e^r from a polynomial, and e^x = e^r · 2ⁿ with 2ⁿ built directly from its exponent bits. Why
// not Eigen's exp: inside this range 2ⁿ is always a normal number, so the general ldexp Eigen applies (it splits n to
// survive overflow and subnormal results, and then takes a max with x) is not needed (timings against Eigen's:
// docs/performance.md#tried-and-dropped). Measured within 1.23 ulp of long-double exp in float and 0.83 ulp in
// double; without FMA (a portable SSE2 build, the polynomial's multiplies and adds separate) double errs by 1.12 ulp.
// n comes from adding the shifter 1.5·2^(p−1) (p the significand bits): the sum's rounding is the
// round-to-nearest of x·log₂e, and its low bits are n as an integer, so no float-to-int conversion is needed (AVX2
// has none for 64-bit lanes).
//   float: e^r = 1 + r + r²·P(r), P of degree 5 — the minimax coefficients of Cephes' expf (the ones Eigen uses).
//   double: e^r by its Taylor series to r¹³/13!, truncation ≤ (ln 2/2)¹⁴/14! ≈ 4e-18 relative, below u/20.
// tests/features/test_feature_maps.cpp holds both to long-double exp over the whole range.
#include <xsimd/xsimd.hpp>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <cstdint>

namespace favorlab {

template <class T>
struct NormalRangeExp;

template <>
struct NormalRangeExp<float> {
  using Bits = std::int32_t;
  static constexpr int significand_bits = 23, exponent_bias = 127;
  static constexpr float low = -87.33654475f;  // log(2^-126)
  static constexpr float high = 88.0f;         // e^88 · e^(ln2/2) < largest float
  static constexpr float log2e = 1.44269504088896341f;
  static constexpr float ln2_hi = 0.693359375f;       // 355/512: n · ln2_hi exact for |n| < 2^15
  static constexpr float ln2_lo = -2.12194440e-4f;    // ln 2 − ln2_hi
  static constexpr float shifter = 12582912.0f;       // 1.5 · 2^23
};

template <>
struct NormalRangeExp<double> {
  using Bits = std::int64_t;
  static constexpr int significand_bits = 52, exponent_bias = 1023;
  static constexpr double low = -708.39641853226408;  // log(2^-1022)
  static constexpr double high = 709.0;               // e^709 · e^(ln2/2) < largest double
  static constexpr double log2e = 1.4426950408889634074;
  static constexpr double ln2_hi = 6.93147180369123816490e-01;  // 32 significant bits: n · ln2_hi exact
  static constexpr double ln2_lo = 1.90821492927058770002e-10;  // ln 2 − ln2_hi
  static constexpr double shifter = 6755399441055744.0;          // 1.5 · 2^52
};

namespace normal_range_exp_detail {

// a·b + c with one rounding wherever the instruction set has FMA. Why not xsimd::fma alone: xsimd 8.1 (Debian 12) has
// FMA kernels for SSE and AVX but none for AVX-512, where its generic a·b + c is fused only if the compiler contracts
// it. GCC does in the release build, but not under ASan or UBSan: there the double exp erred by up to 1.12 ulp
// instead of 0.83, and tests/features/test_normal_range_exp.cpp failed in the asan preset (AVX-512 machine).
// Double only: float's bound (1.5 ulp) holds fused or not, and in float the explicit form is slower than the
// contracted one (docs/performance.md#tried-and-dropped). The release build's bits are unchanged in both.
template <class T, class A>
[[gnu::always_inline]] inline xsimd::batch<T, A> fused_fma(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                                                           const xsimd::batch<T, A>& c) {
#if defined(__AVX512F__)
  if constexpr (sizeof(T) == 8 && sizeof(typename xsimd::batch<T, A>::register_type) == 64)
    return _mm512_fmadd_pd(a, b, c);
#endif
  return xsimd::fma(a, b, c);
}

// c − a·b with one rounding (as fused_fma above).
template <class T, class A>
[[gnu::always_inline]] inline xsimd::batch<T, A> fused_fnma(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                                                            const xsimd::batch<T, A>& c) {
#if defined(__AVX512F__)
  if constexpr (sizeof(T) == 8 && sizeof(typename xsimd::batch<T, A>::register_type) == 64)
    return _mm512_fnmadd_pd(a, b, c);
#endif
  return xsimd::fnma(a, b, c);
}

}  // namespace normal_range_exp_detail

// Always inlined: GCC would keep it out of line, a call per batch with the batch and the result passed through
// memory (docs/performance.md#tried-and-dropped). The bits are the same either way.
template <class T, class A>
[[gnu::always_inline]] inline xsimd::batch<T, A> normal_range_exp(const xsimd::batch<T, A>& x) {
  using C = NormalRangeExp<T>;
  using normal_range_exp_detail::fused_fma;
  using normal_range_exp_detail::fused_fnma;
  using Batch = xsimd::batch<T, A>;
  using Bits = xsimd::batch<typename C::Bits, A>;
  const Batch shifted = fused_fma(x, Batch(C::log2e), Batch(C::shifter));
  const Batch n = shifted - Batch(C::shifter);
  Batch r = fused_fnma(n, Batch(C::ln2_hi), x);  // x − n·ln2_hi, exact
  r = fused_fnma(n, Batch(C::ln2_lo), r);
  Batch y;
  if constexpr (sizeof(T) == 4) {
    const Batch r2 = r * r;
    Batch p = fused_fma(Batch(1.9875691500e-4f), r, Batch(1.3981999507e-3f));
    p = fused_fma(p, r, Batch(8.3334519073e-3f));
    p = fused_fma(p, r, Batch(4.1665795894e-2f));
    p = fused_fma(p, r, Batch(1.6666665459e-1f));
    p = fused_fma(p, r, Batch(5.0000001201e-1f));
    y = fused_fma(p, r2, r + Batch(1.0f));
  } else {
    // Horner from 1/13! down to 1/1!, then 1 + r·q.
    constexpr double inverse_factorials[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
                                             1.0 / 3628800.0,    1.0 / 362880.0,    1.0 / 40320.0,
                                             1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,
                                             1.0 / 24.0,         1.0 / 6.0,         1.0 / 2.0,
                                             1.0};
    Batch q(inverse_factorials[0]);
    for (int k = 1; k < 13; ++k) q = fused_fma(q, r, Batch(inverse_factorials[k]));
    y = fused_fma(q, r, Batch(1.0));
  }
  // 2ⁿ: n's integer value sits in the shifter sum's low bits; put n + bias in the exponent field.
  const Bits k = xsimd::bitwise_cast<Bits>(shifted) - xsimd::bitwise_cast<Bits>(Batch(C::shifter));
  const Bits scale_bits = (k + Bits(typename C::Bits(C::exponent_bias))) << C::significand_bits;
  return y * xsimd::bitwise_cast<Batch>(scale_bits);
}

}  // namespace favorlab
