#pragma once
// The points of `favorlab structured` (structured orthogonal features, Performers section B.2): per coupling and
// estimator, check 1, "E[estimate] = SM" over every d × geometry (Lemma 1 for the iid and orthogonal controls; for
// Hadamard and Givens rows a violation is the finding that their bias is detectable), and check 2, "the bias shrinks
// with d": per geometry |relative bias| at the largest d ≤ at the smallest (one-sided; SE √(SE₁² + SE₂²), valid since
// |·| is 1-Lipschitz and the two d use independent streams). Heavy-tailed points are inconclusive: the a-priori
// skewness of the iid error stands in for the structured couplings, whose rows have the same chi norms.
#include <string>
#include <vector>

#include "features/estimator.hpp"
#include "kernels/error_moments.hpp"
#include "kernels/geometry.hpp"
#include "mc/sweep_figures.hpp"
#include "results/result.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

// Check 1's judge for coupling c and estimator e over `dims` × `geometries` points.
ClaimCheck structured_bias_claim(Coupling c, Family e, const std::vector<int>& dims, std::size_t geometries,
                                 double alpha);

// A cell's evidence for check 1, judged at `look` (−1: the whole α).
PointEvidence structured_bias_evidence(const CellFigures& f, const ErrorMoments& em, int d, const Geometry& g,
                                       int look);

// Check 2 for coupling c and estimator e: at[p], at_lo[p] are geometry p's cells at the largest and the smallest d,
// em_hi[p], em_lo[p] their error moments.
Check structured_shrink_check(Coupling c, Family e, int d_hi, int d_lo, const std::vector<Geometry>& geometries,
                              const std::vector<CellFigures>& at_hi, const std::vector<CellFigures>& at_lo,
                              const std::vector<ErrorMoments>& em_hi, const std::vector<ErrorMoments>& em_lo,
                              double alpha);

// A point row ("kind": "point"): the cell's figures, the verdict of its check 1, its MSE against the orthogonal
// cell's, and what compare reads about one draw.
Json structured_point_row(Family e, Coupling c, int d, const Geometry& g, const CellFigures& f, const PointVerdict& v,
                          const MseRatio& ratio, const ErrorMoments& em);

// params.row_schema: point rows pair by estimator × coupling × d × geometry, speed rows by method × d (timings: not
// compared).
Json structured_row_schema();

}  // namespace favorlab
