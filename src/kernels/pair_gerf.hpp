#pragma once
// One pair's features in the form of isotropic generalized exponential features (kernels/gerf_moments.hpp): the
// scalar A and the dimension d' in which f(ω, x) f(ω, y) acts as GERF's. Positive features are A = 0 in all d
// dimensions; sderf at one pair is GERF in one dimension along x + y (features/gerf_projection.hpp).
namespace favorlab {

struct PairGerf {
  double a = 0;
  int dimension = 1;
};

}  // namespace favorlab
