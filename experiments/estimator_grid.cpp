#include "experiments/estimator_grid.hpp"

#include <sstream>
#include <stdexcept>

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
  if (d <= 0) throw std::invalid_argument("--d must be positive, got " + std::to_string(d));
  if (m <= 0) throw std::invalid_argument("--m must be positive, got " + std::to_string(m));
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

std::vector<Estimator> EstimatorGridOptions::parsed_estimators() const {
  std::vector<Estimator> out;
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

Json estimator_row(Estimator e, Coupling c, int d, int m, const Geometry& g) {
  return Json{{"estimator", estimator_name(e)}, {"coupling", coupling_name(c)}, {"d", d}, {"m", m},
              {"x_norm", g.x_norm}, {"y_norm", g.y_norm}, {"cos_angle", g.cos_angle}};
}

Json estimator_row_schema(bool with_mse) {
  Json statistics = Json::array(
      {Json{{"value", "mean"}, {"stderr", "stderr"}, {"count", "trials"}, {"skewness", "mean_skewness"}}});
  Json exact = Json::array({"truth"});
  if (with_mse) {
    statistics.push_back(
        Json{{"value", "mse"}, {"stderr", "mse_stderr"}, {"count", "trials"}, {"skewness", "mse_skewness"}});
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

}  // namespace favorlab
