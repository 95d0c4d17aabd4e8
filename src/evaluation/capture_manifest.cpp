#include "evaluation/capture_manifest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "io/json_file.hpp"

namespace favorlab {

namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
  throw std::invalid_argument("--input-dir: " + file.string() + ": " + problem);
}

double positive_scale(const Json& v, const std::filesystem::path& file, const std::string& what) {
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
    fail(file, what + " must be a positive number");
  return v.get<double>();
}

// A figure the manifest may state: absent is 0; present, a positive integer within int.
int optional_count(const Json& object, const char* key, const std::filesystem::path& file, const std::string& what) {
  if (!object.contains(key)) return 0;
  const Json& v = object[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > std::numeric_limits<int>::max())
    fail(file, what + ": \"" + key + "\" must be a positive integer");
  return static_cast<int>(v.get<std::int64_t>());
}

// The layer of that name the manifest lists; nullptr when it lists none of that name.
const ManifestLayer* listed_layer(const std::vector<ManifestLayer>& layers, const std::string& name) {
  const auto it = std::find_if(layers.begin(), layers.end(), [&name](const ManifestLayer& e) { return e.name == name; });
  return it == layers.end() ? nullptr : &*it;
}

[[noreturn]] void disagree(const CaptureManifest& m, const std::string& layer, const std::string& what, int stated,
                           int found) {
  throw std::invalid_argument("--input-dir: " + m.file + " says layer " + layer + " has " + what + " " +
                              std::to_string(stated) + ", its arrays have " + std::to_string(found) +
                              " (the manifest is not this capture's)");
}

// The manifest's "layers" list into m: each layer's name (once only), the figures it states and its own scale.
void read_manifest_layers(const Json& layers, const std::filesystem::path& file, CaptureManifest& m) {
  if (!layers.is_array()) fail(file, "\"layers\" must be a list of layers");
  for (const Json& layer : layers) {
    if (!layer.is_object() || !layer.contains("name") || !layer["name"].is_string())
      fail(file, "every entry of \"layers\" must be an object with a \"name\"");
    ManifestLayer entry{layer["name"].get<std::string>()};
    const std::string what = "layer " + entry.name;
    if (listed_layer(m.layers, entry.name) != nullptr) fail(file, what + " is listed twice");
    entry.heads = optional_count(layer, "heads", file, what);
    entry.Lq = optional_count(layer, "Lq", file, what);
    entry.L = optional_count(layer, "L", file, what);
    entry.d = optional_count(layer, "d", file, what);
    if (layer.contains("scale"))
      m.layer_scale[entry.name] = positive_scale(layer["scale"], file, "the scale of " + what);
    m.layers.push_back(std::move(entry));
  }
}

}  // namespace

void check_manifest_layer_names(const CaptureManifest& manifest, const std::vector<std::string>& names) {
  if (manifest.layers.empty()) return;
  for (const ManifestLayer& listed : manifest.layers)
    if (std::find(names.begin(), names.end(), listed.name) == names.end())
      throw std::invalid_argument("--input-dir: " + manifest.file + " lists layer " + listed.name +
                                  ", but the directory has no Q, K, V files of that name");
  for (const std::string& name : names)
    if (listed_layer(manifest.layers, name) == nullptr)
      throw std::invalid_argument("--input-dir: layer " + name + " is not among the layers " + manifest.file +
                                  " lists");
}

void check_manifest_layer(const CaptureManifest& manifest, const std::string& layer, int heads, int Lq, int L, int d) {
  const auto same = [&](const char* what, int stated, int found) {
    if (stated > 0 && stated != found) disagree(manifest, layer, what, stated, found);
  };
  if (const ManifestLayer* listed = listed_layer(manifest.layers, layer)) {
    same("heads", listed->heads, heads);
    same("queries (Lq)", listed->Lq, Lq);
    same("keys (L)", listed->L, L);
    same("dimension d", listed->d, d);
  } else if (manifest.layers.empty()) {  // one L and head count for every layer
    same("keys (L)", manifest.L, L);
    same("heads", manifest.heads, heads);
  }
}

