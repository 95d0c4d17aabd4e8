#include "evaluation/kernel_denominators.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention_projection.hpp"
#include "attention/favor_denominators.hpp"
#include "evaluation/attention_error.hpp"
#include "mc/indexed_trials.hpp"

namespace favorlab {

void DenominatorStats::merge(const DenominatorStats& o) {
  min_denominator = std::min(min_denominator, o.min_denominator);
  min_denominator_ratio = std::min(min_denominator_ratio, o.min_denominator_ratio);
  nonpositive += o.nonpositive;
  denominators += o.denominators;
  nonfinite_denominators += o.nonfinite_denominators;
  nonfinite_outputs += o.nonfinite_outputs;
  nonfinite_draws += o.nonfinite_draws;
  mse.merge(o.mse);
}

ExactSoftmax exact_softmax(const AttentionInput& input, Backend backend) {
  AttentionConfig config;
  config.mechanism = Mechanism::exact;
  const Eigen::MatrixXd none(0, input.q.cols());
  return {attend_double_on_backend(backend, {input.q}, {input.k}, {input.v}, none, config).front(),
          favor_denominators(input.q, input.k, none, config, backend)};
}

DenominatorStats denominator_stats(const Eigen::VectorXd& denominators, const Eigen::MatrixXd& output,
                                   const ExactSoftmax& exact) {
  if (denominators.size() != exact.denominators.size())
    throw std::invalid_argument("denominator_stats: " + std::to_string(denominators.size()) +
                                " denominators against " + std::to_string(exact.denominators.size()) + " exact");
  if (output.rows() != exact.output.rows() || output.cols() != exact.output.cols())
    throw std::invalid_argument("denominator_stats: the output's shape differs from the exact output's");
  DenominatorStats acc;
  for (Eigen::Index i = 0; i < denominators.size(); ++i) {
    const double den = denominators[i];
    if (!std::isfinite(den)) {
      ++acc.nonfinite_denominators;
      continue;
    }
    ++acc.denominators;
    acc.nonpositive += den <= 0;
    acc.min_denominator = std::min(acc.min_denominator, den);
    acc.min_denominator_ratio = std::min(acc.min_denominator_ratio, den / exact.denominators[i]);
  }
  const std::int64_t bad = output.size() - (output.array().isFinite()).count();
  acc.nonfinite_outputs += bad;
  if (bad > 0) ++acc.nonfinite_draws;
  else acc.mse.add(output_mse(output, exact.output));
  return acc;
}

DenominatorStats favor_denominator_draws(const AttentionInput& input, const ExactSoftmax& exact,
                                         const AttentionConfig& config, std::uint64_t seed, std::uint64_t first_draw,
                                         std::int64_t draws, int threads, Backend backend,
                                         const ProgressFn& progress) {
  if (draws < 0)
    throw std::invalid_argument("favor_denominator_draws: draws must be >= 0, got " + std::to_string(draws));
  const int d = static_cast<int>(input.q.cols());
  // Few draws: one task per draw, reduced in draw order.
  const std::vector<DenominatorStats> per_draw = run_indexed_trials<DenominatorStats>(
      draws, host_threads_for(backend, threads),
      [&](std::int64_t t) {
        const Eigen::MatrixXd w = draw_attention_projection(config, d, seed, first_draw + std::uint64_t(t));
        const Eigen::VectorXd den = favor_denominators(input.q, input.k, w, config, backend);
        const Eigen::MatrixXd out =
            attend_double_on_backend(backend, {input.q}, {input.k}, {input.v}, w, config).front();
        return denominator_stats(den, out, exact);
      },
      progress);
  DenominatorStats all;
  for (const DenominatorStats& one : per_draw) all.merge(one);
  return all;
}

}  // namespace favorlab
