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

// The unit roundoffs a rounding bound is built from (reduced_precision_favor.hpp, reduced_precision_exact.hpp): the
// products' operands (the format), the float32 arithmetic and sums, and exp's relative error.
struct ProductRounding {
  double operand = 0x1p-24, arithmetic = 0x1p-24, exp = 0x1p-22;
};

// The reference model's (favor_in_precision, exact_in_precision): (u of the format, 2^-24, 2^-22 — exp within 2 ulp).
ProductRounding rounding_of(ProductPrecision p);

// The CUDA backend's (attention/cuda/): tf32's operands 2^-10 (the tensor cores may cut the fraction rather than
// round it), bfloat16's 2^-8 (rounded to nearest by favorlab's kernels or cuDNN's), float32's 2^-24; sums 2^-23
// (tensor-core accumulators round toward zero, and this also covers one more rounded subtraction in an exponent);
// exp 2^-20 (a GPU feature passes through two exps, the 1/√m and one product; cuDNN's softmax takes exp2 of a scaled
// logit). docs/gpu.md#reduced-precision.
ProductRounding gpu_rounding_of(ProductPrecision p);

}  // namespace favorlab
