#include "attention/permute_config.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

bool positive_feature_kind(Family kind) { return family_info(kind).positive; }

void validate_permute_head(const AttentionConfig& config, int d, const PermuteHead& head, const PermuteLayout& layout,
                           Eigen::Index length) {
  if (config.mechanism != Mechanism::favor)
    throw std::invalid_argument("PermuteFormer needs the favor mechanism (the permutation acts on FAVOR features)");
  if (!positive_feature_kind(config.features))
    throw std::invalid_argument("--features '" + std::string(feature_kind_name(config.features)) +
                                "' can be negative; PermuteFormer needs positive features (positive, relu, ...)");
  if (family_info(config.features).map->prepared_projection)
    throw std::invalid_argument("--features '" + std::string(feature_kind_name(config.features)) +
                                "' is not available for PermuteFormer (its projection is prepared per head)");
  if (!estimates_softmax(config.features) && !(config.kernel_epsilon > 0))
    throw std::invalid_argument("--kernel-epsilon must be > 0 for PermuteFormer with '" +
                                std::string(feature_kind_name(config.features)) + "' features (sim must be > 0)");
  if (!(head.r > 0 && head.r <= 1))
    throw std::invalid_argument("--r must lie in (0, 1] (got " + std::to_string(head.r) + ")");
  if (!config.causal && head.r != 1)
    throw std::invalid_argument("--r must be 1 for bidirectional attention (got " + std::to_string(head.r) +
                                "): r^(i-j) > 1 for later keys would grow without bound");
  const int columns = feature_columns(config, d);
  if (!layout.two_d()) {
    if (head.pi_y) throw std::invalid_argument("pi_y is for 2-D inputs only (no --grid given)");
    if (head.pi.size() != columns)
      throw std::invalid_argument("permutation size " + std::to_string(head.pi.size()) + " != feature count " +
                                  std::to_string(columns));
    return;
  }
  if (layout.width <= 0 || layout.height <= 0)
    throw std::invalid_argument("--grid sides must be positive (got " + std::to_string(layout.width) + "x" +
                                std::to_string(layout.height) + ")");
  if (layout.width * layout.height != length)
    throw std::invalid_argument("--grid " + std::to_string(layout.width) + "x" + std::to_string(layout.height) +
                                " has " + std::to_string(layout.width * layout.height) + " positions but L = " +
                                std::to_string(length));
  if (columns % 2 != 0)
    throw std::invalid_argument("2-D PermuteFormer needs an even feature count m (got " + std::to_string(columns) +
                                "): pi_x and pi_y permute one half each");
  if (!head.pi_y) throw std::invalid_argument("2-D PermuteFormer needs pi_y");
  if (head.pi.size() != columns / 2 || head.pi_y->size() != columns / 2)
    throw std::invalid_argument("2-D permutation sizes " + std::to_string(head.pi.size()) + " and " +
                                std::to_string(head.pi_y->size()) + " must both be m/2 = " +
                                std::to_string(columns / 2));
}

}  // namespace favorlab
