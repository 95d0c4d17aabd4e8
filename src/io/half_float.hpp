#pragma once
// The two 16-bit floating-point formats models are stored in, as bit patterns, and their conversions to and from
// float:
//   float16  — IEEE 754 binary16 (numpy's '<f2'): 1 sign, 5 exponent (bias 15) and 10 fraction bits; largest finite
//              65504, smallest normal 2^-14, subnormals down to 2^-24;
//   bfloat16 — the upper half of a binary32: 1 sign, 8 exponent (bias 127) and 7 fraction bits; float's range.
// Widening (*_to_float) is exact: every value of either format is a float. Narrowing (float_to_*) rounds to the
// nearest value, ties to the one whose last fraction bit is 0 — IEEE 754's default, what numpy's astype(float16) and
// CUDA's __float2half_rn / __float2bfloat16_rn do — whatever the floating-point environment's rounding mode (integer
// arithmetic only). Finite values beyond the format's range round to ±∞ (float16: |x| ≥ 65520, the midpoint between
// 65504 and 2^16); ±∞ stay ±∞; NaN becomes the format's quiet NaN with the same sign. From double, the rounding
// happens once (double_to_float16, double_to_bfloat16), not twice through a float.
#include <bit>
#include <cstdint>

namespace favorlab {

inline float float16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, fraction = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (fraction << 13));  // ±∞, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (fraction << 13));
  // Zero or subnormal: fraction · 2^-24, exact (fraction < 2^10 and 2^-24 are both floats).
  const float magnitude = static_cast<float>(fraction) * 0x1p-24f;
  return sign != 0 ? -magnitude : magnitude;
}

namespace half_float_detail {

// value >> shift rounded to nearest, ties to even (shift in 1 … 31).
inline std::uint32_t shift_right_rounded(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift, dropped = value & ((std::uint32_t{1} << shift) - 1);
  const std::uint32_t halfway = std::uint32_t{1} << (shift - 1);
  return kept + ((dropped > halfway || (dropped == halfway && (kept & 1u) != 0)) ? 1u : 0u);
}

}  // namespace half_float_detail

inline std::uint16_t float_to_float16(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;   // NaN (quiet)
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // ≥ 65520 (or ∞): ∞
  if (magnitude >= 0x38800000u) {                        // ≥ 2^-14: a normal float16
    // Re-bias the exponent and drop 13 fraction bits; a carry out of the fraction correctly bumps the exponent.
    const std::uint32_t rebased = magnitude - ((127u - 15u) << 23);
    return sign | static_cast<std::uint16_t>(half_float_detail::shift_right_rounded(rebased, 13));
  }
  // Below 2^-14: a multiple of 2^-24 (a subnormal; rounding up to 2^-14 yields 0x0400, the smallest normal).
  // |x| = significand · 2^(exponent − 150), so |x| / 2^-24 = significand >> (126 − exponent), and the shift is ≥ 14.
  const std::uint32_t exponent = magnitude >> 23;
  if (exponent < 102) return sign;  // |x| < 2^-25 (float subnormals included): rounds to ±0
  const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  return sign | static_cast<std::uint16_t>(half_float_detail::shift_right_rounded(significand, 126 - exponent));
}

namespace half_float_detail {

// A double as a float rounded toward zero with its last bit set when inexact ("round to odd"). A 16-bit format
// has at most 11 significant bits against float's 24, so this float lies on a midpoint of the narrow format exactly
// when the double does, and on the same side of it otherwise: narrowing it to nearest then rounds the double once.
// (Through a float rounded to nearest, 1 + 2^-11 + 2^-40 would become the float16 midpoint 1 + 2^-11 and then 1;
// the nearest float16 is 1 + 2^-10.) NaN stays NaN, beyond float's range gives ±FLT_MAX with its odd last bit.
inline float rounded_to_odd_float(double x) {
  const auto f = static_cast<float>(x);
  const auto back = static_cast<double>(f);
  if (back == x || !(x == x)) return f;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if ((back > x) == (x > 0)) bits -= 1;  // rounded away from zero (to ∞ included): one step back toward zero
  return std::bit_cast<float>(bits | 1u);
}

}  // namespace half_float_detail

// A double rounded to float16 (to bfloat16, below) once, to nearest even, as numpy's astype(float16) does.
inline std::uint16_t double_to_float16(double x) {
  return float_to_float16(half_float_detail::rounded_to_odd_float(x));
}

inline float bfloat16_to_float(std::uint16_t b) { return std::bit_cast<float>(std::uint32_t{b} << 16); }

inline std::uint16_t float_to_bfloat16(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // NaN (quiet)
  // Dropping 16 bits, rounded to nearest even; finite values round up to ∞ through the carry, ∞ stays ∞.
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

inline std::uint16_t double_to_bfloat16(double x) {
  return float_to_bfloat16(half_float_detail::rounded_to_odd_float(x));
}

}  // namespace favorlab
