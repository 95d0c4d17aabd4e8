// float16 and bfloat16 conversions (io/half_float.hpp): widening checked on all 65536 patterns against the formats'
// definitions; narrowing checked on every representable value (round trip), every midpoint between neighbours
// (ties to even) and the floats just beside each midpoint, the overflow and underflow thresholds, and — where the
// compiler has _Float16 — against the compiler's own conversion on a stride through all 2^32 floats. A conversion
// that truncates instead of rounding, or rounds ties away from zero, fails the same checks (power cases).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "io/half_float.hpp"

using namespace favorlab;

namespace {

using Narrow = std::function<std::uint16_t(float)>;
using Widen = float (*)(std::uint16_t);

// A 16-bit pattern's value from the format's definition: 1 sign, `exponent_bits` exponent bits (bias 2^(e−1) − 1)
// and 15 − e fraction bits; (−1)^s · 2^(E − bias) · (1 + f/2^p), subnormals 2^(1 − bias) · f/2^p, the largest E ∞ or
// NaN. float16: e = 5; bfloat16: e = 8.
double by_definition(std::uint16_t x, int exponent_bits) {
  const int p = 15 - exponent_bits, bias = (1 << (exponent_bits - 1)) - 1;
  const int s = x >> 15, e = (x >> p) & ((1 << exponent_bits) - 1), f = x & ((1 << p) - 1);
  const double sign = s != 0 ? -1.0 : 1.0;
  if (e == (1 << exponent_bits) - 1)
    return f == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(f, 1 - bias - p);
  return sign * std::ldexp((1 << p) + f, e - bias - p);
}

bool is_nan_pattern(std::uint16_t x, int exponent_bits) {
  const int fraction_bits = 15 - exponent_bits;
  const unsigned exponent = (x >> fraction_bits) & ((1u << exponent_bits) - 1);
  return exponent == (1u << exponent_bits) - 1 && (x & ((1u << fraction_bits) - 1)) != 0;
}

// What a correct round-to-nearest-even narrowing must do on the values of one format, given its widening: returns
// the first failure, or "" when there is none.
//  * every finite value and ±∞ maps back to itself (−0 included);
//  * the midpoint of two neighbours of the same sign (a float: 12 or 9 significant bits) goes to the one with an even
//    last bit, and the floats one step below and above the midpoint go to the nearer neighbour.
std::string narrowing_failure(const Narrow& narrow, Widen widen, int exponent_bits) {
  for (std::uint32_t x = 0; x < 0x10000; ++x) {
    const auto h = static_cast<std::uint16_t>(x);
    if (is_nan_pattern(h, exponent_bits)) continue;
    if (narrow(widen(h)) != h) return "round trip of " + std::to_string(x);
  }
  const std::uint16_t infinity = exponent_bits == 5 ? 0x7c00 : 0x7f80;
  for (const std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}}) {
    for (std::uint16_t low = 0; low + 1 < infinity; ++low) {  // neighbours low, low + 1 (finite, same sign)
      const std::uint16_t a = sign | low, b = sign | static_cast<std::uint16_t>(low + 1);
      const float mid = static_cast<float>((static_cast<double>(widen(a)) + widen(b)) / 2);  // exact in float
      if (static_cast<double>(mid) != (static_cast<double>(widen(a)) + widen(b)) / 2) return "midpoint not a float";
      const std::uint16_t even = (a & 1) == 0 ? a : b;
      if (narrow(mid) != even) return "midpoint above " + std::to_string(a);
      const float toward_a = std::nextafter(mid, widen(a)), toward_b = std::nextafter(mid, widen(b));
      if (narrow(toward_a) != a || narrow(toward_b) != b) return "beside the midpoint above " + std::to_string(a);
    }
  }
  return "";
}

std::uint16_t float16_truncated(float x) {  // a wrong narrowing: drops the bits instead of rounding
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x), magnitude = bits & 0x7fffffffu;
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  if (magnitude >= 0x47800000u) return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) return sign | static_cast<std::uint16_t>((magnitude - ((127u - 15u) << 23)) >> 13);
  return sign | static_cast<std::uint16_t>(std::ldexp(std::fabs(x), 24));
}

std::uint16_t bfloat16_ties_away(float x) {  // a wrong narrowing: ties away from zero
  return static_cast<std::uint16_t>((std::bit_cast<std::uint32_t>(x) + 0x8000u) >> 16);
}

}  // namespace

TEST_CASE("float16 and bfloat16 widen exactly, as the formats define them", "[half_float]") {
  for (std::uint32_t x = 0; x < 0x10000; ++x) {
    const auto h = static_cast<std::uint16_t>(x);
    INFO("pattern " << x);
    const double f16 = by_definition(h, 5), bf16 = by_definition(h, 8);
    if (std::isnan(f16)) {
      REQUIRE(std::isnan(float16_to_float(h)));
    } else {
      REQUIRE(static_cast<double>(float16_to_float(h)) == f16);
      REQUIRE(std::signbit(float16_to_float(h)) == std::signbit(f16));
    }
    if (std::isnan(bf16)) {
      REQUIRE(std::isnan(bfloat16_to_float(h)));
    } else {
      REQUIRE(static_cast<double>(bfloat16_to_float(h)) == bf16);
      REQUIRE(std::signbit(bfloat16_to_float(h)) == std::signbit(bf16));
    }
  }
  CHECK(float16_to_float(0x7bff) == 65504.0f);
  CHECK(float16_to_float(0x0001) == 0x1p-24f);
  CHECK(float16_to_float(0x0400) == 0x1p-14f);
}

