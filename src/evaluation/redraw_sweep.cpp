#include "evaluation/redraw_sweep.hpp"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/favor_denominators.hpp"
#include "evaluation/attention_error.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {

void validate(const RedrawPlan& plan, const AttentionInput& in, const Eigen::MatrixXd& exact) {
  if (plan.jackknife_blocks < 1)
    throw std::invalid_argument("redraw: jackknife_blocks must be at least 1, got " +
                                std::to_string(plan.jackknife_blocks));
  if (plan.draws < plan.jackknife_blocks)
    throw std::invalid_argument("redraw: draws must be at least jackknife_blocks (" +
                                std::to_string(plan.jackknife_blocks) + "), got " + std::to_string(plan.draws));
  bool averages = false;
  for (int k : plan.ks) {
    if (k < 1) throw std::invalid_argument("redraw: k must be at least 1, got " + std::to_string(k));
    averages = averages || k > 1;
  }
  if (averages && plan.groups < 1)
    throw std::invalid_argument("redraw: groups must be at least 1, got " + std::to_string(plan.groups));
  if (exact.rows() != in.q.rows() || exact.cols() != in.v.cols())
    throw std::invalid_argument("redraw: the exact output is " + std::to_string(exact.rows()) + "x" +
                                std::to_string(exact.cols()) + ", the input's output " +
                                std::to_string(in.q.rows()) + "x" + std::to_string(in.v.cols()));
}

}  // namespace

std::int64_t redraw_forwards(const RedrawPlan& plan) {
  std::int64_t forwards = plan.draws;
  for (int k : plan.ks)
    if (k > 1) forwards += static_cast<std::int64_t>(k) * plan.groups;
  return forwards;
}

RedrawSweep run_redraw_sweep(const AttentionInput& in, const Eigen::MatrixXd& exact, const AttentionConfig& config,
                             const RedrawPlan& plan, std::uint64_t seed, Backend backend, int threads,
                             const ProgressFn& progress) {
  validate(plan, in, exact);
  const int d = static_cast<int>(in.q.cols());
  check_attention_inputs<double>({in.q}, {in.k}, {in.v}, draw_attention_projection(config, d, seed, 0), config);
  const int loop_threads = host_threads_for(backend, threads);  // loops of forwards: one host thread drives a GPU
  const std::int64_t total = redraw_forwards(plan);
  std::int64_t done = 0;
  auto tick = [&] {
#pragma omp critical(favorlab_redraw_progress)
    {
      ++done;
      if (progress && (done % 16 == 0 || done == total)) progress(done, total);
    }
  };
  auto output_of_draw = [&](std::int64_t draw) {
    const Eigen::MatrixXd w = draw_attention_projection(config, d, seed, static_cast<std::uint64_t>(draw));
    return attend_double_on_backend(backend, {in.q}, {in.k}, {in.v}, w, config).front();
  };

  // The N single draws, in jackknife blocks of consecutive draws (one task per block: deterministic sums).
  const std::int64_t n = plan.draws, nb = plan.jackknife_blocks;
  RedrawSweep sweep;
  sweep.draw_mse.resize(static_cast<std::size_t>(n));
  sweep.blocks.assign(static_cast<std::size_t>(nb), ErrorBlock(exact.rows(), exact.cols()));
  std::vector<std::int64_t> nonfinite(static_cast<std::size_t>(nb), 0);  // per block, summed in block order
  parallel_for(nb, loop_threads, [&](std::int64_t b) {
    for (std::int64_t r = n * b / nb, last = n * (b + 1) / nb; r < last; ++r) {
      const Eigen::MatrixXd out = output_of_draw(r);
      sweep.draw_mse[static_cast<std::size_t>(r)] = output_mse(out, exact);
      if (out.allFinite())
        sweep.blocks[static_cast<std::size_t>(b)].add(out - exact);
      else
        ++nonfinite[static_cast<std::size_t>(b)];
      tick();
    }
  });
  sweep.nonfinite_draws = std::accumulate(nonfinite.begin(), nonfinite.end(), std::int64_t{0});

  // Groups of k fresh draws for each k ≥ 2, numbered on from N.
  std::int64_t next_draw = n;
  const double entries = static_cast<double>(exact.size());
  for (int k : plan.ks) {
    sweep.group_mse.emplace_back();
    sweep.group_cross.emplace_back();
    if (k == 1) continue;
    std::vector<double>& group_mse = sweep.group_mse.back();
    group_mse.resize(static_cast<std::size_t>(plan.groups));
    std::vector<double>& group_cross = sweep.group_cross.back();
    group_cross.resize(static_cast<std::size_t>(plan.groups));
    const std::int64_t base = next_draw;
    parallel_for(plan.groups, loop_threads, [&](int g) {
      Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(exact.rows(), exact.cols());
      double own = 0;  // Σ_j ‖e_j‖²
      for (int j = 0; j < k; ++j) {
        const Eigen::MatrixXd out = output_of_draw(base + static_cast<std::int64_t>(g) * k + j);
        own += (out - exact).squaredNorm();
        sum += out;
        tick();
      }
      group_mse[static_cast<std::size_t>(g)] = output_mse(sum / k, exact);
      // Σ_{j≠l} ⟨e_j, e_l⟩ = ‖Σ_j e_j‖² − Σ_j ‖e_j‖²: the cancellation loses at most ε·Σ‖e_j‖², far below the
      // sampling noise of U.
      const double cross = ((sum - k * exact).squaredNorm() - own) / (static_cast<double>(k) * (k - 1) * entries);
      group_cross[static_cast<std::size_t>(g)] =
          std::isfinite(own) && sum.allFinite() ? cross : std::numeric_limits<double>::quiet_NaN();
    });
    next_draw += static_cast<std::int64_t>(k) * plan.groups;
  }
  sweep.negative = first_negative_normalizer(in, config, seed, n, backend);
  return sweep;
}

NegativeNormalizer first_negative_normalizer(const AttentionInput& in, const AttentionConfig& config,
                                             std::uint64_t seed, std::int64_t limit, Backend backend) {
  NegativeNormalizer found;
  if (!config.renormalize || config.mechanism != Mechanism::favor || family_info(config.features).positive)
    return found;
  const int d = static_cast<int>(in.q.cols());
  // In draw order, one at a time: the first draw found is the same at any thread count (usually one of the first).
  for (std::int64_t r = 0; r < limit; ++r) {
    const Eigen::MatrixXd w = draw_attention_projection(config, d, seed, static_cast<std::uint64_t>(r));
    const Eigen::VectorXd den = favor_denominators(in.q, in.k, w, config, backend);
    Eigen::Index row = 0;
    const double least = den.minCoeff(&row);
    if (least < 0) return {r, row, least};
  }
  return found;
}

}  // namespace favorlab
