#include "evaluation/attention_recommendation.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "io/format_number.hpp"
#include "io/wrap_words.hpp"
#include "stats/exact_inequality.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double median_of(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  return sample_quantile(values, 0.5);
}

struct Fit {
  double slope = kNaN, low = kNaN, high = kNaN, x_mean = kNaN, y_mean = kNaN;
};

// Least squares of y on x with a two-sided t interval for the slope (n − 2 degrees of freedom).
Fit fit_line(const std::vector<double>& x, const std::vector<double>& y, double confidence) {
  Fit f;
  const std::size_t n = x.size();
  if (n < 2) return f;
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < n; ++i) sx += x[i], sy += y[i];
  f.x_mean = sx / double(n);
  f.y_mean = sy / double(n);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) sxx += (x[i] - f.x_mean) * (x[i] - f.x_mean), sxy += (x[i] - f.x_mean) * (y[i] - f.y_mean);
  if (!(sxx > 0)) return f;
  f.slope = sxy / sxx;
  if (n < 3) return f;
  double rss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = y[i] - f.y_mean - f.slope * (x[i] - f.x_mean);
    rss += r * r;
  }
  const double se = std::sqrt(rss / double(n - 2) / sxx);
  const boost::math::students_t t(static_cast<double>(n - 2));
  const double crit = boost::math::quantile(boost::math::complement(t, (1 - confidence) / 2));
  f.low = f.slope - crit * se;
  f.high = f.slope + crit * se;
  return f;
}

// m where the fitted line (through the centroid, with this slope) reaches log R; +∞ when it never falls to it.
double m_at(const Fit& f, double slope, double log_target) {
  if (std::isnan(slope)) return kNaN;
  if (slope >= 0) return log_target >= f.y_mean ? kNaN : kInf;
  return std::exp(f.x_mean + (log_target - f.y_mean) / slope);
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %%", 100 * fraction);
  return text;
}

