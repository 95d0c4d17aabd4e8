// The feature-family table: one row per family, every name parses back to its family, the predicates derived from
// it, the CLI lists it, and plotting/families.json is exactly `favorlab families --json` (a family added to the table
// cannot leave the plots behind).
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "attention/attention_config.hpp"
#include "attention/attention_features.hpp"
#include "attention/permute_config.hpp"
#include "cli_runner.hpp"
#include "features/estimator.hpp"
#include "features/family_theory.hpp"
#include "features/feature_family.hpp"
#include "features/generalized_kernels.hpp"
#include "features/gerf_projection.hpp"
#include "linalg/gemm.hpp"
#include "rng/philox_stream.hpp"

using namespace favorlab;
using namespace favorlab::testing;

TEST_CASE("every family has one row, and its names parse back to it", "[features][family]") {
  std::set<int> seen;
  std::set<std::string> names;
  for (const FamilyInfo& f : families()) {
    INFO(f.name);
    CHECK(seen.insert(static_cast<int>(f.family)).second);
    CHECK(names.insert(std::string(f.name)).second);
    CHECK(parse_feature_kind(f.name) == f.family);
    CHECK(&family_info(f.family) == &f);
    CHECK((f.columns_per_row == 1 || f.columns_per_row == 2));
    CHECK(!f.color.empty());
    CHECK(!f.description.empty());
    if (estimates_softmax(f.family)) CHECK(parse_estimator(f.estimator_name) == f.family);
    if (f.iid_mse != nullptr) CHECK(!f.mse_source.empty());
  }
  CHECK(parse_estimator("smreg") == Family::regularized);  // one family, two spellings
  CHECK(parse_feature_kind("regularized") == Family::smreg);
  CHECK_THROWS_WITH(parse_estimator("relu"), Catch::Contains("unknown estimator 'relu'") &&
                                                 Catch::Contains("oprf") && Catch::Contains("smreg"));
  CHECK_THROWS_WITH(parse_feature_kind("nope"), Catch::Contains("unknown feature map 'nope'"));
  // The list's form, on a fixed set (a family added to the table leaves it unchanged).
  const auto lemma1 = [](Family f) { return f == Family::trig || f == Family::positive || f == Family::hyperbolic; };
  CHECK(family_list(lemma1) == "trig, positive or hyperbolic");
}

TEST_CASE("feature columns and positivity come from the table", "[features][family]") {
  AttentionConfig c;
  c.m = 10;
  for (const FamilyInfo& f : families()) {
    c.features = f.family;
    CHECK(feature_columns(c, 4) == f.columns_per_row * 10);
  }
  CHECK(family_info(Family::hyperbolic).positive);
  CHECK_FALSE(family_info(Family::trig).positive);
  CHECK(family_info(Family::oprf).data_dependent);
  CHECK_FALSE(family_info(Family::gerf).data_dependent);
}

