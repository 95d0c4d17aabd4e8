#include "mc/estimator_sweep.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "kernels/smreg.hpp"
#include "runtime/eigen_threads.hpp"
#include "kernels/softmax_kernel.hpp"
#include "rng/philox_stream.hpp"

namespace favorlab {

double estimator_truth(Family e, const Geometry& g, int d) {
  return family_info(e).target == KernelTarget::regularized_softmax ? smreg_exact(g, d) : softmax_kernel(g);
}

namespace {

struct Accumulator {
  std::vector<SweepCell> cells;
  std::vector<RunningCovariance> pairs;
  auto fields() { return std::tie(cells, pairs); }  // for the exchange between MPI ranks (block_codec.hpp)
  void merge(const Accumulator& other) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      cells[i].error.merge(other.cells[i].error);
      cells[i].nonfinite += other.cells[i].nonfinite;
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i].merge(other.pairs[i]);
  }
};

void validate(const SweepConfig& c, const CellPairs& pairs) {
  auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
  if (c.d <= 0) bad("dimension d must be positive, got " + std::to_string(c.d));
  if (c.specs.empty()) bad("no estimator to run");
  if (c.points.empty()) bad("the geometry grid is empty");
  // A continued run (first_trial > 0) may add a single trial; a fresh one needs two for a standard error.
  if (c.trials < (c.first_trial > 0 ? 1 : 2))
    bad("trials must be at least " + std::string(c.first_trial > 0 ? "1" : "2") + ", got " + std::to_string(c.trials));
  if (c.threads < 1) bad("threads must be at least 1, got " + std::to_string(c.threads));
  if (c.first_trial < 0) bad("first trial must be at least 0, got " + std::to_string(c.first_trial));
  for (const auto& s : c.specs)
    if (s.m <= 0) bad("number of random features m must be positive, got " + std::to_string(s.m));
  for (const auto& g : c.points) validate_geometry(g, c.d);
  const std::size_t cells = c.specs.size() * c.points.size();
  for (const auto& [i, j] : pairs)
    if (i >= cells || j >= cells) bad("squared-error pair (" + std::to_string(i) + ", " + std::to_string(j) +
                                      ") names a cell beyond the " + std::to_string(cells) + " cells of the sweep");
}

}  // namespace

std::vector<double> estimator_truths(const std::vector<EstimatorSpec>& specs, const std::vector<Geometry>& points,
                                     int d) {
  std::vector<double> truth(specs.size() * points.size());
  for (std::size_t s = 0; s < specs.size(); ++s)
    for (std::size_t p = 0; p < points.size(); ++p) {
      const double t = estimator_truth(specs[s].estimator, points[p], d);
      if (!std::isfinite(t) || t == 0) {
        std::ostringstream msg;
        msg << "the kernel value at x_norm=" << points[p].x_norm << ", y_norm=" << points[p].y_norm
            << ", cos=" << points[p].cos_angle << (t == 0 ? " underflows" : " overflows")
            << " double precision; use smaller norms";
        throw std::invalid_argument(msg.str());
      }
      truth[s * points.size() + p] = t;
    }
  return truth;
}

