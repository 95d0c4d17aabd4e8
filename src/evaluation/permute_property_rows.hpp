#pragma once
// What `favorlab permute-properties` writes about one feature map's sampled points (evaluation/permute_properties.hpp):
// the checks of properties 1–3, the period and the row wrap from the tallies, and the rows the figures draw from one
// draw — the sims along the period's offsets and around the grid's centre, and each draw's row wrap.
#include <cstdint>
#include <string>
#include <vector>

#include "evaluation/permute_properties.hpp"
#include "results/result.hpp"

namespace favorlab {

// Who the points were sampled for, as the checks' scope says it.
struct PermutePropertyScope {
  std::string features;  // the feature map's name
  int columns = 0;       // m'
  int d = 0;
  std::int64_t draws = 0;
};

// The twelve checks (four of property 1, then 2, 3, the period's four and the two wraps) and a "shift" row per
// property-1 check.
void report_permute_properties(const PermutePropertyTallies& tallies, const PermutePropertyGrid& grid,
                               const PermutePropertyScope& scope, Result& result);

// The sims of offsets 0 … 3·60 − 1 from kPeriodBase ("kind": "offset"), for order_sixty_permutation(m') and the
// draw's π.
std::vector<Json> permute_offset_rows(const PermuteDraw& draw, const std::string& features);

// The sim of a query at the wrap's unit step start (at.x, at.y) to every key of the W × H grid, with the 2-D and the
// flattened 1-D encoding ("kind": "grid_sim").
std::vector<Json> permute_grid_rows(const PermuteDraw& draw, const std::string& features, std::int64_t width,
                                    std::int64_t height, const RowWrap& at);

// The row wrap of draw `draw` ("kind": "wrap").
Json permute_wrap_row(const RowWrap& wrap, const std::string& features, std::int64_t draw, std::int64_t width,
                      std::int64_t height, int columns);

}  // namespace favorlab