namespace {

// The map functions themselves, by the code the GPU knows the map by: a descriptor whose functions are not its code's
// would make the two engines disagree.
template <class T>
using MapFn = void (*)(const Matrix<T>&, const Matrix<T>&, Matrix<T>&);
template <class T>
MapFn<T> direct_map(FeatureMapCode code) {
  switch (code) {
    case FeatureMapCode::trig: return trig_features<T>;
    case FeatureMapCode::positive: return positive_features<T>;
    case FeatureMapCode::hyperbolic: return hyperbolic_features<T>;
    case FeatureMapCode::shifted_positive: return shifted_positive_features<T>;
    default: return nullptr;
  }
}

// f of a generalized kernel by its code, as features/generalized_kernels.cpp defines it.
template <class T>
Matrix<T> direct_kernel(FeatureMapCode code, const Matrix<T>& x) {
  const auto a = x.array();
  switch (code) {
    case FeatureMapCode::relu: return a.max(T(0)).matrix();
    case FeatureMapCode::exp: return a.exp().matrix();
    case FeatureMapCode::sigmoid: return (T(1) / (T(1) + (-a).exp())).matrix();
    case FeatureMapCode::abs: return a.abs().matrix();
    case FeatureMapCode::gelu:
      return x.unaryExpr([](T t) { return T(0.5) * t * (T(1) + std::erf(t * T(1 / std::sqrt(2.0)))); });
    case FeatureMapCode::cos: return a.cos().matrix();
    case FeatureMapCode::tanh: return a.tanh().matrix();
    case FeatureMapCode::identity: return x;
    default: return Matrix<T>();
  }
}

Eigen::MatrixXd gaussian(Eigen::Index rows, Eigen::Index cols, double sd, std::uint64_t stream) {
  PhiloxStream rng(20250101, stream, 0);
  Eigen::MatrixXd x(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) x(i, j) = sd * rng.normal();
  return x;
}

// The projection a row's map takes: W, or the prepared [W' | c] from fixed statistics (any mean ≥ 0 and any positive
// semi-definite M are valid inputs of oprf and sderf).
Eigen::MatrixXd map_projection(const FamilyInfo& f, const Eigen::MatrixXd& w) {
  if (f.prepare == nullptr) return w;
  const PairStatistics stats{[] { return 1.5; },
                             [d = w.cols()] { return Eigen::MatrixXd(0.3 * Eigen::MatrixXd::Identity(d, d)); }};
  return packed(f.prepare(w, stats, FeatureParameters{}));
}

// φ(U) through the attention engine with the stabilizer off (values are then the plain features) equals the map
// function on the same projection, bit for bit.
template <class T>
void check_attention_dispatch(const FamilyInfo& f, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w) {
  AttentionConfig config;
  config.features = f.family;
  config.stabilizer = false;
  const Matrix<T> ut = u.cast<T>(), wt = map_projection(f, w).cast<T>();
  const ScaledFeatures<T> engine = attention_features<T>(ut, wt, config);
  Matrix<T> direct;
  direct_map<T>(f.map->code)(ut, wt, direct);
  CHECK(engine.values.cols() == f.columns_per_row * w.rows());
  CHECK((engine.values.array() == direct.array()).all());
  CHECK((engine.log_scale == 0).all());
}

// f(U Wᵀ) + ε_k through the attention engine equals f applied directly to the same product, bit for bit.
template <class T>
void check_kernel_dispatch(const FamilyInfo& f, const Eigen::MatrixXd& u, const Eigen::MatrixXd& w) {
  AttentionConfig config;
  config.features = f.family;
  const Matrix<T> ut = u.cast<T>(), wt = w.cast<T>();
  const ScaledFeatures<T> engine = attention_features<T>(ut, wt, config);
  // U Wᵀ through the engine's own GEMM (oneDNN for float where the build has it): Eigen's product may sum in another
  // order, and this test is about which f is applied, not about the product.
  Matrix<T> projected(ut.rows(), wt.rows());
  gemm<T>(ut, Op::none, wt, Op::transpose, T(0), projected);
  Matrix<T> direct = direct_kernel<T>(f.map->code, projected);
  direct.array() += T(config.kernel_epsilon);
  REQUIRE(direct.cols() == w.rows());
  CHECK((engine.values.array() == direct.array()).all());
  CHECK((engine.log_scale == 0).all());
}

}  // namespace

