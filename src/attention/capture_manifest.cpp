#include "attention/capture_manifest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

}  // namespace

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
  if (j.contains("layers") && j["layers"].is_array())
    for (const Json& layer : j["layers"])
      if (layer.is_object() && layer.contains("name") && layer["name"].is_string() && layer.contains("scale"))
        m.layer_scale[layer["name"].get<std::string>()] =
            positive_scale(layer["scale"], file, "the scale of layer " + layer["name"].get<std::string>());
  if (!j["scale"].is_number() && !m.scale_folded_into_q && m.layer_scale.empty())
    fail(file, "the layers' scales differ but the manifest lists no per-layer scale");
  const auto text_of = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  m.path = text_of("path");
  m.revision = text_of("revision");
  if (j.contains("L") && j["L"].is_number_integer()) m.L = j["L"].get<int>();
  if (j.contains("heads") && j["heads"].is_number_integer()) m.heads = j["heads"].get<int>();
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
