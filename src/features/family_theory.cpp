#include "features/family_theory.hpp"

#include <stdexcept>
#include <string>

#include "features/feature_maps.hpp"
#include "kernels/gerf_moments.hpp"
#include "kernels/orthogonal_mse.hpp"
#include "kernels/simplex_moments.hpp"

namespace favorlab {

namespace {

PairGerf pair_form(const FamilyInfo& info, const Geometry& g, int d, const FeatureParameters& params) {
  return info.pair_gerf != nullptr ? info.pair_gerf(g.z_sq(), d, params) : PairGerf{};
}

bool on_positive_map(Family f) { return family_info(f).map == &kPositiveMap; }

RowNorms positive_map_norms(Family f) {
  if (!on_positive_map(f))
    throw std::invalid_argument("exact orthogonal MSEs are implemented for the estimators on the positive map (" +
                                family_list(on_positive_map, true) + ") only, not " +
                                std::string(estimator_name(f)));
  return family_info(f).norms;
}

}  // namespace

ErrorMoments error_moments(Family f, const Geometry& g, int d, int m, const FeatureParameters& params) {
  const FamilyInfo& info = family_info(f);
  if (info.error_moments == nullptr)
    throw std::invalid_argument("error_moments: no moments for the " + std::string(info.name) + " features");
  return info.error_moments(g, d, m, pair_form(info, g, d, params));
}

std::optional<double> exact_mse(Family f, Coupling c, const Geometry& g, int d, int m,
                                const FeatureParameters& params) {
  const FamilyInfo& info = family_info(f);
  if (c == Coupling::iid) {
    if (info.iid_mse == nullptr) return std::nullopt;
    return info.iid_mse(g, d, m, params);
  }
  if (c != Coupling::orthogonal && c != Coupling::simplex) return std::nullopt;
  if (info.coupled_mse == nullptr) return std::nullopt;
  return info.coupled_mse(c, g, d, m, pair_form(info, g, d, params));
}

std::optional<double> isotropic_gerf_coupled_mse(Coupling c, const Geometry& g, int d, int m, const PairGerf& pair) {
  if (pair.dimension != d) return std::nullopt;
  if (c == Coupling::orthogonal) return gerf_orthogonal_mse(g, d, pair.a, m);
  if (c != Coupling::simplex || d < 2) return std::nullopt;
  return simplex_mse(g, d, pair.a, m);
}

std::optional<double> regularized_coupled_mse(Coupling c, const Geometry& g, int d, int m, const PairGerf&) {
  if (c == Coupling::orthogonal) return orthogonal_mse(RowNorms::sqrt_d, g, d, m);
  return std::nullopt;
}

double iid_mse(Family f, const Geometry& g, int d, int m) { return iid_mse(positive_map_norms(f), g, d, m); }

double orthogonal_mse(Family f, const Geometry& g, int d, int m) {
  return orthogonal_mse(positive_map_norms(f), g, d, m);
}

double theorem2_claimed_bound(Family f, const Geometry& g, int d, int m) {
  return theorem2_claimed_bound(positive_map_norms(f), g, d, m);
}

double theorem2_corrected_bound(Family f, const Geometry& g, int d, int m) {
  return theorem2_corrected_bound(positive_map_norms(f), g, d, m);
}

}  // namespace favorlab