TEST_CASE("every row is consistent with the map and the theory it points to", "[features][family]") {
  const int d = 4, m = 6;
  const Eigen::MatrixXd u = gaussian(5, d, 0.5, 1), w = gaussian(m, d, 1.0, 2);
  const Geometry g{0.6, 0.7, 0.3};
  for (const FamilyInfo& f : families()) {
    INFO(f.name);
    REQUIRE(f.map != nullptr);
    CHECK(f.columns_per_row == f.map->columns_per_row);
    CHECK((f.prepare != nullptr) == f.map->prepared_projection);
    CHECK((f.pair_estimates != nullptr) == f.data_dependent);
    const bool softmax = estimates_softmax(f.family);
    for (const bool set : {f.map->f64.features != nullptr, f.map->f64.stabilized != nullptr,
                           f.map->f32.features != nullptr, f.map->f32.stabilized != nullptr})
      CHECK(set == softmax);
    CHECK((f.map->f64.entrywise == nullptr) == softmax);
    CHECK((f.map->f32.entrywise == nullptr) == softmax);
    if (!softmax) {
      check_kernel_dispatch<double>(f, u, w);
      check_kernel_dispatch<float>(f, u, w);
      CHECK(f.error_moments == nullptr);
      CHECK(f.iid_mse == nullptr);
      continue;
    }
    REQUIRE(direct_map<double>(f.map->code) != nullptr);
    check_attention_dispatch<double>(f, u, w);
    check_attention_dispatch<float>(f, u, w);
    if (!f.data_dependent) {  // the estimator engine's dispatch (the data-dependent families work by pair there)
      Eigen::MatrixXd direct;
      direct_map<double>(f.map->code)(u, map_projection(f, w), direct);
      CHECK((estimator_features(f.family, u, w).array() == direct.array()).all());
    } else {
      const Eigen::VectorXd pairs = f.pair_estimates(u, u.colwise().reverse(), w);
      CHECK(pairs.size() == u.rows());
      CHECK(pairs.allFinite());
    }
    // Every theory pointer answers at an ordinary pair. The error moments' variance is the iid MSE where both exist:
    // the closed forms in double against 50-digit moments, equal up to rounding (1e-10 relative).
    if (f.pair_gerf != nullptr) {
      const PairGerf pg = f.pair_gerf(g.z_sq(), d, FeatureParameters{});
      CHECK(pg.a < 0.125);
      CHECK((pg.dimension == 1 || pg.dimension == d));
    }
    REQUIRE(f.error_moments != nullptr);
    const ErrorMoments em = error_moments(f.family, g, d, m);
    CHECK(em.variance > 0);
    CHECK(std::isfinite(em.variance));
    if (f.iid_mse != nullptr) {
      CHECK(!f.mse_source.empty());
      CHECK(f.iid_mse(g, d, m, FeatureParameters{}) == Approx(em.variance).epsilon(1e-10));
    }
    for (const Coupling c : {Coupling::orthogonal, Coupling::simplex}) {
      const std::optional<double> coupled = exact_mse(f.family, c, g, d, m);
      if (f.coupled_mse == nullptr) CHECK_FALSE(coupled.has_value());
      if (coupled) CHECK((std::isfinite(*coupled) && *coupled > 0));
    }
  }
}

TEST_CASE("causal attention rejects the data-dependent families, gerf's A is validated", "[attention][family]") {
  AttentionConfig c;
  c.causal = true;
  for (Family f : {Family::oprf, Family::sderf}) {
    c.features = f;
    CHECK_THROWS_WITH(validate_attention_config(c, 4), Catch::Contains("later keys"));
  }
  c.features = Family::gerf;
  CHECK_NOTHROW(validate_attention_config(c, 4));
  c.parameters.gerf_a = 0.2;
  CHECK_THROWS_WITH(validate_attention_config(c, 4), Catch::Contains("--gerf-a"));
  c.parameters.gerf_a = -0.1;
  c.coupling = Coupling::simplex;
  CHECK_THROWS_WITH(validate_attention_config(c, 1), Catch::Contains("simplex needs d >= 2"));
}

TEST_CASE("PermuteFormer refuses the families whose projection is prepared per head", "[permute][family]") {
  AttentionConfig c;
  c.features = Family::oprf;
  const PermuteHead head{Permutation(std::vector<int>{0}), std::nullopt, 1.0};
  CHECK_THROWS_WITH(validate_permute_head(c, 4, head, PermuteLayout{}, 8), Catch::Contains("not available"));
}

TEST_CASE("favorlab families lists the table, plotting/families.json is its --json output", "[cli][family]") {
  const auto dir = scratch_dir("families");
  const CliRun text = run_cli("families", dir);
  REQUIRE(text.status == 0);
  for (const FamilyInfo& f : families()) CHECK(text.out.find(std::string(f.name)) != std::string::npos);
  const CliRun json = run_cli("families --json", dir);
  REQUIRE(json.status == 0);
  const std::string committed =
      read_text(std::filesystem::path(FAVORLAB_SOURCE_DIR) / "plotting" / "families.json");
  INFO("regenerate with: favorlab families --json > plotting/families.json");
  CHECK(json.out == committed);
}
