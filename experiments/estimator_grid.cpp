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

}  // namespace favorlab
