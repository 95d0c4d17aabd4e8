#include "features/feature_family.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

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

constexpr auto kSoftmax = KernelTarget::softmax;
constexpr auto kGeneral = KernelTarget::generalized;
using Map = FeatureMapCode;

// The order is the order of help strings, CLI defaults and plot legends.
const std::vector<FamilyInfo> kFamilies{
    {Family::trig, "trig", "trig", 2, RowNorms::chi, false, false, kSoftmax, Map::trig, lemma2_trig, "Lemma 2",
     "tab:blue", "trigonometric features exp(|u|^2/2)[sin Wu, cos Wu]/sqrt(m)"},
    {Family::positive, "positive", "positive", 1, RowNorms::chi, false, true, kSoftmax, Map::positive,
     lemma2_positive, "Lemma 2", "tab:orange", "positive features exp(Wu - |u|^2/2)/sqrt(m) (FAVOR+)", nullptr,
     positive_pair_gerf},
    {Family::hyperbolic, "hyperbolic", "hyperbolic", 2, RowNorms::chi, false, true, kSoftmax, Map::hyperbolic,
     lemma2_hyperbolic, "Lemma 2", "tab:green", "hyperbolic features exp(+-Wu - |u|^2/2)/sqrt(2m)"},
    {Family::regularized, "regularized", "smreg", 1, RowNorms::sqrt_d, false, true, KernelTarget::regularized_softmax,
     Map::positive, nullptr, "", "tab:purple", "positive features over rows of norm sqrt(d): unbiased for SMREG"},
    {Family::gerf, "gerf", "gerf", 1, RowNorms::chi, false, true, kSoftmax, Map::shifted_positive, gerf_exact,
     "FAVOR++ GERF variance", "tab:red", "generalized exponential features D exp(A|w|^2 + B w.u - |u|^2/2), fixed A (--gerf-a)",
     gerf_prepare, gerf_pair_gerf},
    {Family::oprf, "oprf", "oprf", 1, RowNorms::chi, true, true, kSoftmax, Map::shifted_positive, oprf_exact,
     "FAVOR++ OPRF variance", "tab:brown", "optimal positive features: gerf with the variance-minimising A from the data (FAVOR++)",
     oprf_prepare, oprf_pair_gerf, oprf_pair_estimates},
    {Family::sderf, "sderf", "sderf", 1, RowNorms::chi, true, true, kSoftmax, Map::shifted_positive, sderf_exact,
     "FAVOR# SDERF variance", "tab:pink", "symmetric dense-exponential features: a matrix A from the data's second moments (FAVOR#)",
     sderf_prepare, sderf_pair_gerf, sderf_pair_estimates},
    {Family::relu, "relu", "relu", 1, RowNorms::chi, false, true, kGeneral, Map::relu, nullptr, "", "tab:gray",
     "generalized kernel max(Wu, 0) + eps"},
    {Family::exp, "exp", "exp", 1, RowNorms::chi, false, true, kGeneral, Map::exp, nullptr, "", "tab:gray",
     "generalized kernel exp(Wu) + eps"},
    {Family::sigmoid, "sigmoid", "sigmoid", 1, RowNorms::chi, false, true, kGeneral, Map::sigmoid, nullptr, "",
     "tab:gray", "generalized kernel sigmoid(Wu) + eps"},
    {Family::abs, "abs", "abs", 1, RowNorms::chi, false, true, kGeneral, Map::abs, nullptr, "", "tab:gray",
     "generalized kernel |Wu| + eps"},
    {Family::gelu, "gelu", "gelu", 1, RowNorms::chi, false, false, kGeneral, Map::gelu, nullptr, "", "tab:gray",
     "generalized kernel gelu(Wu) + eps"},
    {Family::cos, "cos", "cos", 1, RowNorms::chi, false, false, kGeneral, Map::cos, nullptr, "", "tab:gray",
     "generalized kernel cos(Wu) + eps"},
    {Family::tanh, "tanh", "tanh", 1, RowNorms::chi, false, false, kGeneral, Map::tanh, nullptr, "", "tab:gray",
     "generalized kernel tanh(Wu) + eps"},
    {Family::identity, "identity", "identity", 1, RowNorms::chi, false, false, kGeneral, Map::identity, nullptr, "",
     "tab:gray", "generalized kernel Wu + eps"},
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
