#include "evaluation/permute_property_rows.hpp"

#include "evaluation/permute_similarity.hpp"
#include "io/format_number.hpp"
#include "perm/cyclic_permutation.hpp"

namespace favorlab {

void report_permute_properties(const PermutePropertyTallies& tallies, const PermutePropertyGrid& grid,
                               const PermutePropertyScope& who, Result& result) {
  const double tol = permute_similarity_tolerance(who.columns);
  const std::string scope = who.features + " features, m'=" + std::to_string(who.columns) +
                            ", d=" + std::to_string(who.d) + ", " + std::to_string(who.draws) + " draws of (pi, q, k)";
  const std::string tol_text = "|diff|/(2 gamma_{m'+1} max sim) with 2 gamma = " + format_number(tol);
  const std::string grid_text = ", grid " + std::to_string(grid.width) + "x" + std::to_string(grid.height);
  for (int dim = 0; dim < 2; ++dim)
    for (int causal = 0; causal < 2; ++causal) {
      const CountedCheck& t = tallies.shift[dim][causal];
      result.checks.push_back(t.check(
          "PF property 1: sim(i+t, j+t) = sim(i, j) (" + std::string(dim ? "2-D" : "1-D") + ", " +
              (causal ? "causal r=" + format_number(grid.r) : std::string("bidirectional")) + ")",
          scope + (dim ? grid_text : ", positions < " + std::to_string(grid.positions)) + ", content shift-copied",
          tol_text));
      result.rows.push_back(Json{{"kind", "shift"}, {"features", who.features}, {"dims", dim ? 2 : 1},
                                 {"causal", causal == 1}, {"points", t.points}, {"worst_ratio_to_tolerance", t.worst},
                                 {"tolerance", tol}});
    }
  result.checks.push_back(tallies.bound.check(
      "PF property 2: sim(i, j) <= |phi(q)| |phi(k)| (no blow-up with position)",
      scope + ", positions up to " + std::to_string(grid.longest - 1),
      "(sim/(|phi q||phi k|) - 1)/(2 gamma_{m'+2}); max sim/norms = " + format_number(tallies.max_norm_ratio)));
  result.checks.push_back(tallies.positive.check(
      "PF property 3: sim > 0", scope + " (double)",
      "indicator (2 = non-positive); min sim = " + format_number(tallies.min_sim)));
  const char* names[2] = {"a pi of order 60", "the random pi"};
  for (int which = 0; which < 2; ++which) {
    const std::string where = scope + ", bidirectional, offsets < min(order, " + std::to_string(grid.offsets) + ")";
    result.checks.push_back(tallies.period_equal[which].check(
        std::string("PF: offsets delta and delta + order(pi) give the same sim (") + names[which] + ")", where,
        tol_text));
    result.checks.push_back(tallies.period_distinct[which].check(
        std::string("PF: offsets below order(pi) give different sims (") + names[which] + ")", where,
        "2 gamma / (smallest relative gap between sorted sims)"));
  }
  result.checks.push_back(tallies.wrap_2d.check(
      "PF 2-D: the row wrap (W-1,y)->(0,y+1) and the unit step get different sims", scope + grid_text,
      "2 gamma / relative gap"));
  result.checks.push_back(tallies.wrap_1d.check("PF 1-D flattened: the row wrap and the unit step get the same sim",
                                                scope + grid_text, "relative gap / 2 gamma"));
}

std::vector<Json> permute_offset_rows(const PermuteDraw& draw, const std::string& features) {
  const int columns = static_cast<int>(draw.phi_q.size());
  const Permutation sixty = order_sixty_permutation(columns);
  std::vector<Json> rows;
  for (int which = 0; which < 2; ++which) {
    const PermuteHead h{which == 0 ? sixty : draw.pi, std::nullopt, 1.0};
    for (std::int64_t delta = 0; delta < 3 * 60; ++delta)
      rows.push_back(Json{{"kind", "offset"},
                          {"features", features},
                          {"permutation", which == 0 ? "order60" : "random"},
                          {"order", h.pi.order_u64()},
                          {"m", columns},
                          {"offset", delta},
                          {"sim", absolute_similarity(draw.phi_q, draw.phi_k, h, PermuteLayout::line(), kPeriodBase,
                                                      kPeriodBase + delta)}});
  }
  return rows;
}

std::vector<Json> permute_grid_rows(const PermuteDraw& draw, const std::string& features, std::int64_t width,
                                    std::int64_t height, const RowWrap& at) {
  const PermuteHead h1{draw.pi, std::nullopt, 1.0}, h2{draw.pi_x, draw.pi_y, 1.0};
  const PermuteLayout line = PermuteLayout::line(), grid = PermuteLayout::grid(width, height);
  const std::int64_t query = at.y * width + at.x;
  std::vector<Json> rows;
  for (std::int64_t ky = 0; ky < height; ++ky)
    for (std::int64_t kx = 0; kx < width; ++kx) {
      const std::int64_t key = ky * width + kx;
      rows.push_back(Json{{"kind", "grid_sim"},
                          {"features", features},
                          {"x", kx},
                          {"y", ky},
                          {"query_x", at.x},
                          {"query_y", at.y},
                          {"sim_2d", absolute_similarity(draw.phi_q, draw.phi_k, h2, grid, query, key)},
                          {"sim_1d", absolute_similarity(draw.phi_q, draw.phi_k, h1, line, query, key)}});
    }
  return rows;
}

Json permute_wrap_row(const RowWrap& wrap, const std::string& features, std::int64_t draw, std::int64_t width,
                      std::int64_t height, int columns) {
  return Json{{"kind", "wrap"},
              {"features", features},
              {"draw", draw},
              {"W", width},
              {"H", height},
              {"sim_wrap_2d", wrap.wrap_2d},
              {"sim_unit_2d", wrap.unit_2d},
              {"sim_wrap_1d", wrap.wrap_1d},
              {"sim_unit_1d", wrap.unit_1d},
              {"relative_gap_2d", wrap.gap_2d},
              {"relative_gap_1d", wrap.gap_1d},
              {"tolerance", permute_similarity_tolerance(columns)}};
}

}  // namespace favorlab
