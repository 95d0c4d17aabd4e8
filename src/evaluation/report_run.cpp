#include "evaluation/report_run.hpp"

#include <chrono>

#include "evaluation/attention_recommendation.hpp"
#include "io/format_number.hpp"
#include "io/input_file.hpp"  // printable
#include "runtime/peak_memory.hpp"

namespace favorlab {

ReportMeasures measure_report(const ReportLayers& layers, const ReportSettings& settings, double alpha,
                              const RunContext& ctx) {
  ReportMeasures measures;
  const auto start = std::chrono::steady_clock::now();
  measures.checked = check_report_layers(layers, settings);
  const CheckedReportLayers& checked = measures.checked;
  std::int64_t done = 0;
  measures.heads = report_layers(layers, settings, [&] {
    if (ctx.progress) ctx.progress(++done, checked.tasks);
  });
  const std::vector<ReportedHead>& heads = measures.heads;
  // "Error falls as m grows": its open heads take the looks (more draws), the other checks keep the pilot's.
  measures.slopes =
      judge_slopes(heads, checked.shapes.size(), settings, alpha, ctx.looks,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                   report_head_loader(layers, heads, settings.arms), ctx.progress);
  return measures;
}

bool heads_differ(const std::vector<ReportLayerShape>& shapes) {
  bool differ = false;
  for (const auto& shape : shapes) differ = differ || shape.heads != shapes.front().heads;
  return differ;
}

Json report_params(const std::vector<ReportLayerShape>& shapes, const std::vector<ReportedHead>& heads,
                   const ReportChoices& choices, const ReportSettings& settings, const ReportClaims& claims) {
  Json layer_names = Json::array(), heads_per_layer = Json::array(), layer_shapes = Json::array(),
       sources = Json::array();
  for (const auto& shape : shapes) {
    layer_names.push_back(shape.name);
    heads_per_layer.push_back(shape.heads);
    layer_shapes.push_back(Json{{"heads", shape.heads}, {"L", shape.L}, {"d", shape.d}, {"dv", shape.dv}});
    sources.push_back(shape.source);
  }
  std::vector<std::string> feature_names;
  for (Family f : choices.features) feature_names.emplace_back(feature_kind_name(f));
  return Json{{"input_kind", choices.from_files ? "npy" : "synthetic"},
              {"layers", layer_names},
              {"heads_per_layer", heads_per_layer},
              {"heads_differ_between_layers", heads_differ(shapes)},
              {"layer_shapes", layer_shapes},
              {"layer_sources", sources},
              {"L", heads.front().report.L},
              {"d", heads.front().report.d},
              {"dv", heads.front().report.dv},
              {"m_values", settings.ms},
              {"features", feature_names},
              {"couplings", choices.couplings},
              {"modes", choices.modes},
              {"draws", settings.draws},
              {"projection_draw", "head index << 20 + draw"},
              {"matrix_max_L", settings.matrix_max_L},
              {"floor_factor", claims.floor_factor},
              {"alpha", claims.alpha},
              {"heatmap_m", choices.heatmap_m},
              {"heatmap_features", feature_names.front()},
              {"heatmap_coupling", choices.couplings.front()},
              {"renormalize", true},
              {"stabilizer", true}};
}

void add_report_closing(Result& result, const std::vector<ReportedHead>& heads,
                        const std::vector<ReportLayerShape>& shapes, const ReportSettings& settings,
                        const std::optional<CaptureManifest>& manifest, int heatmap_m, double target) {
  const Recommendation recommendation = recommend(heads, settings, target);
  result.params["recommendation"] = recommendation_json(recommendation, settings);
  const std::int64_t peak = resident_high_water_bytes();
  result.measurements["peak_memory_bytes"] = peak;
  if (manifest) result.text = model_line(*manifest);
  result.text += report_table(result.rows, result.checks, settings, heatmap_m, peak);
  if (heads_differ(shapes)) {
    std::string counts;
    for (const auto& shape : shapes) counts += (counts.empty() ? "" : ", ") + std::to_string(shape.heads);
    result.text += "Note: the layers differ in head count (" + counts + ").\n";
  }
  result.text += "\n" + wrap_paragraph(recommendation.paragraph) + "\n";
}

std::string model_line(const CaptureManifest& m) {
  std::string line = "Model: " + printable(m.model);
  if (!m.path.empty() && m.path != m.model)
    line += " (" + printable(m.path) + (m.revision.empty() ? "" : " @ " + printable(m.revision)) + ")";
  line += ", captured by scripts/capture-qkv.sh: L = " + std::to_string(m.L) + ", " + std::to_string(m.heads) +
          " heads" + (m.kv_expanded ? " (grouped-query keys and values from " + m.kv_heads + " heads, expanded)" : "") +
          ", " + (m.causal ? "causal" : "bidirectional") + ", softmax scale " + format_number(m.scale) +
          (m.scale_folded_into_q ? " (folded into Q by the capture)" : " (applied to Q here)") + "\n";
  return line;
}

}  // namespace favorlab
