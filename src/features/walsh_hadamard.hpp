#pragma once
// Fast Walsh–Hadamard transform (docs/theory.md#structured-projections).
// H_d is the Sylvester Hadamard matrix (H_1 = [1], H_2k = [[H_k, H_k], [H_k, −H_k]]) scaled by 1/√d, so it is
// symmetric and orthogonal: H_d H_d = I. fwht(v) overwrites v with H_d v in O(d log d) operations.
// Contract: d = v.size() must be a power of 2 (d = 1 is the identity); otherwise std::invalid_argument naming d.
#include <Eigen/Dense>

namespace favorlab {

bool is_power_of_two(long long n);

// In place, normalized: v ← H_d v.
void fwht(Eigen::Ref<Eigen::VectorXd> v);

}  // namespace favorlab
