// The feature-family table: one row per family, every name parses back to its family, the predicates derived from
// it, the CLI lists it, and plotting/families.json is exactly `favorlab families --json` (a family added to the table
// cannot leave the plots behind).
#include <catch2/catch.hpp>

#include <set>

#include "attention/attention_config.hpp"
#include "attention/permute_config.hpp"
#include "cli_runner.hpp"
#include "features/estimator.hpp"
#include "features/feature_family.hpp"

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
  CHECK(family_list(estimates_softmax) == "trig, positive, hyperbolic, regularized, gerf, oprf or sderf");
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
