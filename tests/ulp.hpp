#pragma once
// ulp_of<T>(v): the unit in the last place of T at the exact value v, the error unit of the tests that hold vector
// math (sin, cos, exp) to long double libm: 2^(e − p) for the T-binade [2^(e−1), 2^e) holding |v| (p = 24 or 53),
// and the smallest subnormal below the normal range.
#include <cmath>
#include <limits>

namespace favorlab::testing {

template <class T>
long double ulp_of(long double v) {
  const long double a = std::fabs(v);
  if (a < std::numeric_limits<T>::min()) return std::numeric_limits<T>::denorm_min();
  int e = 0;
  std::frexp(a, &e);
  return std::ldexp(1.0L, e - std::numeric_limits<T>::digits);
}

}  // namespace favorlab::testing
