#include "attention/attention_config.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace favorlab {

namespace {

constexpr std::array<std::pair<FeatureKind, std::string_view>, 12> kKinds{{
    {FeatureKind::trig, "trig"},       {FeatureKind::positive, "positive"}, {FeatureKind::hyperbolic, "hyperbolic"},
    {FeatureKind::regularized, "regularized"}, {FeatureKind::relu, "relu"}, {FeatureKind::exp, "exp"},
    {FeatureKind::sigmoid, "sigmoid"}, {FeatureKind::abs, "abs"},           {FeatureKind::gelu, "gelu"},
    {FeatureKind::cos, "cos"},         {FeatureKind::tanh, "tanh"},         {FeatureKind::identity, "identity"},
}};

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

std::string_view mechanism_name(Mechanism mechanism) { return mechanism == Mechanism::exact ? "exact" : "favor"; }

Mechanism parse_mechanism(std::string_view name) {
  if (name == "exact") return Mechanism::exact;
  if (name == "favor") return Mechanism::favor;
  throw std::invalid_argument("unknown mechanism '" + std::string(name) + "' (expected exact or favor)");
}

std::string_view feature_kind_name(FeatureKind kind) {
  for (const auto& [k, name] : kKinds)
    if (k == kind) return name;
  return "?";
}

std::vector<std::string> feature_kind_names() {
  std::vector<std::string> names;
  for (const auto& entry : kKinds) names.emplace_back(entry.second);
  return names;
}

FeatureKind parse_feature_kind(std::string_view name) {
  for (const auto& [k, n] : kKinds)
    if (n == name) return k;
  std::string expected;
  for (const auto& entry : kKinds) expected += (expected.empty() ? "" : ", ") + std::string(entry.second);
  throw std::invalid_argument("unknown feature map '" + std::string(name) + "' (expected one of " + expected + ")");
}

bool estimates_softmax(FeatureKind kind) {
  return kind == FeatureKind::trig || kind == FeatureKind::positive || kind == FeatureKind::hyperbolic ||
         kind == FeatureKind::regularized;
}

int projection_rows(const AttentionConfig& config) {
  if (config.mechanism == Mechanism::exact) return 0;
  if (!estimates_softmax(config.features) && !config.project) return 0;
  return config.m;
}

int feature_columns(const AttentionConfig& config, int d) {
  if (!estimates_softmax(config.features)) return config.project ? config.m : d;
  const bool paired = config.features == FeatureKind::trig || config.features == FeatureKind::hyperbolic;
  return paired ? 2 * config.m : config.m;
}

void validate_attention_config(const AttentionConfig& config, int d) {
  if (d <= 0) throw std::invalid_argument("input dimension d must be positive");
  if (config.mechanism == Mechanism::exact) return;
  if (config.m <= 0) throw std::invalid_argument("--m must be positive (got " + std::to_string(config.m) + ")");
  if (config.chunk <= 0) throw std::invalid_argument("--chunk must be positive (got " + std::to_string(config.chunk) + ")");
  if (!std::isfinite(config.kernel_epsilon) || config.kernel_epsilon < 0)
    throw std::invalid_argument("--kernel-epsilon must be finite and non-negative");
  if (estimates_softmax(config.features) && !config.project)
    throw std::invalid_argument("--no-projection applies to generalized kernels only, not to '" +
                                std::string(feature_kind_name(config.features)) + "'");
  if (config.coupling == Coupling::hadamard && projection_rows(config) > 0 && !is_power_of_two(d))
    throw std::invalid_argument("--coupling hadamard needs d a power of 2 (got d = " + std::to_string(d) + ")");
}

}  // namespace favorlab
