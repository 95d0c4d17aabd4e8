#pragma once
// Normal-distribution helpers for z tests (Boost.Math).
#include <cstddef>

namespace favorlab {

double two_sided_critical_z(double alpha);  // z with P(|Z| > z) = alpha
double one_sided_critical_z(double alpha);  // z with P(Z > z) = alpha
double two_sided_p_value(double z);
double bonferroni_alpha(double family_alpha, std::size_t tests);  // per-test α for a family-wise α
double normal_density(double z);

}  // namespace favorlab
