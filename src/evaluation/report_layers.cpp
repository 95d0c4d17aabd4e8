#include "evaluation/report_layers.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

#include "attention/attend.hpp"
#include "evaluation/synthetic_heads.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"

namespace favorlab {

namespace {

ReportLayer read_layer(const LayerFiles& files, const std::vector<ReportArm>& arms, const CaptureManifest* manifest) {
  const std::string where = "layer " + files.name + ": ";
  auto heads_of = [&](const std::filesystem::path& p, const char* what) {
    try {
      return npy_to_heads<double>(read_npy(p), std::string(what) + " " + p.string());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
  };
  auto q = heads_of(files.q, "Q");
  const auto k = heads_of(files.k, "K"), v = heads_of(files.v, "V");
  // favorlab's softmax uses 1/√d: a model scale not folded into Q yet is applied to Q here.
  if (manifest && !q.empty())
    if (const double factor = q_scale_factor(*manifest, files.name, static_cast<int>(q.front().cols())); factor != 1) {
      for (auto& head : q) head *= factor;
      for (const auto& head : q)
        if (!head.allFinite())
          throw std::invalid_argument(where + manifest->file + "'s scale times sqrt(d) (" + std::to_string(factor) +
                                      ") makes Q overflow; the scale is not this model's");
    }
  try {
    AttentionConfig exact;
    exact.mechanism = Mechanism::exact;
    check_attention_inputs<double>(q, k, v, Eigen::MatrixXd(0, q.empty() ? 0 : q.front().cols()), exact);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + e.what());
  }
  const int Lq = static_cast<int>(q.front().rows()), L = static_cast<int>(k.front().rows());
  if (manifest)
    check_manifest_layer(*manifest, files.name, static_cast<int>(q.size()), Lq, L, static_cast<int>(q.front().cols()));
  for (const auto& arm : arms)
    if (arm.causal && Lq != L)
      throw std::invalid_argument(
          where + "causal attention needs as many queries as keys, got " + std::to_string(Lq) + " and " +
          std::to_string(L) +
          (manifest && manifest->causal ? " (" + manifest->file + " says the model is causal; --modes bidirectional "
                                                                  "overrides it)"
                                        : " (drop causal from --modes)"));
  ReportLayer layer{files.name, files.q.string() + "," + files.k.string() + "," + files.v.string(), {}};
  for (std::size_t h = 0; h < q.size(); ++h) layer.heads.push_back({q[h], k[h], v[h]});
  return layer;
}

}  // namespace

ReportLayers::ReportLayers(std::vector<LayerFiles> files, std::optional<CaptureManifest> manifest)
    : from_files_(true), files_(std::move(files)), manifest_(std::move(manifest)) {
  if (!manifest_) return;
  std::vector<std::string> names;
  for (const LayerFiles& f : files_) names.push_back(f.name);
  check_manifest_layer_names(*manifest_, names);
}

ReportLayers::ReportLayers(int heads, int L, int d, std::uint64_t seed) : heads_(heads), L_(L), d_(d), seed_(seed) {}

std::size_t ReportLayers::size() const { return from_files() ? files_.size() : all_synthetic_heads().size(); }

ReportLayer ReportLayers::load(std::size_t i, const std::vector<ReportArm>& arms) const {
  if (i >= size()) throw std::invalid_argument("report layers: no layer " + std::to_string(i));
  if (from_files()) return read_layer(files_[i], arms, manifest_ ? &*manifest_ : nullptr);
  const SyntheticHeads kind = all_synthetic_heads()[i];
  return {std::string(synthetic_heads_name(kind)), "synthetic", synthetic_heads(kind, heads_, L_, d_, d_, seed_, i)};
}

CheckedReportLayers check_report_layers(const ReportLayers& layers, const ReportSettings& settings) {
  CheckedReportLayers checked;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const ReportLayer layer = layers.load(i, settings.arms);
    for (const auto& h : layer.heads) checked.tasks += report_head_tasks(settings, static_cast<int>(h.k.rows()));
    const AttentionInput& first = layer.heads.front();
    checked.shapes.push_back({layer.name, layer.source, static_cast<int>(layer.heads.size()),
                              static_cast<int>(first.k.rows()), static_cast<int>(first.q.cols()),
                              static_cast<int>(first.v.cols())});
  }
  return checked;
}

std::vector<ReportedHead> report_layers(const ReportLayers& layers, const ReportSettings& settings,
                                        const std::function<void()>& tick) {
  std::vector<ReportedHead> heads;
  std::uint64_t head_index = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const ReportLayer layer = layers.load(i, settings.arms);
    for (std::size_t h = 0; h < layer.heads.size(); ++h)
      heads.push_back({layer.name, i, static_cast<int>(h), report_head(layer.heads[h], settings, head_index++, tick)});
  }
  return heads;
}

std::function<AttentionInput(std::size_t)> report_head_loader(const ReportLayers& layers,
                                                              const std::vector<ReportedHead>& heads,
                                                              const std::vector<ReportArm>& arms) {
  auto cached = std::make_shared<std::pair<std::size_t, ReportLayer>>(layers.size(), ReportLayer{});
  return [&layers, &heads, arms, cached](std::size_t head) {
    const ReportedHead& h = heads.at(head);
    if (cached->first != h.layer_index) *cached = {h.layer_index, layers.load(h.layer_index, arms)};
    return cached->second.heads.at(static_cast<std::size_t>(h.head));
  };
}

}  // namespace favorlab
