#pragma once
// Theorem 2's checks at one dimension d: orthogonal random features lower the MSE of the positive estimator of SM
// (chi-norm rows) and of the regularized estimator of SMREG (√d-norm rows) by at least (1 − 1/m)·2/(d+2)·K², for
// m ≤ d (features/theorem2_point.hpp). From the figures of sweeps over the cells of d (mc/sweep_figures.hpp) each
// writes its rows and checks to a result:
//   theorem2_checks    iid and orthogonal rows: the exact MSEs against Monte Carlo, the claimed bound on the exact
//                      and on the Monte Carlo values, the corrected bound of the proof on the exact values;
//   structured_check   a structured coupling's MSE against the claimed bound (Monte Carlo only, no exact theory);
//   simplex_checks     simplex rows against R-ORF for positive features (Reid et al. 2023).
// The plain Monte Carlo verdicts of the exact-MSE claims are recorded point by point, for the importance-sampled lines
// to combine with (evaluation/theorem2_importance_runs.hpp).
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "features/feature_family.hpp"
#include "features/projection.hpp"
#include "io/join_list.hpp"
#include "kernels/geometry.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/sweep_figures.hpp"
#include "evaluation/estimator_rows.hpp"
#include "results/result.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

// The claims that both Monte Carlo methods judge, without their method suffix.
inline const std::string kLemma2Positive = "Lemma 2: MSE(positive) closed form";
inline const std::string kOrthogonalPositive =
    "Exact orthogonal MSE (positive, from the proof of Theorem 2) = Monte Carlo";
inline const std::string kSimplexPositive = "Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo";
inline const std::string kSimplexOrder = "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal)";
inline const std::string kIidSmreg = "Exact iid MSE (smreg, sphere MGF) = Monte Carlo";
inline const std::string kOrthogonalSmreg = "Exact orthogonal MSE (smreg, from the proof of Theorem 2) = Monte Carlo";

// The plain Monte Carlo verdicts of one d by (claim without its method, point label): what the importance-sampled
// checks combine with, point by point.
using PlainVerdicts = std::map<std::pair<std::string, std::string>, PointVerdict>;

// The cells of one d: its m values, the (estimator, m) specs every sweep runs and the geometries; figures and rows
// index them spec-major, [spec * points + point].
struct Theorem2Cells {
  int d = 0;
  std::vector<int> ms;
  std::vector<EstimatorSpec> specs;
  std::vector<Geometry> points;
  std::size_t at(std::size_t spec, std::size_t point) const { return spec * points.size() + point; }
  std::string where() const {
    return "d=" + std::to_string(d) + ", m in {" + join_list(ms) + "}, " + std::to_string(points.size()) +
           " geometries";
  }
  // Points of the specs of estimator e.
  std::size_t count(Family e) const {
    std::size_t n = 0;
    for (const auto& spec : specs) n += spec.estimator == e ? points.size() : 0;
    return n;
  }
};

// Theorem 2 for estimator e (positive or smreg) at one d, two rows per cell (iid, orthogonal): the exact MSEs against
// Monte Carlo, the claimed bound on the exact and on the Monte Carlo values, the corrected bound on the exact values.
// `iid` and `ort` hold the figures of cells.specs; alpha is each check's family-wise false-failure rate (Bonferroni
// over its points). Records the exact-MSE verdicts in `plain`.
void theorem2_checks(Result& result, const Theorem2Cells& cells, Family e, const std::vector<CellFigures>& iid,
                     const std::vector<CellFigures>& ort, PlainVerdicts& plain, double alpha);

// Theorem 2's claimed bound with a structured coupling (Monte Carlo only, no exact theory): its MSE against the
// iid figures of the same cells; a row per cell of estimator e.
void structured_check(Result& result, const Theorem2Cells& cells, Family e, Coupling coupling,
                      const std::vector<CellFigures>& figures, const std::vector<CellFigures>& iid, double alpha);

// Simplex against R-ORF for positive features: the exact simplex MSE (kernels/simplex_moments.hpp) = Monte Carlo;
// simplex ≤ orthogonal on the exact values; and on the Monte Carlo values (one-sided, independent streams).
// `simplex` holds the figures of the positive specs at cells.ms, `ort` the orthogonal figures of cells.specs.
// Records both Monte Carlo verdicts in `plain`.
void simplex_checks(Result& result, const Theorem2Cells& cells, const std::vector<CellFigures>& simplex,
                    const std::vector<CellFigures>& ort, PlainVerdicts& plain, double alpha);

}  // namespace favorlab
