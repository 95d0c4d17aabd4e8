// The layers of `favorlab attention-report` and the arms it runs, as library calls: the arms of modes × couplings ×
// families (no causal arm for a data-dependent family), the synthetic layers equal to synthetic_heads, the progress
// total of check_report_layers equal to the ticks report_layers gives, heads numbered across layers, and a layer read
// from files refused with its name when a causal arm meets more queries than keys.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "attention/random_inputs.hpp"
#include "cli_runner.hpp"
#include "evaluation/report_layers.hpp"
#include "evaluation/synthetic_heads.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"

using namespace favorlab;
namespace fs = std::filesystem;

TEST_CASE("report arms: every mode, coupling and family, no causal arm for a data-dependent family",
          "[attention-report]") {
  const std::vector<Family> features{Family::positive, Family::trig, Family::oprf};
  const std::vector<Coupling> couplings{Coupling::orthogonal, Coupling::iid};
  const auto arms = report_arms(features, couplings, {false, true});
  // Bidirectional: 2 × 3; causal: 2 × 2 (oprf takes its parameters from every key).
  REQUIRE(arms.size() == 10);
  CHECK(arms[0].features == Family::positive);
  CHECK(arms[0].coupling == Coupling::orthogonal);
  CHECK(!arms[0].causal);
  CHECK(arms[2].features == Family::oprf);
  CHECK(arms[3].coupling == Coupling::iid);
  for (std::size_t i = 6; i < arms.size(); ++i) {
    CHECK(arms[i].causal);
    CHECK(arms[i].features != Family::oprf);
  }
  CHECK(report_arms(features, couplings, {true}).size() == 4);
  CHECK(report_arms(features, couplings, {}).empty());
}

TEST_CASE("report layers: synthetic layers, the progress total, heads numbered across layers", "[attention-report]") {
  const int heads = 2, L = 12, d = 4;
  const ReportLayers layers(heads, L, d, 31);
  CHECK(!layers.from_files());
  REQUIRE(layers.size() == all_synthetic_heads().size());
  ReportSettings s;
  s.arms = report_arms({Family::positive}, {Coupling::orthogonal}, {false});
  s.ms = {2, 4};
  s.draws = 2;
  s.matrix_max_L = L;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const ReportLayer layer = layers.load(i, s.arms);
    const SyntheticHeads kind = all_synthetic_heads()[i];
    CHECK(layer.name == synthetic_heads_name(kind));
    CHECK(layer.source == "synthetic");
    const auto expected = synthetic_heads(kind, heads, L, d, d, 31, i);
    REQUIRE(layer.heads.size() == expected.size());
    for (std::size_t h = 0; h < expected.size(); ++h) {
      CHECK(layer.heads[h].q == expected[h].q);
      CHECK(layer.heads[h].k == expected[h].k);
      CHECK(layer.heads[h].v == expected[h].v);
    }
  }
  CHECK_THROWS_WITH(layers.load(layers.size(), s.arms), Catch::Contains("no layer"));
  const CheckedReportLayers checked = check_report_layers(layers, s);
  REQUIRE(checked.shapes.size() == layers.size());
  CHECK(checked.shapes[1].heads == heads);
  CHECK(checked.shapes[1].L == L);
  CHECK(checked.shapes[1].d == d);
  CHECK(checked.shapes[1].dv == d);
  CHECK(checked.tasks == std::int64_t(layers.size()) * heads * report_head_tasks(s, L));
  std::int64_t ticks = 0;
  const auto reported = report_layers(layers, s, [&] { ++ticks; });
  CHECK(ticks == checked.tasks);
  REQUIRE(reported.size() == layers.size() * heads);
  CHECK(reported[3].layer == checked.shapes[1].name);
  CHECK(reported[3].layer_index == 1);
  CHECK(reported[3].head == 1);
  // Head 3 overall: its draws are the ones report_head gives head index 3 (another index draws other projections).
  const ReportLayer second = layers.load(1, s.arms);
  const HeadReport direct = report_head(second.heads[1], s, 3);
  CHECK(reported[3].report.points[0][0].mse == direct.points[0][0].mse);
  CHECK(report_head(second.heads[1], s, 1).points[0][0].mse != direct.points[0][0].mse);
}

TEST_CASE("report layers from files: the layer's name on a causal arm with fewer keys than queries",
          "[attention-report]") {
  const auto dir = testing::scratch_dir("report-layers");
  auto write = [&](const std::string& name, int rows, std::uint64_t stream) {
    const NpyArray a = heads_to_npy<double>({gaussian_input(rows, 3, 1.0, 5, stream, 0)}, true);
    write_npy(dir / name, a.shape, a.values, NpyDtype::float64);
  };
  write("l0_q.npy", 6, 1);
  write("l0_k.npy", 4, 2);
  write("l0_v.npy", 4, 3);
  const ReportLayers layers(layers_from_directory(dir, "--input-dir"), std::nullopt);
  CHECK(layers.from_files());
  REQUIRE(layers.size() == 1);
  const auto bidirectional = report_arms({Family::positive}, {Coupling::orthogonal}, {false});
  const ReportLayer layer = layers.load(0, bidirectional);
  CHECK(layer.name == "l0");
  CHECK(layer.heads.front().q.rows() == 6);
  CHECK(layer.heads.front().k == gaussian_input(4, 3, 1.0, 5, 2, 0));
  const auto causal = report_arms({Family::positive}, {Coupling::orthogonal}, {true});
  CHECK_THROWS_WITH(layers.load(0, causal), Catch::Contains("layer l0: causal attention needs as many queries"));
  fs::remove_all(dir);
}
