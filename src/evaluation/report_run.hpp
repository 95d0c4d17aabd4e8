#pragma once
// One `favorlab attention-report` run from its layers to its result: every layer checked, then every head's report
// (evaluation/attention_report.hpp), then the verdicts of "error falls as m grows" with their looks
// (evaluation/report_slopes.hpp); the result's params; and its close: the recommendation for a target error
// (evaluation/attention_recommendation.hpp), the peak memory and the terminal text (the model, the table, the
// recommendation's paragraph).
#include <optional>
#include <string>
#include <vector>

#include "evaluation/attention_report_summary.hpp"
#include "evaluation/capture_manifest.hpp"
#include "evaluation/report_layers.hpp"
#include "evaluation/report_slopes.hpp"
#include "mc/run_context.hpp"
#include "results/result.hpp"

namespace favorlab {

struct ReportMeasures {
  CheckedReportLayers checked;      // the layers' shapes and the progress total
  std::vector<ReportedHead> heads;  // every head's report
  SlopeVerdicts slopes;             // "error falls as m grows", with its looks
};

// Progress: one step per (head, arm, m, draw) task, then the looks' draws.
ReportMeasures measure_report(const ReportLayers& layers, const ReportSettings& settings, double alpha,
                              const RunContext& ctx);

// What the run was asked for, as its params record it.
struct ReportChoices {
  std::vector<Family> features;
  std::vector<std::string> couplings;  // as given (names)
  std::vector<std::string> modes;
  int heatmap_m = 256;
  bool from_files = false;  // .npy layers, not synthetic ones
};

// The result's params: the layers as read, the arms, the m values and the report's settings.
Json report_params(const std::vector<ReportLayerShape>& shapes, const std::vector<ReportedHead>& heads,
                   const ReportChoices& choices, const ReportSettings& settings, const ReportClaims& claims);

// Whether the layers' head counts differ.
bool heads_differ(const std::vector<ReportLayerShape>& shapes);

// The closing recommendation for `target` (into params), the peak memory, and the terminal text: the model, the table,
// a note when the layers' head counts differ, the recommendation's paragraph.
void add_report_closing(Result& result, const std::vector<ReportedHead>& heads,
                        const std::vector<ReportLayerShape>& shapes, const ReportSettings& settings,
                        const std::optional<CaptureManifest>& manifest, int heatmap_m, double target);

// "Model: …, captured by scripts/capture-qkv.sh: L = …" with the manifest's words escaped (a raw newline in a model
// name must not break the report's line).
std::string model_line(const CaptureManifest& m);

}  // namespace favorlab
