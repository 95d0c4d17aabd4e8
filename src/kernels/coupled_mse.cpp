#include "kernels/coupled_mse.hpp"

#include "features/gerf_projection.hpp"
#include "kernels/gerf_moments.hpp"
#include "kernels/orthogonal_mse.hpp"
#include "kernels/simplex_moments.hpp"

namespace favorlab {

std::optional<double> exact_mse(Family f, Coupling c, const Geometry& g, int d, int m,
                                const FeatureParameters& params) {
  const FamilyInfo& info = family_info(f);
  if (c == Coupling::iid) {
    if (info.iid_mse == nullptr) return std::nullopt;
    return info.iid_mse(g, d, m, params);
  }
  if (c != Coupling::orthogonal && c != Coupling::simplex) return std::nullopt;
  if (f == Family::regularized) {
    if (c == Coupling::orthogonal) return orthogonal_mse(f, g, d, m);
    return std::nullopt;
  }
  // positive is gerf at A = 0; oprf is gerf at the pair's optimum (sderf acts along x + y only: no closed form here).
  if (f != Family::positive && f != Family::gerf && f != Family::oprf) return std::nullopt;
  const double a = f == Family::positive ? 0.0 : pair_gerf(f, g.z_sq(), d, params).a;
  if (c == Coupling::orthogonal) return gerf_orthogonal_mse(g, d, a, m);
  if (d < 2) return std::nullopt;
  return simplex_mse(g, d, a, m);
}

}  // namespace favorlab