std::string value(double v) {
  if (std::isnan(v)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

std::string paragraph_of(const Recommendation& r, const ReportSettings& s, bool with_mode) {
  const std::string target = format_number(r.target), max_m = std::to_string(s.ms.back());
  std::string p = "Recommendation (target: relative output error <= " + target + "): ";
  if (r.best < 0) return p + "no arm has a finite error to judge (every head's output is constant across rows).";
  const ArmRecommendation& best = r.arms[static_cast<std::size_t>(r.best)];
  const auto at_max = [&](const ArmRecommendation& a) {
    return percent(a.fraction_at_max_m) + " of heads reach it at m = " + max_m;
  };
  if (r.reached) {
    const std::size_t mi = std::find(s.ms.begin(), s.ms.end(), best.m_reaching) - s.ms.begin();
    p += arm_label(best.arm, with_mode) + " reaches it on the median head at m = " + std::to_string(best.m_reaching) +
         " (median " + value(best.median_by_m[mi]) + "); " + at_max(best) + ".";
    std::string others;
    int listed = 0;
    for (std::size_t i = 0; i < r.arms.size(); ++i) {
      const ArmRecommendation& a = r.arms[i];
      if (static_cast<int>(i) == r.best || a.m_reaching == 0 || ++listed > 3) continue;
      others += (others.empty() ? "" : ", ") + arm_label(a.arm, with_mode) + " at m = " + std::to_string(a.m_reaching);
    }
    if (!others.empty()) p += " Also reaching it: " + others + ".";
  } else {
    p += "no arm reaches " + target + " on the median head at m <= " + max_m + "; " + arm_label(best.arm, with_mode) +
         " comes closest (median " + value(best.median_by_m.back()) + " at m = " + max_m + "; " + at_max(best) + ")";
    if (std::isinf(best.needed_m)) {
      p += "; its error does not fall with m (fitted slope " + value(best.slope) + "), so no m is predicted.";
    } else if (!std::isnan(best.needed_m)) {
      p += "; extrapolated m ~ " + approximate_m(best.needed_m);
      if (!std::isnan(best.needed_m_low))
        p += " (" + percent(r.confidence) + " interval " + approximate_m(best.needed_m_low) + "-" +
             approximate_m(best.needed_m_high) + ")";
      p += ", an extrapolation of the fitted slope " + value(best.slope) + " of log error against log m beyond the m run.";
    } else {
      p += ".";
    }
  }
  if (r.floor.measured)
    p += " A rank-" + std::to_string(r.floor.rank) + " matrix would reach " + target + " on " +
         percent(r.floor.fraction) + " of heads ((|A - A_r|_F / |A - uniform|_F)^2; the median head needs rank " +
         (std::isinf(r.floor.median_rank_needed) ? "above every rank" : approximate_m(r.floor.median_rank_needed)) +
         ").";
  else
    p += " (The rank-r floor is measured for bidirectional attention with L <= --matrix-max-L only.)";
  return p;
}

// Arm ai's answer: its median-head error at each m, the first m reaching the target, the share of heads reaching it
// at the largest m, and the fitted slope with the m it predicts.
ArmRecommendation arm_recommendation(const std::vector<ReportedHead>& heads, const ReportSettings& s, std::size_t ai,
                                     double target, double confidence) {
  const std::size_t n_ms = s.ms.size();
  const double log_target = std::log(target);
  ArmRecommendation a;
  a.arm = s.arms[ai];
  int reached_at_max = 0;
  for (std::size_t mi = 0; mi < n_ms; ++mi) {
    std::vector<double> per_head;
    for (const ReportedHead& h : heads) {
      const double e = median_of(h.report.points[ai][mi].relative);
      if (std::isnan(e)) continue;
      per_head.push_back(e);
      if (mi + 1 == n_ms) reached_at_max += e <= target;
    }
    if (mi + 1 == n_ms) a.heads_counted = static_cast<int>(per_head.size());
    a.median_by_m.push_back(median_of(per_head));
    if (a.m_reaching == 0 && a.median_by_m.back() <= target) a.m_reaching = s.ms[mi];
  }
  a.fraction_at_max_m = a.heads_counted ? double(reached_at_max) / a.heads_counted : 0;
  std::vector<double> x, y;
  for (std::size_t mi = 0; mi < n_ms; ++mi)
    if (a.median_by_m[mi] > 0 && std::isfinite(a.median_by_m[mi]))
      x.push_back(std::log(double(s.ms[mi]))), y.push_back(std::log(a.median_by_m[mi]));
  const Fit f = fit_line(x, y, confidence);
  a.slope = f.slope, a.slope_low = f.low, a.slope_high = f.high;
  a.needed_m = m_at(f, f.slope, log_target);
  // The steeper end of the slope's interval needs the smaller m when the target lies below the points.
  const double m1 = m_at(f, f.low, log_target), m2 = m_at(f, f.high, log_target);
  a.needed_m_low = std::isnan(m1) || std::isnan(m2) ? kNaN : std::min(m1, m2);
  a.needed_m_high = std::isnan(m1) || std::isnan(m2) ? kNaN : std::max(m1, m2);
  a.extrapolated = a.needed_m > double(s.ms.back());
  return a;
}

// The best arm: the smallest m reaching the target, ties to the lower median there; else the closest at the largest m.
// -1 when no arm has a value.
int best_arm(const std::vector<ArmRecommendation>& arms, const ReportSettings& s) {
  int best = -1;
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const ArmRecommendation& a = arms[i];
    if (std::isnan(a.median_by_m.back()) && a.m_reaching == 0) continue;
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const ArmRecommendation& b = arms[static_cast<std::size_t>(best)];
    const auto error_at = [&](const ArmRecommendation& x, int m) {
      return x.median_by_m[std::find(s.ms.begin(), s.ms.end(), m) - s.ms.begin()];
    };
    bool better;
    if ((a.m_reaching > 0) != (b.m_reaching > 0)) better = a.m_reaching > 0;
    else if (a.m_reaching > 0)
      better = a.m_reaching < b.m_reaching ||
               (a.m_reaching == b.m_reaching && error_at(a, a.m_reaching) < error_at(b, b.m_reaching));
    else better = a.median_by_m.back() < b.median_by_m.back() || std::isnan(b.median_by_m.back());
    if (better) best = static_cast<int>(i);
  }
  return best;
}

// The rank floor, from every head whose attention matrix was computed.
RankFloorAnswer rank_floor_answer(const std::vector<ReportedHead>& heads, const ReportSettings& s, double target) {
  RankFloorAnswer floor;
  std::vector<double> needed;
  int reached = 0;
  floor.rank = s.ms.empty() ? 0 : s.ms.back();
  for (const ReportedHead& h : heads) {
    const HeadReport& rep = h.report;
    if (!rep.matrix || rep.truncation.empty()) continue;
    const auto squared_ratio = [&](double e) {
      const double norm = rep.uniform_matrix_error;
      if (norm > 0) return (e / norm) * (e / norm);
      return e > kRoundingAllowance * rep.matrix_norm ? kInf : 0.0;  // A is uniform: only an exact fit reaches it
    };
    ++floor.heads;
    reached += squared_ratio(rank_floor_of(rep, floor.rank)) <= target;
    double rank = kInf;
    for (std::size_t k = 0; k < rep.truncation.size(); ++k)
      if (squared_ratio(rep.truncation[k]) <= target) {
        rank = static_cast<double>(k);
        break;
      }
    needed.push_back(rank);
  }
  floor.measured = floor.heads > 0;
  // A rank above min(Lq, L) is no constraint: name the largest rank that means something on these heads.
  std::size_t widest = 0;
  for (const ReportedHead& h : heads)
    if (h.report.matrix && !h.report.truncation.empty()) widest = std::max(widest, h.report.truncation.size() - 1);
  if (floor.measured) floor.rank = std::min(floor.rank, static_cast<int>(widest));
  if (floor.measured) {
    floor.fraction = double(reached) / floor.heads;
    std::sort(needed.begin(), needed.end());
    floor.median_rank_needed = needed[(needed.size() - 1) / 2 + (needed.size() % 2 == 0)];  // upper median
  }
  return floor;
}

}  // namespace

