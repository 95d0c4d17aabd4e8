#include "evaluation/estimator_rows.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <utility>

#include "features/family_theory.hpp"
#include "kernels/chi_moments.hpp"

namespace favorlab {

Json estimator_row(Family e, Coupling c, int d, int m, const Geometry& g) {
  return Json{{"estimator", estimator_name(e)}, {"coupling", coupling_name(c)}, {"d", d}, {"m", m},
              {"x_norm", g.x_norm}, {"y_norm", g.y_norm}, {"cos_angle", g.cos_angle}};
}

namespace {

// The interval holding every estimate of a bounded estimator, or none: trig features are C·cos with
// C = e^{(‖x‖² + ‖y‖²)/2}; positive features on rows of norm √d (the regularized estimator, whatever the coupling:
// hadamard and givens rows of the positive estimator have chi_d norms) are Λ e^{ωᵀz} with |ωᵀz| ≤ √d ‖z‖.
std::optional<std::pair<double, double>> estimate_interval(Family e, const Geometry& g, int d) {
  if (e == Family::trig) {
    const double bound = std::exp(-g.log_lambda());
    return std::make_pair(-bound, bound);
  }
  if (e == Family::smreg && family_info(e).norms == RowNorms::sqrt_d) {
    const double a = std::sqrt(static_cast<double>(d) * g.z_sq());
    return std::make_pair(std::exp(g.log_lambda() - a), std::exp(g.log_lambda() + a));
  }
  return std::nullopt;
}

}  // namespace

void add_compare_fields(Json& row, const FeatureParameters& params) {
  const Family e = parse_estimator(row.at("estimator").get<std::string>());
  const Coupling c = parse_coupling(row.at("coupling").get<std::string>());
  const int d = row.at("d").get<int>(), m = row.at("m").get<int>();
  const Geometry g{row.at("x_norm").get<double>(), row.at("y_norm").get<double>(), row.at("cos_angle").get<double>()};
  const double truth = row.at("truth").get<double>();
  if (c == Coupling::orthogonal || c == Coupling::simplex) {
    if (!row.contains("mean_draw_variance") || row["mean_draw_variance"].is_null())
      if (const std::optional<double> mse = exact_mse(e, c, g, d, m, params))
        row["mean_draw_variance"] = number_or_null(*mse);
    try {
      const ErrorMoments one = error_moments(e, g, d, 1, params);
      row["mean_draw_variance_bound"] = number_or_null(one.variance);
      row["mse_draw_variance_bound"] = number_or_null(one.squared_error_variance + one.variance * one.variance);
    } catch (const std::invalid_argument&) {
      // a family without a model of one feature: no bound
    }
  }
  if (c == Coupling::hadamard || c == Coupling::givens) {
    // Rows of another law than the iid one: the iid skewness stands in for nothing (a givens row keeps much of its
    // weight on a few coordinates, and x and y lie on two of them: far heavier tails than iid rows).
    for (const char* field : {"mean_skewness", "mse_skewness"})
      if (row.contains(field)) row[field] = nullptr;
    if (e == Family::positive && family_info(e).norms == RowNorms::chi) {
      // Λ e^{ωᵀz} ≤ Λ e^{r‖z‖}, r ~ chi_d the row's norm, whatever its direction: E[g²] ≤ E[X²] ≤ Λ² E[e^{2r‖z‖}],
      // and (X − K)⁴ ≤ X⁴ + K⁴ for X, K ≥ 0.
      const double z = std::sqrt(g.z_sq()), log_lambda = g.log_lambda();
      row["mean_draw_variance_bound"] = number_or_null(std::exp(2 * log_lambda + log_chi_mgf(d, 2 * z)));
      row["mse_draw_variance_bound"] =
          number_or_null(std::exp(4 * log_lambda + log_chi_mgf(d, 4 * z)) + std::pow(truth, 4));
    }
  }
  if (const auto interval = estimate_interval(e, g, d)) {
    const auto [lo, hi] = *interval;
    const double reach = std::max(std::abs(hi - truth), std::abs(truth - lo));
    row["mean_range"] = number_or_null(hi - lo);
    row["mse_range"] = number_or_null(reach * reach);
  }
}

void add_draw_fields(Json& row, const ErrorMoments& em, bool iid, const FeatureParameters& params) {
  row["mean_skewness"] = number_or_null(em.error_skewness);
  row["mse_skewness"] = number_or_null(em.squared_error_skewness);
  row["mean_draw_variance"] = iid ? number_or_null(em.variance) : Json(nullptr);
  row["mse_draw_variance"] = iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
  add_compare_fields(row, params);
}

Json estimator_row_schema(bool with_mse) {
  // Each statistic names its a-priori skewness (the heavy-tail gate), what bounds the spread of one draw past that
  // gate (the closed-form variance, a bound on it, the range of a bounded estimator: add_compare_fields; null where
  // none is known) and the scale its rounding is relative to: the truth for means, the truth squared for mean squared
  // errors; and where its count comes from (params.trials, doubled at each look; results/result_compare.hpp).
  // spread: the prefix of the fields of add_compare_fields ("mean", "mse"), or nullptr where there are none.
  auto statistic = [](const char* value, const char* stderr_field, const char* count, const char* skewness,
                      const char* spread, int rounding_power) {
    Json s{{"value", value},       {"stderr", stderr_field},     {"count", count},
           {"skewness", skewness}, {"rounding_scale", "truth"}, {"rounding_power", rounding_power}};
    if (spread != nullptr) {
      s["variance"] = std::string(spread) + "_draw_variance";
      s["variance_bound"] = std::string(spread) + "_draw_variance_bound";
      s["range"] = std::string(spread) + "_range";
    }
    return s;
  };
  auto plain = [](Json s) {
    s.update(Json{{"count_param", "trials"}, {"count_look", "look"}, {"count_dropped", "nonfinite"}});
    return s;
  };
  auto weighted = [](Json s) {
    s["count_param"] = "importance_trials";
    return s;
  };
  Json statistics = Json::array({plain(statistic("mean", "stderr", "trials", "mean_skewness", "mean", 1))});
  Json exact = Json::array({"truth"});
  if (with_mse) {
    statistics.push_back(plain(statistic("mse", "mse_stderr", "trials", "mse_skewness", "mse", 2)));
    // The importance-sampled figures (positive and hyperbolic rows; absent elsewhere): the only conclusive MSEs.
    statistics.push_back(weighted(statistic("is_mean", "is_stderr", "is_trials", "is_mean_skewness", nullptr, 1)));
    statistics.push_back(weighted(statistic("is_mse", "is_mse_stderr", "is_trials", "is_mse_skewness", nullptr, 2)));
    exact.push_back("mse_theory");
  }
  return Json{{"key", Json::array({"estimator", "coupling", "d", "m", "x_norm", "y_norm", "cos_angle"})},
              {"statistics", statistics},
              {"exact", exact},
              {"verdict", "status"}};
}

std::string point_label(const Geometry& g) {
  std::ostringstream s;
  s << "x_norm=" << g.x_norm << ", y_norm=" << g.y_norm << ", cos=" << g.cos_angle;
  return s.str();
}

void add_importance_fields(Json& row, const CoupledImportanceSampledMse& r, const PointVerdict& v) {
  row["is_mean"] = r.estimate_mean;
  row["is_stderr"] = r.estimate_stderr;
  row["is_mse"] = r.mse;
  row["is_mse_stderr"] = r.mse_stderr;
  row["is_trials"] = r.trials;
  row["is_mean_skewness"] = nullptr;  // the proposal is tuned for the squared error; no gate figure for the mean
  row["is_mse_skewness"] = number_or_null(r.gate_skewness());
  row["is_z"] = v.z;
  row["is_status"] = v.status;
  row["is_trials_needed"] = trials_json(v.trials_needed);
  if (r.sphere) {
    // Rows of norm √d: the direction's tilt and the plain law's share, no Gaussian proposal.
    row["is_sphere_kappa"] = r.sphere_tilt.kappa;
    row["is_sphere_plain_share"] = r.sphere_tilt.plain_share;
  } else {
    row["is_proposal_mean"] = r.proposal.mean;
    row["is_proposal_sd"] = r.proposal.sd;
  }
}

void add_importance_fields(Json& row, const ImportanceSampledMse& r, const PointVerdict& v, double perp_sd) {
  row["is_mean"] = r.estimate_mean;
  row["is_stderr"] = r.estimate_stderr;
  row["is_mse"] = r.mse;
  row["is_mse_stderr"] = r.mse_stderr;
  row["is_trials"] = r.trials;
  row["is_mean_skewness"] = number_or_null(r.estimate_skewness);
  row["is_mse_skewness"] = number_or_null(r.mse_skewness);
  row["is_z"] = v.z;
  row["is_status"] = v.status;
  row["is_trials_needed"] = trials_json(v.trials_needed);
  row["is_proposal_mean"] = r.proposal.mean;
  row["is_proposal_sd"] = r.proposal.sd;
  row["is_proposal_perp_sd"] = perp_sd;
  row["is_relative_variance"] = r.relative_variance;
  row["plain_relative_variance"] = number_or_null(r.plain_relative_variance);
}

}  // namespace favorlab
