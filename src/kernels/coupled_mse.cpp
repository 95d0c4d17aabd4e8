#include "kernels/coupled_mse.hpp"

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
  // Isotropic gerf features in all d dimensions (positive at A = 0, gerf, oprf at the pair's optimum) have closed
  // forms under coupled rows; sderf acts along x + y only (dimension 1 at a pair), and has none here.
  if (info.pair_gerf == nullptr) return std::nullopt;
  const PairGerf pg = info.pair_gerf(g.z_sq(), d, params);
  if (pg.dimension != d) return std::nullopt;
  if (c == Coupling::orthogonal) return gerf_orthogonal_mse(g, d, pg.a, m);
  if (d < 2) return std::nullopt;
  return simplex_mse(g, d, pg.a, m);
}

}  // namespace favorlab
