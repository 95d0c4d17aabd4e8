#include "mc/smreg_tail_sweep.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "rng/philox_stream.hpp"

namespace favorlab {

namespace {

void validate(const TailSweepConfig& c) {
  if (c.d <= 0) throw std::invalid_argument("--d must be positive, got " + std::to_string(c.d));
  if (c.ms.empty()) throw std::invalid_argument("--m needs at least one value");
  for (int m : c.ms) {
    if (m <= 0) throw std::invalid_argument("--m values must be positive, got " + std::to_string(m));
    if (m > c.d)
      throw std::invalid_argument("--m values must be <= d (Theorem 3 needs m <= d), got m = " + std::to_string(m) +
                                  " with d = " + std::to_string(c.d));
  }
  if (c.points.empty()) throw std::invalid_argument("tail sweep needs at least one geometry");
  if (c.thresholds.size() != c.points.size())
    throw std::invalid_argument("tail sweep needs one threshold list per geometry");
  for (const auto& g : c.points) validate_geometry(g, c.d);
  if (c.trials < 1) throw std::invalid_argument("--trials must be >= 1, got " + std::to_string(c.trials));
  if (c.threads < 1) throw std::invalid_argument("--threads must be >= 1, got " + std::to_string(c.threads));
}

struct Counts {
  std::vector<std::int64_t> exceed, nonfinite;
  auto fields() { return std::tie(exceed, nonfinite); }  // for the exchange between MPI ranks (block_codec.hpp)
  void merge(const Counts& o) {
    for (std::size_t i = 0; i < exceed.size(); ++i) exceed[i] += o.exceed[i];
    for (std::size_t i = 0; i < nonfinite.size(); ++i) nonfinite[i] += o.nonfinite[i];
  }
};

}  // namespace

TailSweepResult run_smreg_tail_sweep(const TailSweepConfig& c, const ProgressFn& progress) {
  validate(c);
  const std::size_t points = c.points.size(), nm = c.ms.size();
  std::size_t stride = 1;
  for (const auto& t : c.thresholds) stride = std::max(stride, t.size());
  const int max_m = *std::max_element(c.ms.begin(), c.ms.end());
  // The m values in increasing order, so one running sum over the rows serves them all.
  std::vector<std::size_t> order(nm);
  for (std::size_t i = 0; i < nm; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return c.ms[i] < c.ms[j]; });

  // z = x + y for every point (the estimate depends on x and y only through z and Λ), as the columns of one matrix.
  Eigen::MatrixXd z(c.d, static_cast<Eigen::Index>(points));
  std::vector<double> lambda(points);
  for (std::size_t p = 0; p < points; ++p) {
    z.col(static_cast<Eigen::Index>(p)) = geometry_x(c.points[p], c.d) + geometry_y(c.points[p], c.d);
    lambda[p] = std::exp(c.points[p].log_lambda());
  }

  Counts zero{std::vector<std::int64_t>(nm * points * stride, 0), std::vector<std::int64_t>(nm * points, 0)};
  const auto start = std::chrono::steady_clock::now();
  const Counts total = run_parallel_trials(
      c.trials, c.threads, zero,
      [&](std::int64_t trial, Counts& acc) {
        PhiloxStream rng(c.seed, c.stream, static_cast<std::uint64_t>(trial));
        const Eigen::MatrixXd w = draw_projection(c.coupling, RowNorms::sqrt_d, max_m, c.d, rng);
        const Eigen::MatrixXd features = (w * z).array().exp().matrix();  // max_m × points: exp(ω_iᵀz)
        for (std::size_t p = 0; p < points; ++p) {
          // Running sums over the rows give every m's estimate from one pass over the column.
          double sum = 0;
          int rows = 0;
          for (std::size_t mi : order) {
            for (; rows < c.ms[mi]; ++rows) sum += features(rows, static_cast<Eigen::Index>(p));
            const double estimate = lambda[p] * sum / c.ms[mi];
            if (!std::isfinite(estimate)) {
              ++acc.nonfinite[mi * points + p];
              continue;
            }
            const auto& a = c.thresholds[p];
            std::int64_t* out = &acc.exceed[(mi * points + p) * stride];
            for (std::size_t k = 0; k < a.size(); ++k) out[k] += estimate > a[k];
          }
        }
      },
      progress);
  TailSweepResult r;
  r.exceed = total.exceed;
  r.nonfinite = total.nonfinite;
  r.points = points;
  r.stride = stride;
  r.trials = c.trials;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace favorlab
