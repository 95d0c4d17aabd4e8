#include "experiments/estimator_grid.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <utility>
#include <stdexcept>

#include "features/family_theory.hpp"
#include "kernels/chi_moments.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

void EstimatorGridOptions::add_to(CLI::App& app) {
  if (dims.empty()) {
    app.add_option("--d", d, "Dimension of x and y")->capture_default_str();
    app.add_option("--m", m, "Number of random projections (hyperbolic and trig use 2m features)")
        ->capture_default_str();
  } else {
    app.add_option("--d", dims, "Dimensions of x and y, comma-separated (m = d projections at each)")
        ->delimiter(',')
        ->capture_default_str();
  }
  app.add_option("--gerf-a", parameters.gerf_a, "A of the gerf estimator (any A < 1/8; A = 0 is positive)")
      ->capture_default_str();
  app.add_option("--x-norm", x_norms, "Norms of x, comma-separated")->delimiter(',')->capture_default_str();
  app.add_option("--y-norm", y_norms, "Norms of y, comma-separated")->delimiter(',')->capture_default_str();
  app.add_option("--cos", cosines, "Cosines of the angle between x and y, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--estimators", estimators, "Estimators: " + family_list(estimates_softmax, true))
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--couplings", couplings, "Projection couplings: iid, orthogonal, hadamard, givens, simplex")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--alpha", alpha, "Family-wise false-failure rate of each check (Bonferroni over its points)")
      ->capture_default_str();
}

std::vector<Geometry> EstimatorGridOptions::points() const {
  // Upper bounds far beyond any memory (an m×d projection of doubles at 2^26 is 2^29 bytes per unit of the other)
  // keep derived counts such as 2m inside int.
  constexpr int kMaxSize = 1 << 26;
  if (d <= 0 || d > kMaxSize) throw std::invalid_argument("--d must be between 1 and 2^26, got " + std::to_string(d));
  if (m <= 0 || m > kMaxSize) throw std::invalid_argument("--m must be between 1 and 2^26, got " + std::to_string(m));
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
  if (x_norms.empty() || y_norms.empty() || cosines.empty())
    throw std::invalid_argument("--x-norm, --y-norm and --cos each need at least one value");
  std::vector<Geometry> grid;
  for (double xn : x_norms)
    for (double yn : y_norms)
      for (double c : cosines) {
        Geometry g{xn, yn, c};
        validate_geometry(g, d);
        grid.push_back(g);
      }
  return grid;
}

std::vector<Family> EstimatorGridOptions::parsed_estimators() const {
  std::vector<Family> out;
  for (const auto& name : estimators) out.push_back(parse_estimator(name));
  if (out.empty()) throw std::invalid_argument("--estimators needs at least one estimator");
  return out;
}

std::vector<Coupling> EstimatorGridOptions::parsed_couplings() const {
  std::vector<Coupling> out;
  for (const auto& name : couplings) out.push_back(parse_coupling(name));
  if (out.empty()) throw std::invalid_argument("--couplings needs at least one coupling");
  return out;
}

Json EstimatorGridOptions::params() const {
  Json out{{"d", d},           {"m", m},                 {"x_norm", x_norms}, {"y_norm", y_norms},
           {"cos", cosines},   {"estimators", estimators}, {"couplings", couplings}, {"alpha", alpha}};
  if (!dims.empty()) {
    out["d"] = dims;
    out["m"] = "d";
  }
  for (const std::string& e : estimators)
    if (e == family_name(Family::gerf)) out["gerf_a"] = parameters.gerf_a;
  return out;
}

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

double estimator_sweep_bytes(const SweepSize& s, std::int64_t trials, int threads) {
  using namespace memory;
  const double cells = s.specs * s.points;
  // Per block: drawing W of max_m rows, then W and a spec's copy of its rows; φ(X) and φ(Y) with a projection
  // temporary; the errors.
  const double per_block = std::max(projection_bytes(s.coupling, s.max_m, s.d), 2 * s.max_m * s.d * kDouble) +
                           3 * s.points * s.max_columns * kDouble + cells * kDouble;
  const double accumulator = cells * 48 + s.pairs * 32;
  return block_workers(static_cast<double>(trials), threads) * per_block +
         wave_accumulators(static_cast<double>(trials), accumulator) + 2 * s.points * s.d * kDouble + 2 * accumulator;
}

MemoryEstimate EstimatorGridExperiment::memory_estimate(const RunContext& ctx) const {
  std::vector<Family> estimators;
  std::vector<Coupling> couplings;
  try {
    estimators = grid_.parsed_estimators();
    couplings = grid_.parsed_couplings();
  } catch (const std::invalid_argument&) {
    return {};  // run() names the bad value
  }
  const bool double_m = adds_positive_at_double_m(estimators);
  const double points = static_cast<double>(grid_.x_norms.size()) * static_cast<double>(grid_.y_norms.size()) *
                        static_cast<double>(grid_.cosines.size());
  double peak = 0, rows = 0;
  const std::vector<int> dims = grid_.dims.empty() ? std::vector<int>{grid_.d} : grid_.dims;
  for (int d : dims) {
    const double m = grid_.dims.empty() ? grid_.m : d;
    SweepSize size{static_cast<double>(d), m, 0, static_cast<double>(estimators.size()) + (double_m ? 1 : 0), points};
    for (Family e : estimators)
      size.max_columns = std::max(size.max_columns, memory::feature_columns_of(e, m, d));
    if (double_m) {
      size.max_m = 2 * m;
      size.max_columns = std::max(size.max_columns, 2 * m);
    }
    // mse: 6 pairs per step of check 2's paths (points with x_norm = y_norm), 1 a point for check 3.
    size.pairs = 6 * static_cast<double>(std::min(grid_.x_norms.size(), grid_.y_norms.size())) *
                     static_cast<double>(grid_.cosines.size()) +
                 points;
    for (Coupling c : couplings) {
      size.coupling = c;
      peak = std::max(peak, estimator_sweep_bytes(size, ctx.trials, ctx.threads));
      rows += size.specs * points;
    }
  }
  constexpr double kRowFields = 26;  // estimator_row's 7, the figures, the verdict and mse's is_* fields
  return memory::estimate(peak + memory::rows_bytes(rows, kRowFields),
                          grid_.dims.empty() ? "--m, --d or the grid (--x-norm, --y-norm, --cos)"
                                             : "--d or the grid (--x-norm, --y-norm, --cos)");
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

}  // namespace favorlab
