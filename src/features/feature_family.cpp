#include "features/feature_family.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "features/family_theory.hpp"
#include "features/generalized_kernels.hpp"
#include "features/gerf_projection.hpp"
#include "kernels/gerf_moments.hpp"
#include "kernels/lemma2.hpp"

namespace favorlab {

namespace {

double lemma2_trig(const Geometry& g, int, int m, const FeatureParameters&) { return mse_trig(g, m); }
double lemma2_positive(const Geometry& g, int, int m, const FeatureParameters&) { return mse_positive(g, m); }
double lemma2_hyperbolic(const Geometry& g, int, int m, const FeatureParameters&) { return mse_hyperbolic(g, m); }
// gerf and oprf: the GERF variance at the pair's A; sderf: its pair form (GERF in one dimension along x + y).
double gerf_exact(const Geometry& g, int d, int m, const FeatureParameters& p) {
  return gerf_mse_iid(g, d, gerf_pair_gerf(g.z_sq(), d, p).a, m);
}
double oprf_exact(const Geometry& g, int d, int m, const FeatureParameters&) {
  return gerf_mse_iid(g, d, oprf_a_star(g.z_sq(), d), m);
}
double sderf_exact(const Geometry& g, int d, int m, const FeatureParameters&) { return sderf_pair_mse_iid(g, d, m); }

// The order is the order of help strings, CLI defaults and plot legends. One line per part of FamilyInfo: names,
// the features, how W is drawn and prepared, the theory.
const std::vector<FamilyInfo> kFamilies{
    {.family = Family::trig, .name = "trig", .estimator_name = "trig",
     .description = "trigonometric features exp(|u|^2/2)[sin Wu, cos Wu]/sqrt(m)", .color = "tab:blue",
     .target = KernelTarget::softmax, .positive = false, .map = &kTrigMap, .columns_per_row = 2,
     .norms = RowNorms::chi, .data_dependent = false,
     .iid_mse = lemma2_trig, .mse_source = "Lemma 2", .error_moments = trig_error_moments},
    {.family = Family::positive, .name = "positive", .estimator_name = "positive",
     .description = "positive features exp(Wu - |u|^2/2)/sqrt(m) (FAVOR+)", .color = "tab:orange",
     .target = KernelTarget::softmax, .positive = true, .map = &kPositiveMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false,
     .pair_gerf = positive_pair_gerf, .iid_mse = lemma2_positive, .mse_source = "Lemma 2",
     .coupled_mse = isotropic_gerf_coupled_mse, .error_moments = positive_error_moments},
    {.family = Family::hyperbolic, .name = "hyperbolic", .estimator_name = "hyperbolic",
     .description = "hyperbolic features exp(+-Wu - |u|^2/2)/sqrt(2m)", .color = "tab:green",
     .target = KernelTarget::softmax, .positive = true, .map = &kHyperbolicMap, .columns_per_row = 2,
     .norms = RowNorms::chi, .data_dependent = false,
     .iid_mse = lemma2_hyperbolic, .mse_source = "Lemma 2", .error_moments = hyperbolic_error_moments},
    {.family = Family::regularized, .name = "regularized", .estimator_name = "smreg",
     .description = "positive features over rows of norm sqrt(d): unbiased for SMREG", .color = "tab:purple",
     .target = KernelTarget::regularized_softmax, .positive = true, .map = &kPositiveMap, .columns_per_row = 1,
     .norms = RowNorms::sqrt_d, .data_dependent = false,
     .coupled_mse = regularized_coupled_mse, .error_moments = smreg_error_moments},
    {.family = Family::gerf, .name = "gerf", .estimator_name = "gerf",
     .description = "generalized exponential features D exp(A|w|^2 + B w.u - |u|^2/2), fixed A (--gerf-a)",
     .color = "tab:red",
     .target = KernelTarget::softmax, .positive = true, .map = &kShiftedPositiveMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false, .prepare = gerf_prepare,
     .pair_gerf = gerf_pair_gerf, .iid_mse = gerf_exact, .mse_source = "FAVOR++ GERF variance",
     .coupled_mse = isotropic_gerf_coupled_mse, .error_moments = gerf_error_moments},
    {.family = Family::oprf, .name = "oprf", .estimator_name = "oprf",
     .description = "optimal positive features: gerf with the variance-minimising A from the data (FAVOR++)",
     .color = "tab:brown",
     .target = KernelTarget::softmax, .positive = true, .map = &kShiftedPositiveMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = true, .prepare = oprf_prepare, .pair_estimates = oprf_pair_estimates,
     .pair_gerf = oprf_pair_gerf, .iid_mse = oprf_exact, .mse_source = "FAVOR++ OPRF variance",
     .coupled_mse = isotropic_gerf_coupled_mse, .error_moments = gerf_error_moments},
    {.family = Family::sderf, .name = "sderf", .estimator_name = "sderf",
     .description = "symmetric dense-exponential features: a matrix A from the data's second moments (FAVOR#)",
     .color = "tab:pink",
     .target = KernelTarget::softmax, .positive = true, .map = &kShiftedPositiveMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = true, .prepare = sderf_prepare, .pair_estimates = sderf_pair_estimates,
     .pair_gerf = sderf_pair_gerf, .iid_mse = sderf_exact, .mse_source = "FAVOR# SDERF variance",
     .coupled_mse = isotropic_gerf_coupled_mse, .error_moments = gerf_error_moments},
    // The generalized kernels f(Wu) + ε_k: not estimators of SM, no theory, grey in the plots.
    {.family = Family::relu, .name = "relu", .estimator_name = "relu",
     .description = "generalized kernel max(Wu, 0) + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = true, .map = &kReluMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::exp, .name = "exp", .estimator_name = "exp",
     .description = "generalized kernel exp(Wu) + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = true, .map = &kExpMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::sigmoid, .name = "sigmoid", .estimator_name = "sigmoid",
     .description = "generalized kernel sigmoid(Wu) + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = true, .map = &kSigmoidMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::abs, .name = "abs", .estimator_name = "abs",
     .description = "generalized kernel |Wu| + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = true, .map = &kAbsMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::gelu, .name = "gelu", .estimator_name = "gelu",
     .description = "generalized kernel gelu(Wu) + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = false, .map = &kGeluMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::cos, .name = "cos", .estimator_name = "cos",
     .description = "generalized kernel cos(Wu) + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = false, .map = &kCosMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::tanh, .name = "tanh", .estimator_name = "tanh",
     .description = "generalized kernel tanh(Wu) + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = false, .map = &kTanhMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
    {.family = Family::identity, .name = "identity", .estimator_name = "identity",
     .description = "generalized kernel Wu + eps", .color = "tab:gray",
     .target = KernelTarget::generalized, .positive = false, .map = &kIdentityMap, .columns_per_row = 1,
     .norms = RowNorms::chi, .data_dependent = false},
};

}  // namespace

const std::vector<FamilyInfo>& families() { return kFamilies; }

const FamilyInfo& family_info(Family f) {
  for (const FamilyInfo& info : kFamilies)
    if (info.family == f) return info;
  throw std::logic_error("feature family missing from the table");
}

bool estimates_softmax(Family f) { return family_info(f).target != KernelTarget::generalized; }

std::string_view family_name(Family f) { return family_info(f).name; }
std::string_view estimator_name(Family f) { return family_info(f).estimator_name; }

std::vector<std::string> family_names(bool (*admit)(Family), bool estimator_spelling) {
  std::vector<std::string> names;
  for (const FamilyInfo& info : kFamilies)
    if (admit == nullptr || admit(info.family))
      names.emplace_back(estimator_spelling ? info.estimator_name : info.name);
  return names;
}

std::string family_list(bool (*admit)(Family), bool estimator_spelling) {
  const std::vector<std::string> names = family_names(admit, estimator_spelling);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

Family parse_family(std::string_view name, std::string_view what, bool (*admit)(Family), bool estimator_spelling) {
  for (const FamilyInfo& info : kFamilies)
    if ((info.name == name || info.estimator_name == name) && (admit == nullptr || admit(info.family)))
      return info.family;
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) + "' (expected " +
                              family_list(admit, estimator_spelling) + ")");
}

std::string families_json() {
  static const char* const kTargets[] = {"softmax", "regularized_softmax", "generalized"};
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const FamilyInfo& info : kFamilies)
    out.push_back({{"name", info.name},
                   {"estimator_name", info.estimator_name},
                   {"columns_per_row", info.columns_per_row},
                   {"row_norms", info.norms == RowNorms::chi ? "chi" : "sqrt_d"},
                   {"data_dependent", info.data_dependent},
                   {"positive", info.positive},
                   {"target", kTargets[static_cast<int>(info.target)]},
                   {"closed_form_mse", info.iid_mse != nullptr},
                   {"color", info.color},
                   {"description", info.description}});
  return out.dump(2) + "\n";
}

}  // namespace favorlab
