#include "attention/product_precision.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "io/half_float.hpp"

namespace favorlab {

std::string_view product_precision_name(ProductPrecision p) {
  switch (p) {
    case ProductPrecision::float32: return "float32";
    case ProductPrecision::tf32: return "tf32";
    case ProductPrecision::bfloat16: return "bfloat16";
  }
  return "?";
}

ProductPrecision parse_product_precision(std::string_view name) {
  for (ProductPrecision p : {ProductPrecision::float32, ProductPrecision::tf32, ProductPrecision::bfloat16})
    if (name == product_precision_name(p)) return p;
  throw std::invalid_argument("--precision must be " + product_precision_choices() + " (got '" + std::string(name) +
                              "')");
}

std::string product_precision_choices() { return "float32, tf32 or bfloat16"; }

double unit_roundoff(ProductPrecision p) {
  switch (p) {
    case ProductPrecision::float32: return 0x1p-24;
    case ProductPrecision::tf32: return 0x1p-11;
    case ProductPrecision::bfloat16: return 0x1p-8;
  }
  return 1;
}

ProductRounding rounding_of(ProductPrecision p) { return ProductRounding{unit_roundoff(p), 0x1p-24, 0x1p-22}; }

ProductRounding gpu_rounding_of(ProductPrecision p) {
  return ProductRounding{p == ProductPrecision::tf32 ? 0x1p-10 : unit_roundoff(p), 0x1p-23, 0x1p-20};
}

float round_to_precision(float x, ProductPrecision p) {
  switch (p) {
    case ProductPrecision::float32: return x;
    case ProductPrecision::bfloat16: return bfloat16_to_float(float_to_bfloat16(x));
    case ProductPrecision::tf32: {
      if (!std::isfinite(x)) return x;
      // Drop float's 13 lowest fraction bits, to nearest even; a carry into the exponent is the correct rounding,
      // and past the largest exponent it gives the bits of ±∞.
      const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
      const std::uint32_t sign = bits & 0x80000000u, magnitude = bits & 0x7fffffffu;
      const std::uint32_t kept = half_float_detail::shift_right_rounded(magnitude, 13) << 13;
      return std::bit_cast<float>(sign | kept);
    }
  }
  return x;
}

}  // namespace favorlab
