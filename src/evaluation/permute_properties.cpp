#include "evaluation/permute_properties.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "evaluation/permute_similarity.hpp"
#include "perm/cyclic_permutation.hpp"

namespace favorlab {

namespace {

using Index = std::int64_t;

struct Context {
  const PermuteDraw& draw;
  const PermutePropertyGrid& grid;
  PermutePropertyTallies& tallies;
  double tol;
  std::string mode;  // "bidirectional" or "causal"

  double sim(const PermuteHead& h, const PermuteLayout& layout, Index i, Index j) const {
    return absolute_similarity(draw.phi_q, draw.phi_k, h, layout, i, j);
  }
  std::string label(const std::string& rest) const { return draw.label + rest; }
};

// P1 (1-D), P2 (a) and P3 at base positions i, j, shifts and far moves up to the longest position.
void line_points(const Context& c, const PermuteHead& h, int causal) {
  const PermuteLayout line = PermuteLayout::line();
  const double norms = c.draw.phi_q.norm() * c.draw.phi_k.norm();
  const double bound_tol = 2 * dot_rounding_bound(static_cast<int>(c.draw.phi_q.size()) + 2);
  const std::vector<Index> spread = spread_positions(c.grid.positions / 2);
  PermutePropertyTallies& t = c.tallies;
  for (Index i : spread)
    for (Index j : spread) {
      if (causal && j > i) continue;
      const double base = c.sim(h, line, i, j);
      for (Index sh : spread) {
        if (sh == 0) continue;
        const double moved = c.sim(h, line, i + sh, j + sh);
        t.shift[0][causal].add(std::abs(moved - base) / (c.tol * std::max(base, moved)),
                               c.label(c.mode + " i=" + std::to_string(i) + " j=" + std::to_string(j) +
                                       " t=" + std::to_string(sh)));
      }
      for (Index far : {Index{0}, c.grid.longest / 2, c.grid.longest - 1 - std::max(i, j)}) {
        const double sim = c.sim(h, line, i + far, j + far);
        const std::string where = c.label(c.mode + " i=" + std::to_string(i + far) + " j=" + std::to_string(j + far));
        t.max_norm_ratio = std::max(t.max_norm_ratio, sim / norms);
        t.bound.add((sim / norms - 1) / bound_tol, where);
        t.min_sim = std::min(t.min_sim, sim);
        t.positive.add(sim > 0 ? 0.0 : 2.0, where);
      }
    }
}

// P1 (2-D) and P3: grid points (x, y) → (x2, y2) and shifts (tx, ty) that stay inside the grid.
void grid_points(const Context& c, const PermuteHead& h, int causal) {
  const Index W = c.grid.width, H = c.grid.height;
  const PermuteLayout layout = PermuteLayout::grid(W, H);
  const std::vector<Index> xs = spread_positions(W - 1), ys = spread_positions(H - 1);
  PermutePropertyTallies& t = c.tallies;
  for (Index x : xs)
    for (Index y : ys)
      for (Index x2 : xs)
        for (Index y2 : ys) {
          const Index i = y * W + x, j = y2 * W + x2;
          if (causal && j > i) continue;
          const double base = c.sim(h, layout, i, j);
          for (Index tx : {Index{0}, Index{1}, W / 3})
            for (Index ty : {Index{0}, Index{1}, H / 2}) {
              if ((tx == 0 && ty == 0) || std::max(x, x2) + tx >= W || std::max(y, y2) + ty >= H) continue;
              const Index shift = ty * W + tx;
              const double moved = c.sim(h, layout, i + shift, j + shift);
              t.shift[1][causal].add(std::abs(moved - base) / (c.tol * std::max(base, moved)),
                                     c.label(c.mode + " (" + std::to_string(x) + "," + std::to_string(y) + ")->(" +
                                             std::to_string(x2) + "," + std::to_string(y2) + ") shift (" +
                                             std::to_string(tx) + "," + std::to_string(ty) + ")"));
              t.positive.add(moved > 0 ? 0.0 : 2.0, c.label(c.mode + " 2-D"));
              t.min_sim = std::min(t.min_sim, moved);
            }
        }
}

// Offsets δ and δ + order agree; offsets below the order give pairwise different sims.
void period_points(const Context& c, const Permutation& pi, const std::string& name, CountedCheck& equal,
                   CountedCheck& distinct) {
  const PermuteHead h{pi, std::nullopt, 1.0};
  const PermuteLayout line = PermuteLayout::line();
  const std::uint64_t order = pi.order_u64();
  const Index shown = std::min<Index>(static_cast<Index>(std::min<std::uint64_t>(order, 1u << 30)), c.grid.offsets);
  std::vector<double> values;
  for (Index delta = 0; delta < shown; ++delta) {
    const double a = c.sim(h, line, kPeriodBase, kPeriodBase + delta);
    const double b = c.sim(h, line, kPeriodBase, kPeriodBase + delta + static_cast<Index>(order));
    equal.add(std::abs(a - b) / (c.tol * std::max(a, b)), c.label(name + " offset " + std::to_string(delta)));
    values.push_back(a);
  }
  std::sort(values.begin(), values.end());
  double gap = std::numeric_limits<double>::infinity();
  for (std::size_t v = 1; v < values.size(); ++v) gap = std::min(gap, (values[v] - values[v - 1]) / values[v]);
  // badness > 1 when two offsets below the order share a similarity (gap within rounding).
  distinct.add(values.size() < 2 ? 0.0 : c.tol / gap,
               c.label(name + ", " + std::to_string(values.size()) + " offsets"));
}

RowWrap row_wrap(const Context& c) {
  const Index W = c.grid.width, H = c.grid.height;
  const PermuteHead h1{c.draw.pi, std::nullopt, 1.0}, h2{c.draw.pi_x, c.draw.pi_y, 1.0};
  const PermuteLayout line = PermuteLayout::line(), grid = PermuteLayout::grid(W, H);
  RowWrap w;
  w.y = H / 2;
  w.x = W / 2;
  const Index wi = w.y * W + (W - 1), wj = (w.y + 1) * W, ui = w.y * W + w.x, uj = w.y * W + w.x + 1;
  w.wrap_2d = c.sim(h2, grid, wi, wj);
  w.unit_2d = c.sim(h2, grid, ui, uj);
  w.wrap_1d = c.sim(h1, line, wi, wj);
  w.unit_1d = c.sim(h1, line, ui, uj);
  w.gap_2d = std::abs(w.wrap_2d - w.unit_2d) / std::max(w.wrap_2d, w.unit_2d);
  w.gap_1d = std::abs(w.wrap_1d - w.unit_1d) / std::max(w.wrap_1d, w.unit_1d);
  c.tallies.wrap_2d.add(c.tol / w.gap_2d, c.label("2-D"));
  c.tallies.wrap_1d.add(w.gap_1d / c.tol, c.label("flattened 1-D"));
  return w;
}

void validate(const PermuteDraw& d, const PermutePropertyGrid& g) {
  const Index m = d.phi_q.size();
  if (d.phi_k.size() != m)
    throw std::invalid_argument("PF properties: phi_q has " + std::to_string(m) + " features but phi_k has " +
                                std::to_string(d.phi_k.size()));
  if (d.pi.size() != m)
    throw std::invalid_argument("PF properties: pi must permute the " + std::to_string(m) + " features");
  if (m % 2 != 0 || d.pi_x.size() != m / 2 || d.pi_y.size() != m / 2)
    throw std::invalid_argument("PF properties: pi_x and pi_y must permute half of an even feature count, m' = " +
                                std::to_string(m));
  if (g.positions < 2) throw std::invalid_argument("PF properties: positions must be at least 2");
  if (g.longest < g.positions) throw std::invalid_argument("PF properties: longest must be at least positions");
  if (g.width < 2 || g.height < 2) throw std::invalid_argument("PF properties: grid sides must be at least 2");
  if (g.offsets < 2) throw std::invalid_argument("PF properties: offsets must be at least 2");
  if (!(g.r > 0 && g.r <= 1)) throw std::invalid_argument("PF properties: r must lie in (0, 1]");
}

}  // namespace

std::vector<std::int64_t> spread_positions(std::int64_t top) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = 0; v <= top; v = v < 3 ? v + 1 : v * 3 - 1) out.push_back(v);
  if (top > 0 && out.back() != top) out.push_back(top);
  return out;
}

double permute_similarity_tolerance(int columns) { return 2 * dot_rounding_bound(columns + 1); }

RowWrap add_permute_properties(const PermuteDraw& draw, const PermutePropertyGrid& grid,
                               PermutePropertyTallies& tallies) {
  validate(draw, grid);
  const double tol = permute_similarity_tolerance(static_cast<int>(draw.phi_q.size()));
  for (int causal = 0; causal < 2; ++causal) {
    const Context c{draw, grid, tallies, tol, causal ? "causal" : "bidirectional"};
    const double r = causal ? grid.r : 1.0;
    line_points(c, PermuteHead{draw.pi, std::nullopt, r}, causal);
    grid_points(c, PermuteHead{draw.pi_x, draw.pi_y, r}, causal);
  }
  const Context c{draw, grid, tallies, tol, ""};
  const Permutation sixty = order_sixty_permutation(static_cast<int>(draw.phi_q.size()));
  period_points(c, sixty, "order-60 pi", tallies.period_equal[0], tallies.period_distinct[0]);
  period_points(c, draw.pi, "random pi (order " + std::to_string(draw.pi.order_u64()) + ")", tallies.period_equal[1],
                tallies.period_distinct[1]);
  return row_wrap(c);
}

}  // namespace favorlab
