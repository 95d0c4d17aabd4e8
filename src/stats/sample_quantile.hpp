#pragma once
// Sample quantile of order p ∈ [0, 1] by linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of R and NumPy): h = (n − 1)p, q = x_(⌊h⌋) + (h − ⌊h⌋)(x_(⌊h⌋+1) − x_(⌊h⌋)). `sorted` must be ascending and
// non-empty; throws std::invalid_argument otherwise or for p outside [0, 1].
#include <vector>

namespace favorlab {

double sample_quantile(const std::vector<double>& sorted, double p);

// The sample median (type 7: the mean of the two middle values when there is an even number) of unsorted values.
double sample_median(std::vector<double> values);

}  // namespace favorlab
