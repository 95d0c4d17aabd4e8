#include "perf/mc_engine_rate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "features/estimator.hpp"
#include "features/projection.hpp"
#include "runtime/eigen_threads.hpp"
#include "perf/interleaved_timing.hpp"
#include "runtime/load_average.hpp"
#include "rng/philox_stream.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

double mc_engine_flops(const SweepConfig& config) {
  double per_trial = 0;
  for (const EstimatorSpec& s : config.specs)
    per_trial += 2.0 * 2.0 * static_cast<double>(config.points.size()) * config.d * s.m;
  return per_trial * static_cast<double>(config.trials);
}

namespace {

// What the products and the estimates share: the sweep's points as X and Y, and one fixed projection of max m rows.
struct EngineInputs {
  Eigen::MatrixXd x, y, w;
};

EngineInputs engine_inputs(const SweepConfig& config) {
  if (config.specs.empty() || config.points.empty() || config.d < 1 || config.threads < 1)
    throw std::invalid_argument("the Monte Carlo engine timing needs a spec, a point, d >= 1 and threads >= 1");
  for (const EstimatorSpec& s : config.specs)
    if (s.m < 1)
      throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(s.m));
  const auto points = static_cast<Eigen::Index>(config.points.size());
  int max_m = 0;
  for (const EstimatorSpec& s : config.specs) max_m = std::max(max_m, s.m);
  EngineInputs in{Eigen::MatrixXd(points, config.d), Eigen::MatrixXd(points, config.d), {}};
  for (Eigen::Index p = 0; p < points; ++p) {
    in.x.row(p) = geometry_x(config.points[std::size_t(p)], config.d).transpose();
    in.y.row(p) = geometry_y(config.points[std::size_t(p)], config.d).transpose();
  }
  PhiloxStream rng(config.seed, config.stream, 0);
  in.w = draw_projection(Coupling::iid, RowNorms::chi, max_m, config.d, rng);
  return in;
}

}  // namespace

double mc_engine_products(const SweepConfig& config) {
  const EngineInputs in = engine_inputs(config);
  const EigenSingleThread eigen_single_thread;
  double observed = 0;
#pragma omp parallel num_threads(config.threads) reduction(+ : observed)
  {
    Eigen::MatrixXd px(in.x.rows(), in.w.rows()), py(in.y.rows(), in.w.rows());
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < config.trials; ++t)
      for (const EstimatorSpec& s : config.specs) {
        px.leftCols(s.m).noalias() = in.x * in.w.topRows(s.m).transpose();
        py.leftCols(s.m).noalias() = in.y * in.w.topRows(s.m).transpose();
        observed += px(0, 0) + py(0, 0);
      }
  }
  return observed;
}

double mc_engine_estimates(const SweepConfig& config) {
  const EngineInputs in = engine_inputs(config);
  const EigenSingleThread eigen_single_thread;
  std::vector<Eigen::MatrixXd> ws;  // per spec, as the sweep forms them
  for (const EstimatorSpec& s : config.specs) {
    ws.push_back(in.w.topRows(s.m));
    if (row_norms_for(s.estimator) == RowNorms::sqrt_d) rescale_rows_to_sqrt_d(ws.back());
  }
  double observed = 0;
#pragma omp parallel num_threads(config.threads) reduction(+ : observed)
  {
    std::vector<KernelWorkspace> buffers(config.specs.size());
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < config.trials; ++t)
      for (std::size_t s = 0; s < config.specs.size(); ++s)
        observed += estimate_kernel(config.specs[s].estimator, in.x, in.y, ws[s], config.parameters, buffers[s])(0);
  }
  return observed;
}

McEngineTiming time_mc_engine(const SweepConfig& config, int repeats) {
  if (repeats < 1) throw std::invalid_argument("repeats must be at least 1, got " + std::to_string(repeats));
  run_estimator_sweep(config);  // validates the configuration before any timing (and warms up)
  volatile double sink = 0;     // keeps the products' result observable
  const auto seconds = time_interleaved(repeats, {[&] { run_estimator_sweep(config); },
                                                  [&] { sink = sink + mc_engine_products(config); },
                                                  [&] { sink = sink + mc_engine_estimates(config); }});
  McEngineTiming t;
  t.sweep_seconds = sample_median(seconds[0]);
  t.products_seconds = sample_median(seconds[1]);
  t.estimates_seconds = sample_median(seconds[2]);
  t.flops = mc_engine_flops(config);
  t.load = load_average();
  t.trials = config.trials;
  t.repeats = repeats;
  return t;
}

}  // namespace favorlab
