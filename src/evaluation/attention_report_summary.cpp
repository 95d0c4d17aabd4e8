#include "evaluation/attention_report_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "evaluation/report_slopes.hpp"
#include "io/format_number.hpp"
#include "stats/exact_inequality.hpp"
#include "stats/paired_check.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

namespace {

// An error that overflowed is a large one, not a missing one: +∞ is judged as the largest double. NaN stays NaN
// (the point is then inconclusive).
double judged_value(double x) { return x == INFINITY ? std::numeric_limits<double>::max() : x; }


Json numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

// Quantile p of the values that are not NaN (±∞ included: an overflowed error is a large one); NaN when none.
double finite_quantile(const std::vector<double>& values, double p) {
  std::vector<double> f;
  for (double v : values)
    if (!std::isnan(v)) f.push_back(v);
  if (f.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(f.begin(), f.end());
  return sample_quantile(f, p);
}

// Mean of the values that are not NaN; NaN when none.
double finite_mean(const std::vector<double>& values) {
  double sum = 0;
  std::size_t n = 0;
  for (double v : values)
    if (!std::isnan(v)) sum += v, ++n;
  return n ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

std::string cell(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string short_verdict(const Json& status) {
  if (status.is_null()) return "-";
  const std::string s = status.get<std::string>();
  return s == "holds" ? "ok" : s == "violated" ? "VIOL" : s == "inconclusive" ? "?" : s;
}

// Violated if any is, holds if all (at least one) hold, else inconclusive; null when nothing was judged.
Json combine(const std::vector<Json>& statuses) {
  std::int64_t held = 0, violated = 0, open = 0;
  for (const auto& s : statuses) {
    if (s.is_null()) continue;
    const std::string v = s.get<std::string>();
    ++(v == "holds" ? held : v == "violated" ? violated : open);
  }
  if (held + violated + open == 0) return nullptr;
  return verdict_name(verdict_from_counts(held, violated, open));
}

std::string cell_text(const std::string& text) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, " %8s", text.c_str());
  return buffer;
}
std::string json_cell(const Json& v) { return v.is_null() ? "-" : cell(v.get<double>()); }

// Check 4's tally over an arm's draws: an exact count of the draws at or above the Eckart–Young floor.
struct EckartYoungTally {
  std::int64_t held = 0, violated = 0;
  double worst = INFINITY;
  std::string worst_label;
};

// The matrix-error fields of a row; null (and a NaN floor) where the point's matrices were not computed.
struct MatrixFields {
  Json matrix_rel = nullptr, floor_rel = nullptr, ratio = nullptr, floor_status = nullptr;
  Json matrix_per_draw = nullptr;
  double floor = NAN;
};

// The points of arm ai's floor check (3), counted before any is judged: its α is split over them (Bonferroni).
std::size_t count_floor_points(const std::vector<ReportedHead>& heads, std::size_t ai) {
  std::size_t floor_points = 0;
  for (std::size_t hi = 0; hi < heads.size(); ++hi) {
    const HeadReport& r = heads[hi].report;
    for (const auto& p : r.points[ai])
      if (!p.matrix_error.empty() && p.columns < std::min(r.Lq, r.L)) ++floor_points;
  }
  return floor_points;
}

// Beats uniform: both errors floored at rounding, so an exact FAVOR ties an exact uniform attention.
PairedVerdict judge_beats_uniform(PairedClaimCheck& uniform_check, const ArmPoint& p, const ModeBaselines& b,
                                  double rounding, const std::string& label) {
  std::vector<double> favor_mse;
  for (double e : p.mse) favor_mse.push_back(judged_value(std::max(e, rounding)));
  return uniform_check.judge(
      favor_mse, std::vector<double>(p.mse.size(), judged_value(std::max(b.uniform_mse, rounding))), label);
}

// A row's first fields: where the point is, its output errors and the head's exact baselines in its mode.
Json point_row(const ReportedHead& head, const ReportArm& arm, const ReportSettings& s, std::size_t mi,
               const ArmPoint& p, const ModeBaselines& b) {
  const HeadReport& r = head.report;
  return Json{{"layer", head.layer},
              {"layer_index", head.layer_index},
              {"head", head.head},
              {"features", std::string(feature_kind_name(arm.features))},
              {"estimator", std::string(feature_kind_name(arm.features))},
              {"coupling", std::string(coupling_name(arm.coupling))},
              {"mode", arm.causal ? "causal" : "bidirectional"},
              {"causal", arm.causal},
              {"m", s.ms[mi]},
              {"columns", p.columns},
              {"L", r.L},
              {"d", r.d},
              {"dv", r.dv},
              {"draws", s.draws},
              {"rel_error_median", number_or_null(finite_quantile(p.relative, 0.5))},
              {"rel_error_mean", number_or_null(finite_mean(p.relative))},
              {"rel_error_q10", number_or_null(finite_quantile(p.relative, 0.1))},
              {"rel_error_q90", number_or_null(finite_quantile(p.relative, 0.9))},
              {"rel_error_per_draw", numbers(p.relative)},
              {"mse_mean", number_or_null(finite_mean(p.mse))},
              {"mse_per_draw", numbers(p.mse)},
              {"uniform_mse", b.uniform_mse},
              {"uniform_rel_error", number_or_null(b.uniform_relative)},
              {"exact_f32_mse", b.f32_mse},
              {"exact_f32_rel_error", number_or_null(b.f32_relative)},
              {"exact_bf16_mse", b.bf16_mse},
              {"exact_bf16_rel_error", number_or_null(b.bf16_relative)}};
}

// Matrix errors against the rank-r floor: each draw tallied for check 4, the point judged for check 3 where the
// rank bound is below min(Lq, L).
MatrixFields judge_matrix_errors(const HeadReport& r, const ArmPoint& p, double k, const std::string& label,
                                 PairedClaimCheck& floor_check, EckartYoungTally& ey) {
  MatrixFields f;
  if (p.matrix_error.empty()) return f;
  f.floor = rank_floor_of(r, p.columns);
  const double floor = f.floor;
  const double norm = r.uniform_matrix_error;
  std::vector<double> rel;
  for (double e : p.matrix_error) rel.push_back(norm > 0 ? e / norm : NAN);
  f.matrix_rel = number_or_null(finite_quantile(rel, 0.5));
  f.matrix_per_draw = numbers(rel);
  f.floor_rel = norm > 0 ? Json(floor / norm) : Json(nullptr);
  const double rounding_floor = kRoundingAllowance * r.matrix_norm;
  // Eckart–Young: no rank-r matrix is closer to A than the floor (within the rounding of the SVD).
  for (std::size_t draw = 0; draw < p.matrix_error.size(); ++draw) {
    const double margin = p.matrix_error[draw] - floor;
    ++(margin >= -100 * rounding_floor ? ey.held : ey.violated);
    if (margin < ey.worst) ey.worst = margin, ey.worst_label = label + ", draw " + std::to_string(draw);
  }
  if (p.columns < std::min(r.Lq, r.L)) {
    std::vector<double> errors, ratios;
    for (double e : p.matrix_error) {
      errors.push_back(judged_value(std::max(e, rounding_floor)));
      ratios.push_back(std::log(std::max(e, rounding_floor) / std::max(floor, rounding_floor)));
    }
    if (floor > rounding_floor) f.ratio = number_or_null(std::exp(finite_mean(ratios)));
    const PairedVerdict fv =
        floor_check.judge(errors, std::vector<double>(errors.size(), k * std::max(floor, rounding_floor)), label);
    f.floor_status = verdict_name(fv.status);
  }
  return f;
}

// The head's input diagnostics, and Lemma 2's relative MSE for them at m features, appended to a row.
void add_diagnostics(Json& row, const HeadDiagnostics& g, int m) {
  row["q_norm_q10"] = g.q_norm_q10;
  row["q_norm_q50"] = g.q_norm_q50;
  row["q_norm_q90"] = g.q_norm_q90;
  row["k_norm_q10"] = g.k_norm_q10;
  row["k_norm_q50"] = g.k_norm_q50;
  row["k_norm_q90"] = g.k_norm_q90;
  row["row_entropy_mean"] = g.row_entropy_mean;
  row["row_entropy_min"] = g.row_entropy_min;
  row["max_logit_range"] = g.max_logit_range;
  row["median_pair_z_sq"] = g.median_pair_z_sq;
  row["lemma2_rel_mse"] = number_or_null(lemma2_positive_relative_mse(g.median_pair_z_sq, m));
}

// The head's slope verdict (check 1) appended to a row: null where it was not judged, its look where it had looks.
void add_slope(Json& row, const HeadSlope& hs) {
  const Json slope_status = hs.judged ? Json(verdict_name(hs.verdict.status)) : Json(nullptr);
  const double slope_median = hs.judged ? hs.median : NAN, slope_low = hs.judged ? hs.low : NAN,
               slope_high = hs.judged ? hs.high : NAN;
  row["slope"] = number_or_null(slope_median);
  row["slope_low"] = number_or_null(slope_low);
  row["slope_high"] = number_or_null(slope_high);
  row["slope_status"] = slope_status;
  if (hs.judged && hs.look >= 0) {
    row["slope_draws"] = hs.draws;
    row["slope_look"] = hs.look;
  }
}

// The arm's checks in their order — slope, beats uniform, then the floor and Eckart–Young checks where any point was
// judged — each with what its A and B are.
void append_arm_checks(const Check& slope_check, const std::vector<HeadSlope>& head_slopes,
                       const PairedClaimCheck& uniform_check, const PairedClaimCheck& floor_check,
                       std::size_t floor_points, const EckartYoungTally& ey, const std::string& where,
                       std::vector<Check>& checks) {
  Check slope = slope_check;
  std::size_t exact_heads = 0;
  for (const HeadSlope& h : head_slopes) exact_heads += h.judged ? 0 : 1;
  if (exact_heads > 0)
    slope.detail += "; " + std::to_string(exact_heads) + " heads left out: FAVOR exact to rounding there";
  slope.detail += "; A = a draw's fitted error at the largest m, B = at the smallest (A below B: slope below 0)";
  checks.push_back(slope);
  Check uniform = uniform_check.result();
  uniform.detail += "; A = FAVOR's MSE in a draw, B = uniform attention's, both floored at rounding";
  checks.push_back(uniform);
  if (floor_points > 0) {
    Check fc = floor_check.result();
    fc.detail += "; A = FAVOR's matrix error in a draw, B = the floor factor times the rank-r floor; a floor below "
                 "rounding counts as the rounding level";
    checks.push_back(fc);
  }
  if (ey.held + ey.violated > 0)
    checks.push_back(exact_check(
        "FAVOR's attention-matrix error is at least the best rank-r matrix's (Eckart-Young)", where, ey.held,
        ey.violated, ey.worst,
        std::to_string(ey.held) + " draws at or above the floor, " + std::to_string(ey.violated) +
            " below it (allowance 100 x 1e-12 ||A||_F for the SVD's rounding); smallest error - floor " +
            format_number(ey.worst) + " at " + ey.worst_label));
}

}  // namespace

double rank_floor_of(const HeadReport& r, int rank) {
  if (r.truncation.empty()) return NAN;
  const std::size_t i = std::min(static_cast<std::size_t>(rank), r.truncation.size() - 1);
  return r.truncation[i];
}

void summarize_report(const std::vector<ReportedHead>& heads, std::size_t layers, const ReportSettings& s,
                      const ReportClaims& claims, const SlopeVerdicts& slopes, Json& rows, std::vector<Check>& checks) {
  const std::size_t n_ms = s.ms.size();
  const double k = claims.floor_factor;
  for (std::size_t ai = 0; ai < s.arms.size(); ++ai) {
    const ReportArm& arm = s.arms[ai];
    const std::string where = report_arm_where(arm, heads.size(), layers, s.draws);
    // Points of each check, counted first (Bonferroni).
    const std::size_t floor_points = count_floor_points(heads, ai);
    // Each point's draws are few (4–20) and their errors skewed: the exact sign test (stats/paired_check.hpp) keeps
    // its level whatever their distribution, where a t interval on 4 draws does not (docs/judging.md). The slope
    // check ("error falls as m grows") comes judged, with its looks (report_slopes.hpp).
    PairedClaimCheck uniform_check("FAVOR's output error is no larger than uniform attention's on most draws", where,
                                   claims.alpha, heads.size() * n_ms, PairedClaimCheck::Ties::confirm);
    PairedClaimCheck floor_check("FAVOR's attention-matrix error is within " + format_number(k) +
                                     "x the best rank-r matrix's on most draws (r = feature columns; Eckart-Young "
                                     "floor)",
                                 where, claims.alpha, floor_points, PairedClaimCheck::Ties::confirm);
    EckartYoungTally ey;

    for (std::size_t hi = 0; hi < heads.size(); ++hi) {
      const HeadReport& r = heads[hi].report;
      const std::string head_label = heads[hi].layer + " head " + std::to_string(heads[hi].head);
      const ModeBaselines& b = r.modes[arm.causal ? 1 : 0];
      const double rounding = kRoundingAllowance * kRoundingAllowance * b.output_mean_square;
      const HeadSlope& hs = slopes.heads[ai][hi];
      for (std::size_t mi = 0; mi < n_ms; ++mi) {
        const ArmPoint& p = r.points[ai][mi];
        const std::string label = head_label + ", m=" + std::to_string(s.ms[mi]);
        const PairedVerdict uv = judge_beats_uniform(uniform_check, p, b, rounding, label);
        Json row = point_row(heads[hi], arm, s, mi, p, b);
        const MatrixFields f = judge_matrix_errors(r, p, k, label, floor_check, ey);
        row["matrix_rel_error_median"] = f.matrix_rel;
        row["matrix_rel_error_per_draw"] = f.matrix_per_draw;
        row["rank_floor"] = number_or_null(f.floor);
        row["rank_floor_rel"] = f.floor_rel;
        row["floor_ratio"] = f.ratio;
        add_diagnostics(row, r.diagnostics, s.ms[mi]);
        add_slope(row, hs);
        row["beats_uniform_status"] = verdict_name(uv.status);
        row["floor_status"] = f.floor_status;
        rows.push_back(std::move(row));
      }
    }
    append_arm_checks(slopes.checks[ai], slopes.heads[ai], uniform_check, floor_check, floor_points, ey, where,
                      checks);
  }
}

std::string report_table(const Json& rows, const std::vector<Check>& checks, const ReportSettings& s, int heatmap_m,
                         std::int64_t peak) {
  if (rows.empty()) return "";
  const Json& first = rows.front();
  const std::string features = first["features"], coupling = first["coupling"], mode = first["mode"];
  std::ostringstream out;
  char line[512];
  out << "\nRelative output error |O^ - O|^2 / |O - mean row|^2 (1 = no better than the mean row; median of "
      << s.draws << " draws), " << features << "/" << coupling << ", " << mode << ":\n";
  std::snprintf(line, sizeof line, "%-14s %4s", "layer", "head");
  out << line;
  for (int m : s.ms) out << cell_text("m=" + std::to_string(m));
  out << cell_text("uniform") << cell_text("fp32") << cell_text("bf16")
      << cell_text("floor@" + std::to_string(heatmap_m)) << cell_text("slope")
      << "  falls unif. floor  |q|med  H/lnL\n";
  for (std::size_t i = 0; i < rows.size();) {
    // The rows of one head and arm are consecutive, one per m.
    const Json& r = rows[i];
    if (r["features"] != features || r["coupling"] != coupling || r["mode"] != mode) {
      i += s.ms.size();
      continue;
    }
    std::snprintf(line, sizeof line, "%-14.14s %4d", r["layer"].get<std::string>().c_str(), r["head"].get<int>());
    out << line;
    std::vector<Json> unif, floors;
    Json floor_at = nullptr;
    for (std::size_t mi = 0; mi < s.ms.size(); ++mi) {
      const Json& x = rows[i + mi];
      out << cell_text(json_cell(x["rel_error_median"]));
      unif.push_back(x["beats_uniform_status"]);
      floors.push_back(x["floor_status"]);
      if (x["m"] == heatmap_m) floor_at = x["rank_floor_rel"];
    }
    const double entropy = r["row_entropy_mean"].get<double>() / std::log(static_cast<double>(r["L"].get<int>()));
    out << cell_text(json_cell(r["uniform_rel_error"])) << cell_text(json_cell(r["exact_f32_rel_error"]))
        << cell_text(json_cell(r["exact_bf16_rel_error"])) << cell_text(json_cell(floor_at))
        << cell_text(json_cell(r["slope"]));
    std::snprintf(line, sizeof line, "  %-5s %-5s %-5s %6.3g %6.3g\n", short_verdict(r["slope_status"]).c_str(),
                  short_verdict(combine(unif)).c_str(), short_verdict(combine(floors)).c_str(),
                  r["q_norm_q50"].get<double>(), entropy);
    out << line;
    i += s.ms.size();
  }
  out << "(uniform: uniform attention's relative error; fp32: exact attention in float32; bf16: exact attention in "
         "float32 on Q, K, V rounded to bfloat16; floor: the best rank-r "
         "matrix's error relative to |A - uniform|; slope: of log error vs log m, the 1/m law gives -1; verdicts ok = "
         "holds, VIOL = violated, ? = inconclusive, - = not judged; |q|med: median |q| d^-1/4; H/lnL: mean row "
         "entropy over ln L)\n";

  out << "\nMedian over heads of the relative output error, per arm:\n";
  std::snprintf(line, sizeof line, "%-38s", "features/coupling/mode");
  out << line;
  for (int m : s.ms) out << cell_text("m=" + std::to_string(m));
  out << "  verdicts (falls, beats uniform, within floor factor)\n";
  for (const auto& arm : s.arms) {
    const std::string f(feature_kind_name(arm.features)), c(coupling_name(arm.coupling)),
        md = arm.causal ? "causal" : "bidirectional";
    std::snprintf(line, sizeof line, "%-38s", (f + "/" + c + "/" + md).c_str());
    out << line;
    for (int m : s.ms) {
      std::vector<double> values;
      for (const auto& r : rows)
        if (r["features"] == f && r["coupling"] == c && r["mode"] == md && r["m"] == m &&
            !r["rel_error_median"].is_null())
          values.push_back(r["rel_error_median"].get<double>());
      out << cell_text(cell(finite_quantile(values, 0.5)));
    }
    std::string verdicts;
    for (const auto& check : checks)
      if (check.where.rfind(f + " features, " + c + " projections, " + md + ",", 0) == 0 &&
          check.claim.find("at least the best") == std::string::npos)
        verdicts += std::string(verdicts.empty() ? "  " : ", ") + verdict_name(check.status);
    out << verdicts << "\n";
  }
  out << "\nPeak memory (resident high-water mark of the process): "
      << (peak > 0 ? format_number(static_cast<double>(peak) / (1 << 20), 4) + " MiB" : std::string("unknown"))
      << "\n";
  return out.str();
}

}  // namespace favorlab
