#pragma once
// The layers `favorlab attention-report` measures and the loop over their heads: a user's (Q, K, V) .npy triples
// (io/input_layers.hpp names the files; a capture's manifest.json may ask for Q to be scaled, capture_manifest.hpp) or
// the synthetic layers with known answers (synthetic_heads.hpp, one layer per kind). A layer is read (or made) again
// each time it is loaded, so a report holds one layer at a time; check_report_layers loads every layer once before
// any work, so a bad file stops the run before the hours of work ahead of it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "evaluation/attention_report.hpp"
#include "evaluation/attention_report_summary.hpp"
#include "evaluation/capture_manifest.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "io/input_layers.hpp"

namespace favorlab {

struct ReportLayer {
  std::string name;
  std::string source;  // "synthetic", or the three paths comma-separated
  std::vector<AttentionInput> heads;
};

// A layer as the result's params list it: its name, source, head count and its first head's L, d and dv.
struct ReportLayerShape {
  std::string name, source;
  int heads = 0, L = 0, d = 0, dv = 0;
};

class ReportLayers {
 public:
  // The layers of these files; Q multiplied by q_scale_factor where a manifest is given.
  ReportLayers(std::vector<LayerFiles> files, std::optional<CaptureManifest> manifest);
  // One synthetic layer per kind of all_synthetic_heads(): `heads` heads of L × d (dv = d), layer i drawn from
  // (seed, layer i).
  ReportLayers(int heads, int L, int d, std::uint64_t seed);

  std::size_t size() const;
  bool from_files() const { return from_files_; }

  // Layer i. Read from files, it is checked: each file (H, L, d) or (L, d), finite, shapes that fit one another
  // (check_attention_inputs) and, when `arms` has a causal arm, as many queries as keys; std::invalid_argument
  // "layer NAME: problem" otherwise.
  ReportLayer load(std::size_t i, const std::vector<ReportArm>& arms) const;

 private:
  bool from_files_ = false;
  std::vector<LayerFiles> files_;
  std::optional<CaptureManifest> manifest_;
  int heads_ = 0, L_ = 0, d_ = 0;
  std::uint64_t seed_ = 0;
};

struct CheckedReportLayers {
  std::vector<ReportLayerShape> shapes;
  std::int64_t tasks = 0;  // report_head_tasks summed over every head: the progress total
};

// Loads (and so checks) every layer once.
CheckedReportLayers check_report_layers(const ReportLayers& layers, const ReportSettings& settings);

// report_head on every head of every layer in order, head_index counting heads across layers from 0; tick after each
// task.
std::vector<ReportedHead> report_layers(const ReportLayers& layers, const ReportSettings& settings,
                                        const std::function<void()>& tick = {});

// Reads heads[i]'s input again (for more draws), loading its layer once while consecutive calls stay in that layer.
std::function<AttentionInput(std::size_t head)> report_head_loader(const ReportLayers& layers,
                                                                   const std::vector<ReportedHead>& heads,
                                                                   const std::vector<ReportArm>& arms);

}  // namespace favorlab
