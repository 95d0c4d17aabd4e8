#include "evaluation/theorem1_points.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "evaluation/estimator_rows.hpp"
#include "io/format_number.hpp"
#include "kernels/smreg_ratio.hpp"
#include "kernels/theorem1_bound.hpp"

namespace favorlab {

namespace {

// Theorem 1's check at C: lim d(1 − inf ratio) = (2 ln C)² against the claimed 2. seq: the computed d(1 − inf ratio)
// per d; first_above: the first d where it exceeds 2 (0: none); last_gap: its value at the largest d.
Check bound_check(double c, double z, double limit, double tolerance, const std::string& seq, int first_above,
                  double last_gap) {
  Check check;
  check.claim = "Theorem 1: inf SMREG/SM >= 1 - 2/d + o(1/d) when ||A||_inf <= C";
  check.where = "C=" + format_number(c) + " (entries SM(x,x), SM(y,y), SM(x,y) <= C, so |z| <= 2 sqrt(ln C) = " +
                format_number(z) + "); infimum at that |z|";
  // lim d(1 − inf ratio) = (2 ln C)² exactly, approached from below; the claim is that limit ≤ 2. Exact arithmetic,
  // no sampling: decided within the rounding tolerance.
  const bool refuted = limit > 2 * (1 + tolerance);
  set_point_counts(check, refuted ? 0 : 1, refuted ? 1 : 0, 0);
  check.power = std::max(0.0, (2 * (1 + tolerance) - limit) / 2);  // the claimed 2, lowered by more, fails
  check.statistic = limit - 2;
  std::ostringstream s;
  s << "d(1 - inf ratio): " << seq << "; limit d -> inf is (2 ln C)^2 = " << format_number(limit)
    << " against the claimed 2 (statistic = limit - 2); d(1 - inf ratio) <= (2 ln C)^2 at every d";
  if (limit > 2)
    s << "; the claim fails for C > exp(1/sqrt 2) = " << format_number(theorem1_critical_c()) << ": "
      << (first_above ? "the computed sequence exceeds 2 from d=" + std::to_string(first_above)
                      : "the computed sequence has not yet passed 2 (largest d: " + format_number(last_gap) + ")");
  else
    s << "; stays below 2 at every d";
  check.detail = s.str();
  return check;
}

Json bound_row(double c, int d, bool extra, double z, double log_exact, double log_series, double gap, double limit) {
  return Json{{"kind", "bound"},
              {"C", c},
              {"d", d},
              {"asymptote_only", extra},
              {"w", theorem1_max_w(c)},
              {"z_norm", z},
              {"x_norm", z / 2},
              {"y_norm", z / 2},
              {"cos_angle", 1.0},
              {"inf_ratio_exact", std::isfinite(log_exact) ? Json(std::exp(log_exact)) : Json(nullptr)},
              {"inf_ratio_series", std::exp(log_series)},
              {"inf_ratio_gap", gap},
              {"d_gap", d * gap},
              {"d_gap_exact", std::isfinite(log_exact) ? Json(-d * std::expm1(log_exact)) : Json(nullptr)},
              {"d_gap_limit", limit},
              {"claimed_constant", 2.0},
              {"bound_claimed", 1 - 2.0 / d}};
}

}  // namespace

std::string smreg_point_label(int d, double z_norm) {
  return "d=" + std::to_string(d) + ", |z|=" + format_number(z_norm);
}

SmregRatio smreg_ratio(double z_norm, int d) {
  return {log_smreg_ratio_exact(z_norm, d), log_smreg_ratio_series(z_norm, d), smreg_ratio_gap(z_norm, d)};
}

Json smreg_ratio_row(int d, int m, double z, const Geometry& g, const SmregRatio& ratio, const PointEvidence& ev,
                     const PointVerdict& v, const SweepCell& cell, const ErrorMoments& em) {
  const double sm = std::exp(g.dot());
  Json row{{"kind", "ratio"}};
  const Json common = estimator_row(Family::smreg, Coupling::iid, d, m, g);  // named: items() does not keep it alive
  for (const auto& [key, value] : common.items()) row[key] = value;
  row["z_norm"] = z;
  row["w"] = z * z / 2;
  row["ratio_exact"] = std::isfinite(ratio.log_exact) ? Json(std::exp(ratio.log_exact)) : Json(nullptr);
  row["ratio_series"] = std::exp(ratio.log_series);
  row["log_ratio_exact"] = number_or_null(ratio.log_exact);
  row["log_ratio_series"] = ratio.log_series;
  row["ratio_gap"] = ratio.gap;
  row["truth"] = ev.theory;
  row["mean"] = ev.empirical;
  row["stderr"] = ev.standard_error;
  row["mc_ratio"] = ev.empirical / sm;
  row["mc_stderr"] = ev.standard_error / sm;
  row["z"] = v.z;
  row["trials"] = cell.error.count();
  row["nonfinite"] = cell.nonfinite;
  row["error_skewness"] = em.error_skewness;
  // The closed-form variance of one draw of the estimate (iid rows: exact) and of the estimate over SM, for compare's
  // Chebyshev bound where the skewness gates the z test.
  row["mean_draw_variance"] = number_or_null(em.variance);
  row["mc_ratio_draw_variance"] = number_or_null(em.variance / (sm * sm));
  row["status"] = v.status;
  row["trials_needed"] = trials_json(v.trials_needed);
  return row;
}

void LargestSeen::see(double v, const std::string& at) {
  if (v > value || where.empty()) {
    value = v;
    where = at;
  }
}

void SmregRatioTally::compare(double log_exact, double log_series, double gap, const std::string& at, bool required) {
  ++compared;
  strictly_below += gap > 0;
  if (!std::isfinite(log_exact)) {
    (required ? unavailable : unavailable_asymptote) += 1;
    if (required) unavailable_where = at;
    largest_log_ratio.see(log_series, at);
    return;
  }
  discrepancy.see(std::abs(log_exact - log_series), at);
  largest_log_ratio.see(std::max(log_exact, log_series), at);
}

Check smreg_series_check(const SmregRatioTally& t, double tolerance) {
  Check c;
  c.claim = "eq. 30: the Poisson series of SMREG/SM equals the Bessel closed form";
  c.where =
      std::to_string(t.compared) + " points (ratio and bound rows); relative tolerance " + format_number(tolerance);
  const bool differs = t.discrepancy.value > tolerance;
  set_point_counts(c, differs ? 0 : static_cast<std::int64_t>(t.compared), differs ? 1 : 0,
                   static_cast<std::int64_t>(t.unavailable));
  c.power = tolerance + t.discrepancy.value;  // a relative departure beyond this, either way, is caught
  c.statistic = t.discrepancy.value;
  c.detail = "largest |log ratio_exact - log ratio_series| = " + format_number(t.discrepancy.value) + " at " +
             t.discrepancy.where +
             " (statistic); tolerance from floating-point error analysis, see experiments/smreg.cpp";
  if (t.unavailable > 0)
    c.detail += "; the Bessel form underflows long double at " + std::to_string(t.unavailable) + " grid points (e.g. " +
                t.unavailable_where + "), not compared";
  if (t.unavailable_asymptote > 0)
    c.detail += "; " + std::to_string(t.unavailable_asymptote) +
                " --asymptote-d points lie beyond the Bessel form's long double range (series and gap only there)";
  return c;
}

Check smreg_upper_check(const SmregRatioTally& t, double tolerance) {
  Check c;
  c.claim = "Theorem 1: SMREG <= SM";
  c.where = std::to_string(t.compared) + " points (ratio and bound rows), Bessel form and series";
  const bool above = t.largest_log_ratio.value > tolerance;
  set_point_counts(c, above ? 0 : static_cast<std::int64_t>(t.compared), above ? 1 : 0, 0);
  c.power = std::max(0.0, tolerance - t.largest_log_ratio.value);  // SM lowered by more (relatively) fails
  c.statistic = t.largest_log_ratio.value;
  c.detail = "largest log(SMREG/SM) = " + format_number(t.largest_log_ratio.value) + " at " +
             t.largest_log_ratio.where + " (statistic; must be <= " + format_number(tolerance) +
             "); the positive-term series of 1 - SMREG/SM is > 0 at " + std::to_string(t.strictly_below) + " of " +
             std::to_string(t.compared) + " points (0 only at |z| = 0)";
  return c;
}

Theorem1BoundChecks theorem1_bound_rows(double c, const std::vector<int>& grid_dims,
                                        const std::vector<int>& asymptote_dims, double tolerance,
                                        SmregRatioTally& tally, Json& rows) {
  const double z = theorem1_max_z_norm(c), limit = theorem1_gap_limit(c);
  std::vector<int> dims = grid_dims;
  dims.insert(dims.end(), asymptote_dims.begin(), asymptote_dims.end());
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  std::ostringstream seq;
  int first_above = 0;
  double last_gap = 0;
  // The corrected statement, for every d: d (1 − inf ratio) ≤ (2 ln C)²
  // (docs/theory.md#reading-the-premise-of-theorem-1).
  std::int64_t corrected_held = 0, corrected_violated = 0;
  double tightest = 0;  // the largest d (1 − inf ratio) / (2 ln C)²: how close the corrected constant is to sharp
  int tightest_d = 0;
  for (int d : dims) {
    const auto [log_exact, log_series, gap] = smreg_ratio(z, d);
    const bool extra = std::find(grid_dims.begin(), grid_dims.end(), d) == grid_dims.end();
    tally.compare(log_exact, log_series, gap, "bound C=" + format_number(c) + ", " + smreg_point_label(d, z), !extra);
    const double d_gap = d * gap;
    if (d_gap > 2 && first_above == 0) first_above = d;
    (d_gap <= limit * (1 + tolerance) ? corrected_held : corrected_violated) += 1;
    if (limit > 0 && d_gap / limit > tightest) {
      tightest = d_gap / limit;
      tightest_d = d;
    }
    last_gap = d_gap;
    seq << (seq.tellp() > 0 ? ", " : "") << "d=" << d << ": " << format_number(d_gap);
    rows.push_back(bound_row(c, d, extra, z, log_exact, log_series, gap, limit));
  }
  // Exact arithmetic again: held where the computed gap stays below the constant within the rounding tolerance.
  // A constant smaller than (2 ln C)² by more than 1 − tightest would fail at the tightest d: that is the power.
  Check corrected = exact_check(
      "Theorem 1 corrected: inf SMREG/SM >= 1 - (2 ln C)^2/d for every d when ||A||_inf <= C",
      "every d of " + std::to_string(dims.size()) + " from " + std::to_string(dims.front()) + " to " +
          std::to_string(dims.back()) + ", C=" + format_number(c) + ", |z| = 2 sqrt(ln C) = " + format_number(z),
      corrected_held, corrected_violated, tightest - 1,
      "d(1 - inf ratio) <= (2 ln C)^2 = " + format_number(limit) + " at " + std::to_string(corrected_held) + " of " +
          std::to_string(dims.size()) + " d (statistic: largest d(1 - inf ratio)/(2 ln C)^2 - 1 = " +
          format_number(tightest - 1) + ", at d=" + std::to_string(tightest_d) +
          "); from ln f(k, d) >= -k(k-1)/d, so 1 - SMREG/SM <= E[N(N-1)]/d = w^2/d with w = 2 ln C",
      std::max(0.0, 1 - tightest) + tolerance);
  return {bound_check(c, z, limit, tolerance, seq.str(), first_above, last_gap), std::move(corrected)};
}

}  // namespace favorlab
