#pragma once
// The manifest.json scripts/capture-qkv.sh writes beside the layers it captured (docs/real-models.md), as
// `favorlab attention-report --input-dir` reads it: which model the layers came from, whether its attention is causal
// (the report then runs only the arms of that mode), and the softmax scale. favorlab computes softmax(Q Kᵀ/√d); a
// model whose scale s differs has s·√d folded into the captured Q ("scale_folded_into_q": true, the capture's
// default); a manifest that says the scale is not folded has Q multiplied by s·√d when the layer is read.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/result.hpp"

namespace favorlab {

// A layer as the manifest lists it; 0 where it states no figure.
struct ManifestLayer {
  std::string name;
  int heads = 0, Lq = 0, L = 0, d = 0;  // query heads (after any key/value expansion), queries, keys, dimension
};

struct CaptureManifest {
  std::string file;  // the manifest's path, for messages
  std::string model, path, revision;  // revision: empty when the manifest has none
  bool causal = false;
  bool scale_folded_into_q = true;
  double scale = 0;                          // the model's softmax scale (the first layer's when they differ)
  std::map<std::string, double> layer_scale;  // per layer name, when the manifest lists layers
  int L = 0, heads = 0;
  std::string kv_heads;  // as written: a number, or a list when layers differ
  bool kv_expanded = false;
  std::vector<ManifestLayer> layers;  // as listed in "layers"; empty when it lists none
  Json summary;  // the fields above, for the result's params
};

// A capture's manifest is a few kB; a larger file is not one.
inline constexpr std::uintmax_t kMaxManifestBytes = std::uintmax_t{1} << 20;

// nullopt when DIR has no entry manifest.json. Read by io/json_file.hpp's bounded reader. Throws
// std::invalid_argument (one line naming --input-dir and the path) for a manifest that is not a regular file (a FIFO,
// a device, a dangling link), is larger than kMaxManifestBytes, is not JSON, nests too deeply, holds a number beyond
// double, or lacks or mistypes "model", "causal" or "scale".
std::optional<CaptureManifest> read_capture_manifest(const std::filesystem::path& dir);

// A manifest is believed only where the arrays agree with it (its scale and causality cannot be seen in them, its
// shapes can). Both throw std::invalid_argument, one line naming the manifest, the layer and the two figures:
// the layers it lists must be the layers read (when it lists any), by name;
void check_manifest_layer_names(const CaptureManifest& manifest, const std::vector<std::string>& names);
// a layer's heads, queries, keys and dimension must be those the manifest states for it, and the top-level L and
// heads those of every layer when it lists none (or of its first listed layer).
void check_manifest_layer(const CaptureManifest& manifest, const std::string& layer, int heads, int Lq, int L, int d);

// What Q of `layer` (query/key dimension d) must be multiplied by so that favorlab's 1/√d gives the model's scale:
// 1 when the scale is folded into Q already.
double q_scale_factor(const CaptureManifest& manifest, const std::string& layer, int d);

}  // namespace favorlab
