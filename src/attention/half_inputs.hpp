#pragma once
// Attention inputs held in a 16-bit format: Q, K and V rounded to float16 or bfloat16 (io/half_float.hpp: nearest,
// ties to even), the arithmetic unchanged (float32, or float64 on the CPU) — a 16-bit input is widened exactly where
// it is read. On the CPU the heads are rounded and then attended as usual: the numbers a model that stores its
// activations in 16 bits feeds its attention. The CUDA backend keeps them 16-bit on the device (half the bytes of
// float32 inputs) and widens them in its first kernels, so both backends compute on the same values.
#include <string>
#include <string_view>

#include "attention/attend.hpp"

namespace favorlab {

enum class HalfInputs { off, float16, bfloat16 };

std::string_view half_inputs_name(HalfInputs format);  // "off", "float16", "bfloat16"
HalfInputs parse_half_inputs(std::string_view name);   // throws std::invalid_argument naming --half-inputs

// Every entry of x rounded to the format and widened back (off: x unchanged); doubles are rounded once. Throws
// std::invalid_argument naming `what`, the first entry's head and position, when the rounding gives ±∞: float16
// from |x| ≥ 65520 on (the message points to bfloat16), bfloat16 only beyond float's range (doubles).
template <class T>
Heads<T> rounded_to(HalfInputs format, const Heads<T>& x, const std::string& what);

// Doubles rounded once to the format (rounded_to) and handed back as T, exactly: a 16-bit value is a float. Through
// a float first, a double beside a 16-bit midpoint would be rounded twice. `format` must not be off.
template <class T>
Heads<T> rounded_as(HalfInputs format, const Heads<double>& x, const std::string& what);

}  // namespace favorlab
