// evaluation/report_run.hpp on small synthetic layers: every head reported with progress to the task total, the
// params as the run was asked, the closing text and recommendation, a model line that cannot be broken by the
// manifest's words; and the memory model of one layer grows with L and drops the matrix phases past matrix_max_L.
#include <catch2/catch.hpp>

#include "evaluation/report_run.hpp"
#include "perf/memory_estimate.hpp"

using namespace favorlab;

namespace {

ReportSettings settings() {
  ReportSettings s;
  s.arms = {{Family::positive, Coupling::orthogonal, false}};
  s.ms = {8, 32};
  s.draws = 4;
  s.seed = 3;
  s.threads = 2;
  return s;
}

}  // namespace

TEST_CASE("report run: measure, params and closing on synthetic layers", "[report]") {
  const ReportLayers layers(1, 24, 4, 3);
  RunContext ctx;
  ctx.trials = 4;
  ctx.threads = 2;
  std::int64_t last = 0, total = 0;
  ctx.progress = [&](std::int64_t done, std::int64_t of) { last = done, total = of; };
  const ReportMeasures m = measure_report(layers, settings(), 1e-3, ctx);
  CHECK(m.heads.size() == m.checked.shapes.size());  // one head per layer
  CHECK(total == m.checked.tasks);
  CHECK(last == total);
  const Json params = report_params(m.checked.shapes, m.heads, {{Family::positive}, {"orthogonal"}, {"bidirectional"},
                                                                32, false},
                                    settings(), {1e-3, 10});
  CHECK(params["input_kind"] == "synthetic");
  CHECK(params["layers"].size() == m.checked.shapes.size());
  CHECK(params["heatmap_m"] == 32);
  CHECK(params["heatmap_coupling"] == "orthogonal");
  CHECK(params["heads_differ_between_layers"] == false);

  Result result;
  summarize_report(m.heads, m.checked.shapes.size(), settings(), {1e-3, 10}, m.slopes, result.rows, result.checks);
  add_report_closing(result, m.heads, m.checked.shapes, settings(), std::nullopt, 32, 0.1);
  CHECK(result.params.contains("recommendation"));
  CHECK(result.measurements["peak_memory_bytes"].get<std::int64_t>() > 0);
  CHECK(result.text.find("Recommendation (target: relative output error <= 0.1)") != std::string::npos);
  CHECK(result.text.find("Note: the layers differ") == std::string::npos);

  std::vector<ReportLayerShape> differing = m.checked.shapes;
  differing.back().heads += 1;
  CHECK(heads_differ(differing));
}

TEST_CASE("report run: the model line escapes the manifest's words", "[report]") {
  CaptureManifest c;
  c.model = "gpt2\nFAKE LINE";
  c.path = "gpt2";
  c.L = 128;
  c.heads = 12;
  c.causal = true;
  c.scale = 0.125;
  const std::string line = model_line(c);
  CHECK(line.find('\n') == line.size() - 1);  // one line
  CHECK(line.find("L = 128, 12 heads, causal, softmax scale 0.125") != std::string::npos);
}

TEST_CASE("report memory: one layer's peak grows with L, no matrix phases past matrix_max_L", "[report][perf]") {
  using namespace memory;
  const ReportLayerSize small{4, 256, 256, 64, 64}, large{4, 1024, 1024, 64, 64};
  const std::vector<std::string> couplings{"orthogonal"};
  const double at_small = report_layer_bytes(small, 256, 256, true, 4096, couplings, 100, 2, 0);
  CHECK(report_layer_bytes(large, 256, 256, true, 4096, couplings, 100, 2, 0) > at_small);
  CHECK(report_layer_bytes(large, 256, 256, true, 512, couplings, 100, 2, 0) <
        report_layer_bytes(large, 256, 256, true, 4096, couplings, 100, 2, 0));
  CHECK(report_layer_bytes(small, 256, 256, true, 4096, couplings, 100, 2, 1e12) > 1e12);
}
