#pragma once
// The second-order (1/n) term of the Edgeworth expansion of the studentized mean, for draws whose kurtosis dwarfs
// their skewness — e.g. odd powers of a symmetric variable: skewness 0, so the first-order check of
// stats/edgeworth.hpp passes any trial count, while a huge kurtosis still distorts the tails.
// Hall, "The Bootstrap and Edgeworth Expansion" (1992), §2.6: P(T ≤ x) = Φ(x) + n^{−½} q₁(x) φ(x) + n^{−1} q₂(x) φ(x)
// + …, with q₂(x) = x [ κ (x² − 3)/12 − γ² (x⁴ + 2x² − 3)/18 − (x² + 3)/4 ], γ the skewness and κ the excess kurtosis.
// As in stats/edgeworth.hpp, a z test is called reliable when the shift of one tail, |q₂(z)| φ(z)/n, is at most the
// tail's nominal share α/2.
#include <cstdint>

namespace favorlab {

// Smallest n with |q₂(z)| φ(z)/n ≤ α/2 (saturates at INT64_MAX; at least 2).
std::int64_t trials_for_second_order_z_test(double skewness, double excess_kurtosis, double z, double alpha);

}  // namespace favorlab
