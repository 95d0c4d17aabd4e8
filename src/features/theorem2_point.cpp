#include "features/theorem2_point.hpp"

#include "features/family_theory.hpp"

namespace favorlab {

Theorem2Point theorem2_point(Family e, const Geometry& g, int d, int m) {
  return {iid_mse(e, g, d, m), orthogonal_mse(e, g, d, m), theorem2_claimed_bound(e, g, d, m),
          theorem2_corrected_bound(e, g, d, m)};
}

}  // namespace favorlab
