#include "evaluation/tail_points.hpp"

#include <cmath>

#include "stats/clopper_pearson.hpp"

namespace favorlab {

std::vector<TailMethodChoice> choose_tail_methods(const std::vector<TailPoint>& tail_points,
                                                const std::vector<Geometry>& points, int d, Coupling coupling,
                                                std::int64_t trials, double point_alpha, std::int64_t tilted_trials) {
  constexpr double kTiltedReach = 10;
  const bool iid = coupling == Coupling::iid;
  const double zero_count_upper = clopper_pearson(0, trials, point_alpha).upper;
  std::vector<TailMethodChoice> out;
  for (const TailPoint& tp : tail_points) {
    const double top = iid ? tp.bound.max_feature : tp.bound.max_orthogonal;
    const double bound = iid ? tp.bound.iid : tp.bound.orthogonal;
    TailMethodChoice m;
    if (tp.a >= top) m.method = TailMethod::support;
    else if (bound < kTiltedReach * zero_count_upper) {
      if (!iid && tp.m > 1)
        m.why_counted = "orthogonal rows with m >= 2 have no tilted estimate (their joint law is no product, so the "
                        "tilt's normaliser E[exp(theta sum X)] is an m-dimensional integral)";
      else if (d < 2) m.why_counted = "d = 1 has no tilted estimate";
      else if (tilted_trials == 0) m.why_counted = "--tilted-trials 0 counts every point";
      else if (!(bound > 0)) m.why_counted = "the bound underflows double";
      else if (!tilted_feature_available(points[tp.p], d, tp.bound.theta))
        m.why_counted = "the tilted law needs more than " + std::to_string(TiltedFeature::kMaxTerms) +
                        " mixture terms (theta * max X beyond about 300)";
      else m.method = TailMethod::tilted;
    }
    out.push_back(m);
  }
  return out;
}

TailPointVerdict judge_tail_point(TailBoundCheck& check, TailMethod method, const TailPointEvidence& ev,
                                  const TiltedTailEstimate* tilted) {
  if (method == TailMethod::support) return check.judge_support(ev);
  if (method == TailMethod::count) return check.judge(ev);
  return check.judge_tilted({tilted->mean_ratio, tilted->trials, std::exp(tilted->log_range), tilted->low_factor,
                             tilted->high_factor, tilted->shift, ev.bound, ev.label});
}

Json tail_count_row(Coupling coupling, int d, const TailPoint& tp, const Geometry& g, const TailPointEvidence& ev,
                    double point_alpha) {
  const ProportionInterval ci =
      ev.trials > 0 ? clopper_pearson(ev.exceed, ev.trials, point_alpha) : ProportionInterval{0, 1};
  Json row{{"estimator", "smreg"}, {"coupling", coupling_name(coupling)}, {"d", d}, {"m", tp.m},
           {"x_norm", g.x_norm}, {"y_norm", g.y_norm}, {"cos_angle", g.cos_angle},
           {"smreg", tp.bound.smreg}, {"truth", tp.bound.smreg}, {"delta", tp.delta}, {"a", tp.a},
           {"max_estimate", tp.bound.max_feature}, {"above_support", tp.a >= tp.bound.max_feature},
           {"exceed_count", ev.exceed}, {"trials", ev.trials}, {"nonfinite", ev.nonfinite},
           {"p_hat", ev.trials > 0 ? static_cast<double>(ev.exceed) / static_cast<double>(ev.trials) : 0.0},
           {"p_lower", ci.lower}, {"p_upper", ci.upper},
           {"legendre", number_or_null(tp.bound.legendre)}, {"theta", number_or_null(tp.bound.theta)},
           {"bound", ev.bound}, {"chernoff_bound", tp.bound.iid}};
  if (coupling == Coupling::orthogonal) {
    row["max_estimate_orthogonal"] = tp.bound.max_orthogonal;
    row["above_support_orthogonal"] = tp.a >= tp.bound.max_orthogonal;
  }
  return row;
}

void add_tilted_tail_fields(Json& row, const TiltedTailEstimate& e, const TailPointVerdict& v) {
  const double range = std::exp(e.log_range);
  row["tilted_p"] = v.p_hat;
  row["tilted_stderr"] = range * e.sd_ratio / std::sqrt(static_cast<double>(e.trials));
  row["tilted_trials"] = e.trials;
  row["tilted_hits"] = e.hits;
  row["tilted_lower"] = v.interval.lower;
  row["tilted_upper"] = v.interval.upper;
  row["tilted_range"] = range;
}

}  // namespace favorlab
