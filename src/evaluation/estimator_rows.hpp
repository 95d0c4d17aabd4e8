#pragma once
// The rows of the estimator experiments (unbiased, mse, orthogonal, estimators, structured, ...): one per estimator,
// coupling, d, m and geometry, with what `favorlab compare` reads to pair and test them (their row schema), the
// fields of an importance-sampled run, and the label of a point in check details. In this layer so that the library
// pieces that write such rows (evaluation/theorem2_checks.hpp) and the drivers write the same ones.
#include <string>

#include "features/estimator.hpp"
#include "kernels/error_moments.hpp"
#include "kernels/geometry.hpp"
#include "mc/importance_coupled.hpp"
#include "mc/importance_mse.hpp"
#include "results/result.hpp"
#include "stats/claim_check.hpp"

namespace favorlab {

// Row fields every estimator row shares: estimator, coupling, d, m, x_norm, y_norm, cos_angle.
Json estimator_row(Family e, Coupling c, int d, int m, const Geometry& g);

// For compare (results/result_compare.hpp), what bounds the spread of one draw of a row's error e and squared error
// e² where its coupling has no closed-form variance, read from the row's own fields (estimator_row's and truth):
//   mean_draw_variance        a coupled row's exact MSE (features/family_theory.hpp exact_mse), where one exists and
//                             the row has none: the variance of one draw of an unbiased estimate;
//   mean_draw_variance_bound, mse_draw_variance_bound   the estimate is the mean of m per-row terms g_i, so
//                             Var(e) ≤ max Var(g_i) (Cauchy–Schwarz) and Var(e²) ≤ E[e⁴] ≤ max E[g_i⁴] (Jensen):
//                             orthogonal and simplex rows, each of the iid law, from the error moments of one feature;
//                             hadamard and givens rows of positive features (chi_d norms, directions of another law),
//                             from Λ e^{ωᵀz} ≤ Λ e^{r‖z‖} and the chi MGF (kernels/chi_moments.hpp);
//   mean_range, mse_range     where every estimate lies in a known interval [lo, hi]: trig features (|cos| ≤ 1, any
//                             rows) and positive features on rows of norm √d (smreg, any rows): hi − lo, and
//                             max(hi − truth, truth − lo)².
// And on hadamard and givens rows it nulls mean_skewness and mse_skewness: the iid value is no stand-in for rows of
// another law, so compare never z-tests them on it. Leaves a field it cannot fill alone (absent).
void add_compare_fields(Json& row, const FeatureParameters& params = {});

// What compare reads about one draw of a row's error e and squared error e², from its moments `em`: the a-priori
// skewness of each (iid values, which stand in for coupled rows with the same marginals), their closed-form variances
// where exact (iid rows; null otherwise), then add_compare_fields for the rest.
void add_draw_fields(Json& row, const ErrorMoments& em, bool iid, const FeatureParameters& params = {});

// params.row_schema of the estimator experiments (results/result_compare.hpp: what `favorlab compare` pairs and tests):
// key = the fields of estimator_row; statistics mean ± stderr (skewness mean_skewness; the spread of one draw:
// mean_draw_variance, mean_draw_variance_bound, mean_range, add_compare_fields) and, with_mse, mse ± mse_stderr
// (mse_skewness; mse_draw_variance, mse_draw_variance_bound, mse_range), both over `trials` (params.trials at look
// `look`, less `nonfinite`), and the importance-sampled is_mean ± is_stderr and is_mse ± is_mse_stderr
// (is_mean_skewness, is_mse_skewness) over `is_trials` (params.importance_trials); rounding relative to the truth
// (squared for MSEs); exact truth (and mse_theory); verdict status.
Json estimator_row_schema(bool with_mse);

// The is_* fields of a row from an importance-sampled run with coupled rows (mc/importance_coupled.hpp) and the
// verdict of its MSE: is_mean, is_stderr, is_mse, is_mse_stderr, is_trials, is_mse_skewness (the gate's figure),
// is_z, is_status, is_trials_needed, is_proposal_mean, is_proposal_sd.
void add_importance_fields(Json& row, const CoupledImportanceSampledMse& r, const PointVerdict& v);

// The is_* fields of a row from an importance-sampled MSE run on iid rows (mc/importance_mse.hpp,
// mc/importance_gerf.hpp) and the verdict of its MSE: those of add_importance_fields (is_mean_skewness the run's
// a-priori figure), the proposal's sd across x + y (perp_sd: 1 where it is not scaled), its relative variance and the
// plain one's.
void add_importance_fields(Json& row, const ImportanceSampledMse& r, const PointVerdict& v, double perp_sd);

// "x_norm=…, y_norm=…, cos=…" for check details.
std::string point_label(const Geometry& g);

}  // namespace favorlab
