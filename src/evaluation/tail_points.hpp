#pragma once
// The points of `favorlab tails` (the regularized estimator's tail bounds against the exceedances they bound) and
// how each is decided: which evidence decides a point, its verdict by that method, and the fields of its row.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "features/projection.hpp"
#include "kernels/geometry.hpp"
#include "kernels/regularized_tail_bound.hpp"
#include "mc/tilted_tail.hpp"
#include "results/result.hpp"
#include "stats/tail_bound_check.hpp"

namespace favorlab {

// One (m, geometry, δ) of one d: the bound, and where its row goes (mi: index of m; p: of the geometry; k: of δ;
// a: the threshold the exceedances are counted above).
struct TailPoint {
  int m;
  std::size_t mi, p, k;
  double delta;
  TailBound bound;
  double a;
};

// Which evidence decides each point (docs/theory.md#deciding-a-tail-point). A threshold at or above the coupling's
// largest estimate: exact, P = 0. A count of N draws confirms a bound only above its zero-exceedance upper end
// u0 = 1 - (alpha/2)^(1/N), and then only when the truth lies well below the bound: bounds under kTiltedReach * u0
// go to the tilted estimate wherever the rows are iid (iid rows, or one orthogonal row, which has the same law).
// Everything else is counted; where a tilted estimate was wanted but cannot be had, `why_counted` says why.
// tilted_trials: the tilted estimate's draws per point (0: every point is counted).
struct TailMethodChoice {
  TailMethod method = TailMethod::count;
  std::string why_counted;
};
std::vector<TailMethodChoice> choose_tail_methods(const std::vector<TailPoint>& tail_points,
                                                const std::vector<Geometry>& points, int d, Coupling coupling,
                                                std::int64_t trials, double point_alpha, std::int64_t tilted_trials);

// The point's verdict by its method; `tilted` is its tilted estimate (used only for TailMethod::tilted).
TailPointVerdict judge_tail_point(TailBoundCheck& check, TailMethod method, const TailPointEvidence& ev,
                                  const TiltedTailEstimate* tilted);

// A row with the point, its bounds and maxima, and the count (every point has one, whichever method decides it).
Json tail_count_row(Coupling coupling, int d, const TailPoint& tp, const Geometry& g, const TailPointEvidence& ev,
                    double point_alpha);

// The tilted estimate's fields of a row (tilted_p, its standard error, interval, draws, hits and range).
void add_tilted_tail_fields(Json& row, const TiltedTailEstimate& e, const TailPointVerdict& v);

}  // namespace favorlab