std::string arm_label(const ReportArm& arm, bool with_mode) {
  std::string label = std::string(feature_kind_name(arm.features)) + "/" + std::string(coupling_name(arm.coupling));
  if (with_mode) label += arm.causal ? "/causal" : "/bidirectional";
  return label;
}

std::string wrap_paragraph(const std::string& text, std::size_t width) { return wrap_words(text, width); }

std::string approximate_m(double m) {
  if (std::isnan(m)) return "-";
  if (std::isinf(m)) return "inf";
  char text[32];
  if (m < 1e4) {
    std::snprintf(text, sizeof text, "%.0f", std::round(m));
    return text;
  }
  const int exponent = static_cast<int>(std::floor(std::log10(m)));
  double mantissa = m / std::pow(10.0, exponent);
  mantissa = std::round(mantissa * 10) / 10;
  if (mantissa >= 10) return approximate_m(10 * std::pow(10.0, exponent));
  if (mantissa == std::floor(mantissa))
    std::snprintf(text, sizeof text, "%.0fe%d", mantissa, exponent);
  else
    std::snprintf(text, sizeof text, "%.1fe%d", mantissa, exponent);
  return text;
}

Recommendation recommend(const std::vector<ReportedHead>& heads, const ReportSettings& s, double target,
                         double confidence) {
  if (!(target > 0) || !std::isfinite(target))
    throw std::invalid_argument("--target must be a positive relative error, got " + format_number(target));
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("confidence must lie in (0, 1)");
  Recommendation r;
  r.target = target;
  r.confidence = confidence;
  for (std::size_t ai = 0; ai < s.arms.size(); ++ai)
    r.arms.push_back(arm_recommendation(heads, s, ai, target, confidence));
  r.best = best_arm(r.arms, s);
  r.reached = r.best >= 0 && r.arms[static_cast<std::size_t>(r.best)].m_reaching > 0;
  r.floor = rank_floor_answer(heads, s, target);
  bool both_modes = false;
  for (const ReportArm& arm : s.arms) both_modes = both_modes || arm.causal != s.arms.front().causal;
  r.paragraph = paragraph_of(r, s, both_modes);
  return r;
}

Json recommendation_json(const Recommendation& r, const ReportSettings& s) {
  bool both_modes = false;
  for (const ReportArm& arm : s.arms) both_modes = both_modes || arm.causal != s.arms.front().causal;
  Json arms = Json::array();
  for (const ArmRecommendation& a : r.arms) {
    Json medians = Json::array();
    for (double v : a.median_by_m) medians.push_back(number_or_null(v));
    arms.push_back(Json{{"arm", arm_label(a.arm, both_modes)},
                        {"features", std::string(feature_kind_name(a.arm.features))},
                        {"coupling", std::string(coupling_name(a.arm.coupling))},
                        {"mode", a.arm.causal ? "causal" : "bidirectional"},
                        {"median_rel_error_by_m", medians},
                        {"m_reaching_target", a.m_reaching > 0 ? Json(a.m_reaching) : Json(nullptr)},
                        {"fraction_of_heads_at_max_m", a.fraction_at_max_m},
                        {"heads", a.heads_counted},
                        {"slope", number_or_null(a.slope)},
                        {"slope_low", number_or_null(a.slope_low)},
                        {"slope_high", number_or_null(a.slope_high)},
                        // +∞ (the error does not fall) is written as the string "inf": JSON has no infinity.
                        {"needed_m", std::isinf(a.needed_m) ? Json("inf") : number_or_null(a.needed_m)},
                        {"needed_m_low", std::isinf(a.needed_m_low) ? Json("inf") : number_or_null(a.needed_m_low)},
                        {"needed_m_high", std::isinf(a.needed_m_high) ? Json("inf") : number_or_null(a.needed_m_high)},
                        {"needed_m_is_extrapolation", a.extrapolated}});
  }
  Json floor = nullptr;
  if (r.floor.measured)
    floor = Json{{"rank", r.floor.rank},
                 {"heads", r.floor.heads},
                 {"fraction_of_heads", r.floor.fraction},
                 {"median_rank_needed",
                  std::isinf(r.floor.median_rank_needed) ? Json("inf") : Json(r.floor.median_rank_needed)},
                 {"measure", "(|A - A_r|_F / |A - uniform|_F)^2"}};
  return Json{{"target", r.target},
              {"measure", "relative output error |O^ - O|^2 / |O - mean row|^2, median over draws per head, "
                          "median over heads per arm"},
              {"confidence", r.confidence},
              {"best_arm", r.best >= 0 ? Json(arm_label(r.arms[static_cast<std::size_t>(r.best)].arm, both_modes))
                                       : Json(nullptr)},
              {"target_reached", r.reached},
              {"arms", arms},
              {"rank_floor", floor},
              {"paragraph", r.paragraph}};
}

}  // namespace favorlab
