#pragma once
// The exponent of a power law y = c·x^b fitted to points: the least-squares slope b of log y against log x (centred
// sums, so the slope does not lose digits to a large mean of log x). Exact on an exact power law up to the rounding of
// the logarithms. Used for how a running time grows with the sequence length and how a needed size grows with the
// dimension.
#include <vector>

namespace favorlab {

// NaN when there are fewer than two points or every x is the same; a value x ≤ 0 or y ≤ 0 (no logarithm) gives NaN
// too. Throws std::invalid_argument when x and y differ in length.
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace favorlab
