#pragma once
// The small PermuteFormer draw the permute-properties tests share: positive features of two Gaussian inputs (d = 4,
// m = 12, a fixed projection) and three fixed random permutations.
#include <cstdint>

#include "attention/attention_projection.hpp"
#include "attention/permute_reference.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/permute_properties.hpp"

namespace favorlab::testing {

inline constexpr int kPermuteDrawD = 4, kPermuteDrawM = 12;

inline Eigen::VectorXd permute_draw_features(std::uint64_t stream) {
  AttentionConfig c;
  c.m = kPermuteDrawM;
  const Eigen::MatrixXd w = draw_attention_projection(c, kPermuteDrawD, 7, 0);
  return explicit_permute_features(gaussian_input(1, kPermuteDrawD, 1.0, 11, stream, 0), w, c).row(0).transpose();
}

inline PermuteDraw permute_draw(const Eigen::VectorXd& phi_q, const Eigen::VectorXd& phi_k) {
  return {phi_q, phi_k, random_permutation(kPermuteDrawM, 3, 1, 0), random_permutation(kPermuteDrawM / 2, 3, 2, 0),
          random_permutation(kPermuteDrawM / 2, 3, 3, 0), "test, "};
}

}  // namespace favorlab::testing