namespace {

// The sweep of `c`, its accumulators starting from `initial` when given (a continued run: extend_estimator_sweep).
SweepResult sweep(const SweepConfig& c, const ProgressFn& progress, const CellPairs& pairs,
                  const Accumulator* initial) {
  validate(c, pairs);
  const EigenSingleThread eigen_single_thread;  // the trials loop is the parallelism (runtime/eigen_threads.hpp)
  const auto start = std::chrono::steady_clock::now();
  const std::size_t points = c.points.size(), specs = c.specs.size();
  int max_m = 0;
  for (const auto& s : c.specs) max_m = std::max(max_m, s.m);
  const int draw_rows = std::max(max_m, c.draw_rows);

  SweepResult result;
  result.truth_stride = points;
  result.truth = estimator_truths(c.specs, c.points, c.d);

  Eigen::MatrixXd x(points, c.d), y(points, c.d);
  for (std::size_t p = 0; p < points; ++p) {
    x.row(static_cast<Eigen::Index>(p)) = geometry_x(c.points[p], c.d).transpose();
    y.row(static_cast<Eigen::Index>(p)) = geometry_y(c.points[p], c.d).transpose();
  }

  // Buffers per thread and spec, reused by every trial the thread runs: a trial then allocates no feature matrix, so
  // the heap is not grown and trimmed per trial (docs/performance.md#tried-and-dropped). Their contents never carry
  // from one trial to the next.
  struct SpecBuffers {
    Eigen::MatrixXd w;
    KernelWorkspace kernel;
  };
  std::vector<std::vector<SpecBuffers>> buffers(static_cast<std::size_t>(c.threads), std::vector<SpecBuffers>(specs));

  Accumulator zero;
  zero.cells.resize(specs * points);
  zero.pairs.resize(pairs.size());
  Accumulator total = run_parallel_trials(
      c.trials, c.threads, zero,
      [&](std::int64_t trial, Accumulator& acc) {
        PhiloxStream rng(c.seed, c.stream, static_cast<std::uint64_t>(trial));
        std::vector<double> errors(pairs.empty() ? 0 : specs * points);
        const Eigen::MatrixXd w_all = draw_projection(c.coupling, RowNorms::chi, draw_rows, c.d, rng);
        std::vector<SpecBuffers>& mine = buffers[static_cast<std::size_t>(omp_get_thread_num())];
        for (std::size_t s = 0; s < specs; ++s) {
          Eigen::MatrixXd& w = mine[s].w;
          w = w_all.topRows(c.specs[s].m);
          if (row_norms_for(c.specs[s].estimator) == RowNorms::sqrt_d) rescale_rows_to_sqrt_d(w);
          const Eigen::VectorXd& est =
              estimate_kernel(c.specs[s].estimator, x, y, w, c.parameters, mine[s].kernel);
          for (std::size_t p = 0; p < points; ++p) {
            const double e = est(static_cast<Eigen::Index>(p)) - result.truth[s * points + p];
            if (!errors.empty()) errors[s * points + p] = e;
            SweepCell& cell = acc.cells[s * points + p];
            if (std::isfinite(e))
              cell.error.add(e);
            else
              ++cell.nonfinite;
          }
        }
        for (std::size_t k = 0; k < pairs.size(); ++k) {
          const double a = errors[pairs[k].first], b = errors[pairs[k].second];
          if (std::isfinite(a) && std::isfinite(b)) acc.pairs[k].add(a * a, b * b);
        }
      },
      progress, c.first_trial, initial);

  result.cells = std::move(total.cells);
  result.pairs = pairs;
  result.pair_covariance = std::move(total.pairs);
  result.evaluations = c.trials * static_cast<std::int64_t>(specs * points);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

SweepResult run_estimator_sweep(const SweepConfig& c, const ProgressFn& progress, const CellPairs& pairs) {
  return sweep(c, progress, pairs, nullptr);
}

void extend_estimator_sweep(const SweepConfig& c, SweepResult& r, const std::vector<std::size_t>& cells,
                            std::int64_t to_trials, const ProgressFn& progress) {
  if (!r.pairs.empty())
    throw std::invalid_argument("extend_estimator_sweep: the sweep tracks squared-error pairs, which it cannot extend");
  const std::size_t points = c.points.size();
  const auto trials_of = [&](std::size_t cell) { return r.cells[cell].error.count() + r.cells[cell].nonfinite; };
  for (std::size_t cell : cells) {
    if (cell >= r.cells.size())
      throw std::invalid_argument("extend_estimator_sweep: cell " + std::to_string(cell) + " beyond the " +
                                  std::to_string(r.cells.size()) + " cells of the sweep");
    if (trials_of(cell) >= to_trials)
      throw std::invalid_argument("extend_estimator_sweep: cell " + std::to_string(cell) + " already has " +
                                  std::to_string(trials_of(cell)) + " trials, not fewer than " +
                                  std::to_string(to_trials));
  }
  int max_m = 0;
  for (const auto& s : c.specs) max_m = std::max(max_m, s.m);
  // Cells at the same trial count continue together: one sub-sweep over the specs and points they name.
  std::vector<std::size_t> pending = cells;
  std::sort(pending.begin(), pending.end());
  pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
  while (!pending.empty()) {
    const std::int64_t from = trials_of(pending.front());
    std::vector<std::size_t> group, rest, spec_index, point_index;
    for (std::size_t cell : pending) (trials_of(cell) == from ? group : rest).push_back(cell);
    for (std::size_t cell : group) {
      spec_index.push_back(cell / points);
      point_index.push_back(cell % points);
    }
    for (auto* v : {&spec_index, &point_index}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    SweepConfig sub = c;
    sub.specs.clear();
    sub.points.clear();
    for (std::size_t s : spec_index) sub.specs.push_back(c.specs[s]);
    for (std::size_t p : point_index) sub.points.push_back(c.points[p]);
    sub.first_trial = from;
    sub.trials = to_trials - from;
    sub.draw_rows = std::max(max_m, c.draw_rows);  // the draw of the full sweep, whatever m the subset needs
    Accumulator initial;
    for (std::size_t s : spec_index)
      for (std::size_t p : point_index) initial.cells.push_back(r.cells[s * points + p]);
    const SweepResult part = sweep(sub, progress, {}, &initial);
    for (std::size_t cell : group) {
      const auto s = static_cast<std::size_t>(std::lower_bound(spec_index.begin(), spec_index.end(), cell / points) -
                                              spec_index.begin());
      const auto p = static_cast<std::size_t>(
          std::lower_bound(point_index.begin(), point_index.end(), cell % points) - point_index.begin());
      r.cells[cell] = part.cell(s, p);
    }
    r.evaluations += part.evaluations;
    r.seconds += part.seconds;
    pending = std::move(rest);
  }
}

double SweepResult::mse_covariance(std::size_t i, std::size_t j) const {
  if (i == j) {
    const double se = cells[i].error.mean_square_stderr();
    return se * se;
  }
  for (std::size_t k = 0; k < pairs.size(); ++k)
    if ((pairs[k].first == i && pairs[k].second == j) || (pairs[k].first == j && pairs[k].second == i))
      return pair_covariance[k].covariance() / static_cast<double>(pair_covariance[k].count());
  return std::numeric_limits<double>::quiet_NaN();
}

double mse_combination_stderr(const SweepResult& r, const std::vector<std::pair<std::size_t, double>>& terms) {
  double var = 0;
  for (const auto& [i, gi] : terms)
    for (const auto& [j, gj] : terms) var += gi * gj * r.mse_covariance(i, j);
  return var >= 0 ? std::sqrt(var) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace favorlab
