#pragma once
// The number formats a GPU's matrix units multiply in, for FAVOR's products: each operand rounded to the format,
// the sums accumulated in float32. float32 rounds nothing; tf32 keeps float's range and 10 fraction bits (the
// tensor cores' TF32); bfloat16 keeps float's range and 7 fraction bits. The bound these give on FAVOR's output:
// attention/reduced_precision_favor.hpp, derived in docs/theory.md#favor-in-reduced-precision.
#include <string>
#include <string_view>

namespace favorlab {

enum class ProductPrecision { float32, tf32, bfloat16 };

std::string_view product_precision_name(ProductPrecision p);  // "float32", "tf32", "bfloat16"

// The inverse of product_precision_name; std::invalid_argument names the bad value and the choices.
ProductPrecision parse_product_precision(std::string_view name);

// "float32, tf32 or bfloat16": the choices, for help texts and messages.
std::string product_precision_choices();

// The format's unit roundoff u: half the gap between 1 and the next value (float32 2^-24, tf32 2^-11, bfloat16 2^-8).
double unit_roundoff(ProductPrecision p);

// x rounded to the format, to nearest with ties to even, as a float (exact: every value of the formats is a float).
// ±∞ and NaN stay what they are; a finite x whose rounding carries past float's largest value becomes ±∞.
float round_to_precision(float x, ProductPrecision p);

}  // namespace favorlab
