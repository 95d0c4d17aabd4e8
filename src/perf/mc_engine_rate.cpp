#include "perf/mc_engine_rate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "features/projection.hpp"
#include "perf/eigen_threads.hpp"
#include "perf/interleaved_timing.hpp"
#include "perf/load_average.hpp"
#include "rng/philox_stream.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

double mc_engine_flops(const SweepConfig& config) {
  double per_trial = 0;
  for (const EstimatorSpec& s : config.specs)
    per_trial += 2.0 * 2.0 * static_cast<double>(config.points.size()) * config.d * s.m;
  return per_trial * static_cast<double>(config.trials);
}

double mc_engine_products(const SweepConfig& config) {
  if (config.specs.empty() || config.points.empty() || config.d < 1 || config.threads < 1)
    throw std::invalid_argument("the products need a spec, a point, d >= 1 and threads >= 1");
  for (const EstimatorSpec& s : config.specs)
    if (s.m < 1)
      throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(s.m));
  const EigenSingleThread eigen_single_thread;
  const auto points = static_cast<Eigen::Index>(config.points.size());
  int max_m = 0;
  for (const EstimatorSpec& s : config.specs) max_m = std::max(max_m, s.m);
  Eigen::MatrixXd x(points, config.d), y(points, config.d);
  for (Eigen::Index p = 0; p < points; ++p) {
    x.row(p) = geometry_x(config.points[std::size_t(p)], config.d).transpose();
    y.row(p) = geometry_y(config.points[std::size_t(p)], config.d).transpose();
  }
  PhiloxStream rng(config.seed, config.stream, 0);
  const Eigen::MatrixXd w = draw_projection(Coupling::iid, RowNorms::chi, max_m, config.d, rng);
  double observed = 0;
#pragma omp parallel num_threads(config.threads) reduction(+ : observed)
  {
    Eigen::MatrixXd px(points, max_m), py(points, max_m);
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < config.trials; ++t)
      for (const EstimatorSpec& s : config.specs) {
        px.leftCols(s.m).noalias() = x * w.topRows(s.m).transpose();
        py.leftCols(s.m).noalias() = y * w.topRows(s.m).transpose();
        observed += px(0, 0) + py(0, 0);
      }
  }
  return observed;
}

McEngineTiming time_mc_engine(const SweepConfig& config, int repeats) {
  if (repeats < 1) throw std::invalid_argument("repeats must be at least 1, got " + std::to_string(repeats));
  run_estimator_sweep(config);  // validates the configuration before any timing (and warms up)
  volatile double sink = 0;     // keeps the products' result observable
  const auto seconds = time_interleaved(repeats, {[&] { run_estimator_sweep(config); },
                                                  [&] { sink = sink + mc_engine_products(config); }});
  const std::vector<double>& sweep = seconds[0];
  const std::vector<double>& products = seconds[1];
  McEngineTiming t;
  t.sweep_seconds = sample_median(sweep);
  t.products_seconds = sample_median(products);
  t.flops = mc_engine_flops(config);
  t.load = load_average();
  t.trials = config.trials;
  t.repeats = repeats;
  return t;
}

}  // namespace favorlab
