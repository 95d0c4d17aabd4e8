#include "attention/attention_config.hpp"

#include <cmath>
#include <stdexcept>

namespace favorlab {

namespace {

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

std::string_view mechanism_name(Mechanism mechanism) { return mechanism == Mechanism::exact ? "exact" : "favor"; }

Mechanism parse_mechanism(std::string_view name) {
  if (name == "exact") return Mechanism::exact;
  if (name == "favor") return Mechanism::favor;
  throw std::invalid_argument("unknown mechanism '" + std::string(name) + "' (expected exact or favor)");
}

std::string_view feature_kind_name(Family kind) { return family_name(kind); }

std::vector<std::string> feature_kind_names() { return family_names(nullptr); }

Family parse_feature_kind(std::string_view name) { return parse_family(name, "feature map", nullptr); }

int projection_rows(const AttentionConfig& config) {
  if (config.mechanism == Mechanism::exact) return 0;
  if (!estimates_softmax(config.features) && !config.project) return 0;
  return config.m;
}

int feature_columns(const AttentionConfig& config, int d) {
  if (!estimates_softmax(config.features)) return config.project ? config.m : d;
  return family_info(config.features).columns_per_row * config.m;
}

void validate_attention_config(const AttentionConfig& config, int d) {
  if (d <= 0) throw std::invalid_argument("input dimension d must be positive");
  if (config.mechanism == Mechanism::exact) {
    if (config.precision == ProductPrecision::tf32)
      throw std::invalid_argument("--precision tf32: exact attention runs in float32, or in bfloat16 through cuDNN's "
                                  "fused attention (cuda backend)");
    return;
  }
  if (config.m <= 0) throw std::invalid_argument("--m must be positive (got " + std::to_string(config.m) + ")");
  if (config.chunk <= 0) throw std::invalid_argument("--chunk must be positive (got " + std::to_string(config.chunk) + ")");
  if (!std::isfinite(config.kernel_epsilon) || config.kernel_epsilon < 0)
    throw std::invalid_argument("--kernel-epsilon must be finite and non-negative");
  if (estimates_softmax(config.features) && !config.project)
    throw std::invalid_argument("--no-projection applies to generalized kernels only, not to '" +
                                std::string(feature_kind_name(config.features)) + "'");
  const FamilyInfo& family = family_info(config.features);
  if (family.map->prepared_projection && !family.data_dependent &&
      (!std::isfinite(config.parameters.gerf_a) || !(config.parameters.gerf_a < 0.125)))
    throw std::invalid_argument("--gerf-a must be finite and below 1/8 (got " +
                                std::to_string(config.parameters.gerf_a) + ")");
  // oprf and sderf take their parameters from means over ALL queries and keys: a causal output would depend on
  // later keys through them. Rejected rather than silently leaking the future (prefix statistics would change every
  // key's features at every step and break the prefix sums).
  if (family.data_dependent && config.causal)
    throw std::invalid_argument("--features " + std::string(family.name) +
                                " chooses its parameters from all queries and keys, so causal outputs would depend "
                                "on later keys; use --features gerf (fixed A) or positive with --causal");
  if (config.coupling == Coupling::simplex && projection_rows(config) > 0 && d < 2)
    throw std::invalid_argument("--coupling simplex needs d >= 2 (got d = " + std::to_string(d) + ")");
  if (config.coupling == Coupling::hadamard && projection_rows(config) > 0 && !is_power_of_two(d))
    throw std::invalid_argument("--coupling hadamard needs d a power of 2 (got d = " + std::to_string(d) + ")");
}

}  // namespace favorlab
