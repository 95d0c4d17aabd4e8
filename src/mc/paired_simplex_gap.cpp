#include "mc/paired_simplex_gap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "features/feature_family.hpp"
#include "features/feature_map.hpp"
#include "rng/uniform_index.hpp"
#include "runtime/eigen_threads.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

Eigen::MatrixXd simplex_twin_coefficients(int rows, int d) {
  if (d < 2 || rows < 1 || rows > d)
    throw std::invalid_argument("simplex twin rows need d >= 2 and 1 <= rows <= d, got rows = " +
                                std::to_string(rows) + ", d = " + std::to_string(d));
  // The Gram matrix (1 + 1/(d−1)) I − J/(d−1) has eigenvalue λ₁ = d/(d−1) across the all-ones vector and
  // λ₂ = (d−k)/(d−1) along it; at k = 1 the first term vanishes and λ₂ = 1, so C = [1] exactly.
  const double k = rows, l1 = d / (d - 1.0), l2 = (d - k) / (d - 1.0);
  const Eigen::MatrixXd mean = Eigen::MatrixXd::Constant(rows, rows, 1.0 / k);
  return std::sqrt(l1) * (Eigen::MatrixXd::Identity(rows, rows) - mean) + std::sqrt(l2) * mean;
}

Eigen::MatrixXd simplex_twin(const Eigen::MatrixXd& orthogonal, int d) {
  const int m = static_cast<int>(orthogonal.rows());
  Eigen::MatrixXd twin(m, orthogonal.cols());
  for (int start = 0; start < m; start += d) {
    const int k = std::min(d, m - start);
    if (k == 1) {  // C = [1]: the row itself, bit for bit
      twin.row(start) = orthogonal.row(start);
      continue;
    }
    // C = a I + b J, so row i is r_i (a f_i + b Σ_j f_j) with f_j = ω_j/r_j: O(k d) instead of O(k² d).
    const Eigen::MatrixXd c = simplex_twin_coefficients(k, d);
    const double b = c(0, 1), a = c(0, 0) - b;
    const Eigen::VectorXd norms = orthogonal.middleRows(start, k).rowwise().norm();
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(orthogonal.cols());
    for (int j = 0; j < k; ++j) sum += orthogonal.row(start + j) / norms(j);
    for (int i = 0; i < k; ++i)
      twin.row(start + i) = norms(i) * (a * (orthogonal.row(start + i) / norms(i)) + b * sum);
  }
  return twin;
}

double PairedSimplexGap::gate_skewness() const {
  return std::max(std::abs(gap_sample_skewness), std::abs(simplex.row_mse_skewness));
}

void PairedTrials::merge(const PairedTrials& other) {
  simplex.merge(other.simplex);
  orthogonal.merge(other.orthogonal);
  gap.merge(other.gap);
  nonfinite += other.nonfinite;
}

PairedSimplexGap paired_simplex_gap(Family e, const Geometry& g, int d, int m, std::int64_t trials,
                                    std::uint64_t seed, std::uint64_t stream, int threads, const RowProposal& q,
                                    const ProgressFn& progress, const PairedSimplexGap* from) {
  const double sm = check_importance_run(e, g, d, m, trials, threads);
  if (d < 2) throw std::invalid_argument("simplex random features need d >= 2, got d = " + std::to_string(d));
  if (q.sphere) throw std::invalid_argument("a sphere tilt is for smreg's rows of norm sqrt(d), not for paired rows");
  check_importance_proposal(q.proposal);
  const CoupledRowsProposal rows(Coupling::orthogonal, g, d, m, false, q);
  const ImportanceFrame& frame = rows.frame();
  const auto features = family_info(e).map->f64.features;  // the project's own map on both sets of rows
  const auto ratio = [&](const Eigen::MatrixXd& w) {
    Eigen::MatrixXd fx, fy;
    features(frame.x_row, w, fx);
    features(frame.y_row, w, fy);
    return fx.cwiseProduct(fy).sum() / sm;
  };
  const auto m2 = static_cast<std::uint64_t>(2 * m);
  const EigenSingleThread eigen_single_thread;  // the trials loop is the parallelism (runtime/eigen_threads.hpp)
  const std::int64_t first = first_continued_trial(trials, from != nullptr ? from->drawn : 0);
  const PairedTrials total = run_parallel_trials(
      trials - first, threads, PairedTrials{},
      [&](std::int64_t trial, PairedTrials& acc) {
        PhiloxStream rng(seed, stream, static_cast<std::uint64_t>(trial));
        Eigen::VectorXd xi(d);
        rng.normals(xi.data(), d);
        // A mixture over the 2m rows of both couplings: tilt orthogonal row J, or simplex row J (docs/theory.md).
        const auto pick = static_cast<int>(uniform_index(rng, m2));
        const int row = pick % m;
        const Eigen::VectorXd omega = rows.tilted_row(rng, xi);
        Eigen::MatrixXd w;
        rows.draw_blocks(w, rng);
        if (pick < m) {
          condition_block_on_row(w, d, row, omega);
        } else {
          // The shared frame reflected so that the twin's row J points along ω, and r_J = ‖ω‖: the twin's row J is ω.
          reflect_block(w, d, row, simplex_twin(w, d).row(row).transpose().normalized(), omega.normalized());
          w.row(row) *= omega.norm() / w.row(row).norm();
        }
        const Eigen::MatrixXd twin = simplex_twin(w, d);
        std::vector<double> log_ratios(static_cast<std::size_t>(2 * m));
        for (int i = 0; i < m; ++i) {
          log_ratios[static_cast<std::size_t>(i)] = rows.log_ratio(w.row(i).dot(frame.unit));
          log_ratios[static_cast<std::size_t>(m + i)] = rows.log_ratio(twin.row(i).dot(frame.unit));
        }
        const double weight = inverse_mean_ratio(log_ratios);
        const double ho = ratio(w), hs = ratio(twin);
        const double eo = ho - 1, es = hs - 1;
        const double values[] = {weight * ho, weight * eo * eo, weight * hs, weight * es * es,
                                 weight * (es - eo) * (es + eo)};
        if (!std::all_of(std::begin(values), std::end(values), [](double v) { return std::isfinite(v); })) {
          ++acc.nonfinite;
          return;
        }
        acc.orthogonal.estimate.add(values[0]);
        acc.orthogonal.squared.add(values[1]);
        acc.simplex.estimate.add(values[2]);
        acc.simplex.squared.add(values[3]);
        acc.gap.add(values[4]);
      },
      progress, first, from != nullptr ? &from->sums : nullptr);
  PairedSimplexGap result;
  result.simplex = coupled_report(total.simplex, sm, q, false);
  result.orthogonal = coupled_report(total.orthogonal, sm, q, false);
  result.simplex.nonfinite = result.orthogonal.nonfinite = result.nonfinite = total.nonfinite;
  result.trials = total.gap.count();
  result.gap = sm * sm * total.gap.mean();
  result.gap_stderr = sm * sm * total.gap.standard_error();
  result.gap_sample_skewness = total.gap.skewness();
  result.sums = total;
  result.drawn = total.gap.count() + total.nonfinite;
  return result;
}

}  // namespace favorlab