TEST_CASE("float16 and bfloat16 narrow to nearest, ties to even, at every value and midpoint", "[half_float]") {
  CHECK(narrowing_failure(float_to_float16, float16_to_float, 5).empty());
  CHECK(narrowing_failure(float_to_bfloat16, bfloat16_to_float, 8).empty());
  // Power: a truncating float16 narrowing and a ties-away bfloat16 narrowing fail it.
  CHECK_FALSE(narrowing_failure(float16_truncated, float16_to_float, 5).empty());
  CHECK_FALSE(narrowing_failure(bfloat16_ties_away, bfloat16_to_float, 8).empty());
}

TEST_CASE("overflow, underflow, NaN, and a double rounded once", "[half_float]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(float_to_float16(65519.996f) == 0x7bff);  // below the midpoint 65520: the largest finite
  CHECK(float_to_float16(65520.0f) == 0x7c00);     // the midpoint: ties to even, which is ∞
  CHECK(float_to_float16(-1e30f) == 0xfc00);
  CHECK(float_to_float16(inf) == 0x7c00);
  CHECK(float_to_float16(0x1p-25f) == 0x0000);                          // half the smallest subnormal: ties to 0
  CHECK(float_to_float16(std::nextafter(0x1p-25f, 1.0f)) == 0x0001);   // just above: the smallest subnormal
  CHECK(float_to_float16(-0x1p-26f) == 0x8000);
  CHECK(float_to_float16(std::numeric_limits<float>::denorm_min()) == 0x0000);
  CHECK(float_to_float16(0x1p-14f - 0x1p-26f) == 0x0400);  // rounds up into the smallest normal
  CHECK(is_nan_pattern(float_to_float16(std::numeric_limits<float>::quiet_NaN()), 5));
  CHECK(float_to_float16(-std::numeric_limits<float>::quiet_NaN()) >> 15 == 1);
  CHECK(is_nan_pattern(float_to_bfloat16(std::numeric_limits<float>::signaling_NaN()), 8));
  CHECK(float_to_bfloat16(std::numeric_limits<float>::max()) == 0x7f80);  // rounds up to ∞
  CHECK(float_to_bfloat16(-inf) == 0xff80);

  // A double is rounded once: through a float rounded to nearest, 1 + 2^-11 + 2^-40 would become the midpoint
  // 1 + 2^-11 and then 1 (even); the nearest float16 is 1 + 2^-10.
  const double above_midpoint = 1 + 0x1p-11 + 0x1p-40, below_midpoint = 1 + 0x1p-11 - 0x1p-40;
  CHECK(float_to_float16(static_cast<float>(above_midpoint)) == 0x3c00);  // what rounding twice gives
  CHECK(double_to_float16(above_midpoint) == 0x3c01);
  CHECK(double_to_float16(below_midpoint) == 0x3c00);
  CHECK(double_to_float16(-above_midpoint) == 0xbc01);
  CHECK(double_to_float16(1 + 0x1p-11) == 0x3c00);  // an exact midpoint still ties to even
  CHECK(double_to_float16(65519.99999) == 0x7bff);
  CHECK(double_to_float16(1e300) == 0x7c00);
  CHECK(double_to_float16(-1e-300) == 0x8000);
  CHECK(is_nan_pattern(double_to_float16(std::numeric_limits<double>::quiet_NaN()), 5));
  CHECK(double_to_bfloat16(1 + 0x1p-8 + 0x1p-40) == 0x3f81);  // bfloat16's midpoint 1 + 2^-8, just above
  CHECK(float_to_bfloat16(static_cast<float>(1 + 0x1p-8 + 0x1p-40)) == 0x3f80);
  CHECK(double_to_bfloat16(-1e300) == 0xff80);
  CHECK(is_nan_pattern(double_to_bfloat16(std::numeric_limits<double>::quiet_NaN()), 8));
  // Every value and midpoint of both formats, reached from double, and the doubles just beside each midpoint (which
  // a float rounded to nearest would move onto it).
  const auto from_double = [](std::uint16_t (*narrow)(double), float (*widen)(std::uint16_t), std::uint32_t end) {
    for (std::uint32_t x = 0; x + 1 < end; ++x) {  // x and x + 1 finite
      const double v = widen(static_cast<std::uint16_t>(x)), next = widen(static_cast<std::uint16_t>(x + 1));
      if (narrow(v) != x) return false;
      const double mid = (v + next) / 2;
      if (narrow(mid) != ((x & 1) == 0 ? x : x + 1)) return false;
      if (narrow(std::nextafter(mid, 0.0)) != x || narrow(std::nextafter(mid, 1e300)) != x + 1) return false;
    }
    return true;
  };
  CHECK(from_double(double_to_float16, float16_to_float, 0x7c00));
  CHECK(from_double(double_to_bfloat16, bfloat16_to_float, 0x7f80));
  // Power: rounding twice through a float misses the doubles beside the midpoints.
  CHECK_FALSE(from_double([](double x) { return float_to_float16(static_cast<float>(x)); }, float16_to_float, 0x7c00));
}

#ifdef __FLT16_MAX__
TEST_CASE("float16 narrowing equals the compiler's _Float16 conversion", "[half_float]") {
  // A stride through all 2^32 float patterns (every exponent, fractions of all kinds), NaNs compared as NaN.
  std::uint64_t compared = 0;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 65521) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    const auto reference = std::bit_cast<std::uint16_t>(static_cast<_Float16>(x));
    const std::uint16_t ours = float_to_float16(x);
    if (std::isnan(x)) {
      REQUIRE(is_nan_pattern(ours, 5));
    } else {
      INFO("float bits " << bits);
      REQUIRE(ours == reference);
    }
    ++compared;
  }
  CHECK(compared > 65000);
}
#endif
