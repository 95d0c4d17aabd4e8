#include "attention/half_inputs.hpp"

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "io/format_number.hpp"
#include "io/half_float.hpp"

namespace favorlab {

std::string_view half_inputs_name(HalfInputs format) {
  switch (format) {
    case HalfInputs::float16: return "float16";
    case HalfInputs::bfloat16: return "bfloat16";
    case HalfInputs::off: break;
  }
  return "off";
}

HalfInputs parse_half_inputs(std::string_view name) {
  for (const HalfInputs f : {HalfInputs::off, HalfInputs::float16, HalfInputs::bfloat16})
    if (name == half_inputs_name(f)) return f;
  throw std::invalid_argument("--half-inputs must be off, float16 or bfloat16 (got '" + std::string(name) + "')");
}

namespace {

template <class T>
T rounded_value(HalfInputs format, T x) {
  if constexpr (std::is_same_v<T, double>) {
    return format == HalfInputs::float16 ? float16_to_float(double_to_float16(x))
                                         : bfloat16_to_float(double_to_bfloat16(x));
  } else {
    return format == HalfInputs::float16 ? float16_to_float(float_to_float16(x))
                                         : bfloat16_to_float(float_to_bfloat16(x));
  }
}

}  // namespace

template <class T>
Heads<T> rounded_to(HalfInputs format, const Heads<T>& x, const std::string& what) {
  if (format == HalfInputs::off) return x;
  Heads<T> out;
  out.reserve(x.size());
  for (std::size_t h = 0; h < x.size(); ++h) {
    Matrix<T> r = x[h].unaryExpr([format](T value) { return rounded_value(format, value); });
    for (Eigen::Index j = 0; j < r.cols(); ++j)
      for (Eigen::Index i = 0; i < r.rows(); ++i)
        if (std::isinf(r(i, j)) && std::isfinite(x[h](i, j)))
          throw std::invalid_argument(
              what + ": --half-inputs " + std::string(half_inputs_name(format)) + ": head " + std::to_string(h) +
              " [" + std::to_string(i) + ", " + std::to_string(j) + "] = " + format_number(double(x[h](i, j))) +
              (format == HalfInputs::float16 ? " is beyond float16's range (|x| < 65520); bfloat16 has float's range"
                                             : " is beyond bfloat16's range, which is float's"));
    out.push_back(std::move(r));
  }
  return out;
}

template <class T>
Heads<T> rounded_as(HalfInputs format, const Heads<double>& x, const std::string& what) {
  if (format == HalfInputs::off) throw std::logic_error("rounded_as: no 16-bit format given");
  Heads<T> out;
  for (const Matrix<double>& h : rounded_to(format, x, what)) out.push_back(h.template cast<T>());
  return out;
}

template Heads<float> rounded_as(HalfInputs, const Heads<double>&, const std::string&);
template Heads<double> rounded_as(HalfInputs, const Heads<double>&, const std::string&);
template Heads<float> rounded_to(HalfInputs, const Heads<float>&, const std::string&);
template Heads<double> rounded_to(HalfInputs, const Heads<double>&, const std::string&);

}  // namespace favorlab