std::optional<CaptureManifest> read_capture_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "manifest.json";
  // Absent only when no entry of that name exists: a dangling or looping link is a manifest that cannot be read.
  std::error_code ec;
  if (std::filesystem::symlink_status(file, ec).type() == std::filesystem::file_type::not_found) return std::nullopt;
  // The bounded reader: a FIFO or device refused without blocking, the size, depth and numbers checked.
  const Json j = read_json_file(file, "--input-dir:", kMaxManifestBytes);
  if (!j.is_object()) fail(file, "not a JSON object");
  CaptureManifest m;
  if (!j.contains("model") || !j["model"].is_string()) fail(file, "\"model\" (a string) is missing");
  m.model = j["model"].get<std::string>();
  if (!j.contains("causal") || !j["causal"].is_boolean()) fail(file, "\"causal\" (true or false) is missing");
  m.causal = j["causal"].get<bool>();
  if (!j.contains("scale")) fail(file, "\"scale\" (the softmax scale) is missing");
  // One scale, or one per layer (a list) when the layers differ.
  if (j["scale"].is_array()) {
    if (j["scale"].empty()) fail(file, "\"scale\" is an empty list");
    for (const Json& s : j["scale"]) positive_scale(s, file, "every entry of \"scale\"");
    m.scale = j["scale"].front().get<double>();
  } else {
    m.scale = positive_scale(j["scale"], file, "\"scale\"");
  }
  if (j.contains("scale_folded_into_q")) {
    if (!j["scale_folded_into_q"].is_boolean()) fail(file, "\"scale_folded_into_q\" must be true or false");
    m.scale_folded_into_q = j["scale_folded_into_q"].get<bool>();
  }
  m.file = file.string();
  if (j.contains("layers")) read_manifest_layers(j["layers"], file, m);
  if (!j["scale"].is_number() && !m.scale_folded_into_q && m.layer_scale.empty())
    fail(file, "the layers' scales differ but the manifest lists no per-layer scale");
  const auto text_of = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  m.path = text_of("path");
  m.revision = text_of("revision");
  m.L = optional_count(j, "L", file, "the manifest");
  m.heads = optional_count(j, "heads", file, "the manifest");
  if (!m.layers.empty()) {  // the manifest's own figures must agree before the arrays are asked
    const ManifestLayer& first = m.layers.front();
    if (m.L > 0 && first.L > 0 && m.L != first.L)
      fail(file, "\"L\" is " + std::to_string(m.L) + " but its first layer's is " + std::to_string(first.L));
    if (m.heads > 0 && first.heads > 0 && m.heads != first.heads)
      fail(file, "\"heads\" is " + std::to_string(m.heads) + " but its first layer's is " + std::to_string(first.heads));
  }
  if (j.contains("kv_heads")) {
    // A count, or one per layer: nothing nested is copied into the result's params.
    const Json& kv = j["kv_heads"];
    const auto count = [](const Json& v) { return v.is_number_integer() && v.get<std::int64_t>() > 0; };
    if (!(count(kv) || (kv.is_array() && !kv.empty() && std::all_of(kv.begin(), kv.end(), count))))
      fail(file, "\"kv_heads\" must be a positive integer or a list of them");
    m.kv_heads = kv.dump();
  }
  m.kv_expanded = j.contains("kv_expanded") && j["kv_expanded"].is_boolean() && j["kv_expanded"].get<bool>();
  m.summary = Json{{"model", m.model},
                   {"path", m.path},
                   {"revision", m.revision.empty() ? Json(nullptr) : Json(m.revision)},
                   {"causal", m.causal},
                   {"scale", j["scale"]},
                   {"scale_folded_into_q", m.scale_folded_into_q},
                   {"L", m.L},
                   {"heads", m.heads},
                   {"kv_heads", j.contains("kv_heads") ? j["kv_heads"] : Json(nullptr)},
                   {"kv_expanded", m.kv_expanded},
                   {"manifest", file.string()}};
  return m;
}

double q_scale_factor(const CaptureManifest& manifest, const std::string& layer, int d) {
  if (manifest.scale_folded_into_q) return 1.0;
  const auto it = manifest.layer_scale.find(layer);
  const double s = it != manifest.layer_scale.end() ? it->second : manifest.scale;
  return s * std::sqrt(static_cast<double>(d));
}

}  // namespace favorlab
