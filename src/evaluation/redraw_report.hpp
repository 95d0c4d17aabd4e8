#pragma once
// What `favorlab redraw` reports about one feature map's redraw sweep (evaluation/redraw_sweep.hpp): an "average" row
// per k, a "draws" row, and the checks (docs/theory.md#redrawing-averages-of-k-draws; z intervals through the data's
// own SEs, Bonferroni over the k ≥ 2, equivalence within 2 %, each mean gated by a jackknife bound on its skewness):
//   1. "averaging k redraws cuts the MSE like 1/k": k·MSE_k = MSE_1 (fails by (k − 1)B where the bias matters);
//   2. "MSE_k = B + V/k", with B, V from the single draws (a consistency check of the split);
//      both judged on their differences estimated from the groups' cross products, far lighter-tailed than the MSEs;
//   3. "no bias remains (B = 0 within 2 % of one draw's MSE)": violated where B̂ is significantly positive (Student's t
//      for the jackknife SE) — the renormalized output is a ratio of unbiased estimates, biased at O(1/m);
//   and the fraction of unlucky draws (MSE > unlucky_factor × the median), a measurement.
// For signed features a draw with a negative normalizer proves the output has no mean: checks 1–3 are then out of
// reach at any number of draws, and say why (docs/theory.md#signed-features-the-renormalized-output-has-no-mean).
#include <Eigen/Dense>

#include <string>
#include <vector>

#include "evaluation/redraw_sweep.hpp"
#include "features/feature_family.hpp"
#include "results/result.hpp"

namespace favorlab {

// The run the sweep belongs to, as its rows and checks name it.
struct RedrawSetting {
  std::string coupling;
  bool causal = false;
  int m = 0, L = 0, d = 0;
  RedrawPlan plan;  // the sweep's: its ks (containing 1) and jackknife blocks
  double unlucky_factor = 2, alpha = 1e-3;
};

// The rows and checks of feature map `fname`.
void report_redraw(const RedrawSetting& s, const std::string& fname, const RedrawSweep& sweep, Result& result);

// For compare: the gate figure, range and whether the MSE has a mean, on the rows of feature map f already in
// `result`; v: the input's values.
void add_redraw_compare_figures(Result& result, Family f, const Eigen::MatrixXd& v);

// params.row_schema of `favorlab redraw`.
Json redraw_row_schema();

}  // namespace favorlab
