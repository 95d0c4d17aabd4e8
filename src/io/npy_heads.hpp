#pragma once
// Attention inputs from/to .npy arrays: a (L, d) array is one head, a (H, L, d) array is H heads, each head an L×d
// matrix whose row i is token i (the array's C order, row-major per head).
//
// npy_to_heads<T> accepts rank 2 → 1 head and rank 3 → H heads; any other rank, or values that do not match the
// shape, throws std::invalid_argument "what: expected shape (L, d) or (H, L, d), got (…)", and an empty shape (a zero
// dimension: no heads, rows or columns) "what: shape (0, 8, 4) is empty: ...". For T = float a float64
// value beyond float's range throws std::invalid_argument "what: value at [h, i, j] overflows float32".
// heads_to_npy<T> is the inverse: shape (H, L, d), or (L, d) when drop_head_axis is set (then there must be exactly
// one head); dtype float32 for T = float, float64 for T = double. Heads of different sizes, or no heads, throw
// std::invalid_argument. Instantiated for float and double.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "io/npy.hpp"

namespace favorlab {

template <class T>
std::vector<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> npy_to_heads(const NpyArray& array,
                                                                           const std::string& what);

template <class T>
NpyArray heads_to_npy(const std::vector<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>& heads,
                      bool drop_head_axis);

// Every row of every head, one under another: (L, d) as it is, (H, L, d) as an (H·L, d) matrix; npy_to_heads<double>'s
// errors.
Eigen::MatrixXd npy_stacked_rows(const NpyArray& array, const std::string& what);

extern template std::vector<Eigen::MatrixXf> npy_to_heads<float>(const NpyArray&, const std::string&);
extern template std::vector<Eigen::MatrixXd> npy_to_heads<double>(const NpyArray&, const std::string&);
extern template NpyArray heads_to_npy<float>(const std::vector<Eigen::MatrixXf>&, bool);
extern template NpyArray heads_to_npy<double>(const std::vector<Eigen::MatrixXd>&, bool);

}  // namespace favorlab
