#include "evaluation/structured_points.hpp"

#include <algorithm>
#include <cmath>

#include "evaluation/estimator_rows.hpp"
#include "io/join_list.hpp"
#include "stats/absolute_comparison.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

bool is_structured(Coupling c) { return c == Coupling::hadamard || c == Coupling::givens; }

}  // namespace

ClaimCheck structured_bias_claim(Coupling c, Family e, const std::vector<int>& dims, std::size_t geometries,
                                 double alpha) {
  const bool structured = is_structured(c);
  return ClaimCheck(std::string(structured ? "Structured features (B.2)" : "Lemma 1 (control)") + ": E[" +
                        std::string(estimator_name(e)) + " estimate] = SM" +
                        (structured ? "; a violation = bias detected" : ""),
                    std::string(coupling_name(c)) + " projections with chi row norms, m=d, d in {" + join_list(dims) +
                        "}, " + std::to_string(geometries) + " geometries",
                    alpha, dims.size() * geometries);
}

PointEvidence structured_bias_evidence(const CellFigures& f, const ErrorMoments& em, int d, const Geometry& g,
                                       int look) {
  PointEvidence ev{f.mean,   f.truth,     f.stderr_, kRoundingAllowance * f.truth, em.error_skewness,
                   f.trials, f.nonfinite, "d=" + std::to_string(d) + ", " + point_label(g)};
  ev.look = look;
  return ev;
}

Check structured_shrink_check(Coupling c, Family e, int d_hi, int d_lo, const std::vector<Geometry>& geometries,
                              const std::vector<CellFigures>& at_hi, const std::vector<CellFigures>& at_lo,
                              const std::vector<ErrorMoments>& em_hi, const std::vector<ErrorMoments>& em_lo,
                              double alpha) {
  const std::size_t np = geometries.size();
  AbsoluteAtMostCheck shrink("Structured features (B.2): |relative bias of " + std::string(estimator_name(e)) +
                                 "| at d=" + std::to_string(d_hi) + " <= at d=" + std::to_string(d_lo),
                             std::string(coupling_name(c)) + " projections, " + std::to_string(np) +
                                 " geometries, independent streams",
                             alpha, np);
  for (std::size_t p = 0; p < np; ++p) {
    const CellFigures &a = at_hi[p], &b = at_lo[p];
    const double skew = std::max(std::abs(em_hi[p].error_skewness), std::abs(em_lo[p].error_skewness));
    shrink.judge(a.relative_bias(), a.relative_bias_stderr(), b.relative_bias(), b.relative_bias_stderr(), skew,
                 std::min(a.trials, b.trials), a.nonfinite + b.nonfinite, point_label(geometries[p]));
  }
  return shrink.result();
}

Json structured_point_row(Family e, Coupling c, int d, const Geometry& g, const CellFigures& f, const PointVerdict& v,
                          const MseRatio& ratio, const ErrorMoments& em) {
  Json row = estimator_row(e, c, d, d, g);
  row["kind"] = "point";
  row["method"] = nullptr;  // a speed row's key field
  row["truth"] = f.truth;
  row["mean"] = f.mean;
  row["stderr"] = f.stderr_;
  row["z"] = v.z;
  row["status"] = v.status;
  row["trials_needed"] = trials_json(v.trials_needed);
  row["relative_bias"] = f.relative_bias();
  row["relative_bias_stderr"] = f.relative_bias_stderr();
  row["mse"] = f.mse;
  row["mse_stderr"] = f.mse_stderr;
  row["mse_ratio_to_orthogonal"] = ratio.value;
  row["mse_ratio_stderr"] = ratio.stderr_;
  row["trials"] = f.trials;
  row["nonfinite"] = f.nonfinite;
  // For compare: the a-priori skewness of one error and squared error (iid values stand in for coupled rows, as in
  // the check) and the closed-form variances of one draw, exact for iid rows only.
  const bool iid = c == Coupling::iid;
  row["mean_skewness"] = number_or_null(em.error_skewness);
  row["mse_skewness"] = number_or_null(em.squared_error_skewness);
  row["mean_draw_variance"] = iid ? number_or_null(em.variance) : Json(nullptr);
  row["mse_draw_variance"] = iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
  add_compare_fields(row);  // spread bounds and ranges for compare; hadamard, givens: no iid skewness stand-in
  return row;
}

// Mean and MSE are statistics, scaled to the spread of one draw the row declares (add_compare_fields) and counted in
// params.trials at the row's look; the relative bias (mean/truth − 1) and the ratio to the orthogonal MSE are not
// declared, being functions of declared figures and exact fields.
Json structured_row_schema() {
  auto statistic = [](const char* value, const char* stderr_field, const char* skewness, const char* spread,
                      int power) {
    return Json{{"value", value},
                {"stderr", stderr_field},
                {"count", "trials"},
                {"count_param", "trials"},
                {"count_look", "look"},
                {"count_dropped", "nonfinite"},
                {"skewness", skewness},
                {"variance", std::string(spread) + "_draw_variance"},
                {"variance_bound", std::string(spread) + "_draw_variance_bound"},
                {"range", std::string(spread) + "_range"},
                {"rounding_scale", "truth"},
                {"rounding_power", power}};
  };
  return Json{{"key", Json::array({"kind", "method", "estimator", "coupling", "d", "x_norm", "y_norm", "cos_angle"})},
              {"statistics", Json::array({statistic("mean", "stderr", "mean_skewness", "mean", 1),
                                          statistic("mse", "mse_stderr", "mse_skewness", "mse", 2)})},
              {"exact", Json::array({"m", "truth"})},
              {"verdict", "status"}};
}

}  // namespace favorlab
