#include "mc/sweep_figures.hpp"

#include <algorithm>
#include <utility>

namespace favorlab {

CellFigures cell_figures(const SweepCell& cell, double truth) {
  return {truth, truth + cell.error.mean(), cell.error.standard_error(), cell.error.mean_square(),
          cell.error.mean_square_stderr(), cell.error.count(), cell.nonfinite};
}

std::vector<CellFigures> sweep_figures(const SweepResult& sweep) {
  std::vector<CellFigures> out;
  out.reserve(sweep.cells.size());
  for (std::size_t i = 0; i < sweep.cells.size(); ++i) out.push_back(cell_figures(sweep.cells[i], sweep.truth[i]));
  return out;
}

MseRatio independent_mse_ratio(const CellFigures& a, const CellFigures& b) {
  const double ratio = a.mse / b.mse;
  return {ratio, ratio * std::hypot(a.mse_stderr / a.mse, b.mse_stderr / b.mse)};
}

PointEvidence mse_difference_evidence(const CellFigures& a, const CellFigures& b, double shift, double allowance,
                                      double skewness, double scale, std::string label) {
  PointEvidence ev{a.mse - b.mse + shift, 0, std::hypot(a.mse_stderr, b.mse_stderr), allowance, skewness,
                   std::min(a.trials, b.trials), a.nonfinite + b.nonfinite, std::move(label)};
  ev.scale = scale;
  return ev;
}

}  // namespace favorlab
