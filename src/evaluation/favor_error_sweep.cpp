#include "evaluation/favor_error_sweep.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>
#include <utility>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "evaluation/attention_error.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {
// Streams of the synthetic Q, K and V (disjoint from the projection stream and the Monte Carlo drivers' streams).
constexpr std::uint64_t kQueryStream = 0xA77E'1000ULL, kKeyStream = 0xA77E'1001ULL, kValueStream = 0xA77E'1002ULL;
}  // namespace

AttentionInput gaussian_attention_input(int L, int d, int dv, double qk_scale, double v_scale, std::uint64_t seed,
                                        std::uint64_t index) {
  return {gaussian_input(L, d, qk_scale, seed, kQueryStream, index),
          gaussian_input(L, d, qk_scale, seed, kKeyStream, index),
          gaussian_input(L, dv, v_scale, seed, kValueStream, index)};
}

std::vector<std::vector<double>> favor_output_mse(const std::vector<AttentionInput>& inputs,
                                                  const std::vector<AttentionConfig>& configs, std::uint64_t seed,
                                                  int threads, const ProgressFn& progress, Backend backend,
                                                  std::uint64_t first_index) {
  require_backend(backend);
  if (inputs.empty()) throw std::invalid_argument("attention error sweep: no inputs");
  const auto& first = inputs.front();
  for (const auto& in : inputs)
    if (in.q.rows() != first.q.rows() || in.q.cols() != first.q.cols() || in.k.rows() != first.k.rows() ||
        in.v.cols() != first.v.cols())
      throw std::invalid_argument("attention error sweep: the inputs have different shapes");
  const int d = static_cast<int>(first.q.cols());
  for (const auto& c : configs) {
    validate_attention_config(c, d);
    check_attention_inputs<double>({first.q}, {first.k}, {first.v}, draw_attention_projection(c, d, seed, 0), c);
  }

  // The exact references: one per (input, causal, renormalize) that some configuration needs.
  std::map<std::pair<bool, bool>, std::size_t> modes;
  for (const auto& c : configs) modes.emplace(std::pair{c.causal, c.renormalize}, modes.size());
  std::vector<std::pair<bool, bool>> mode_list(modes.size());
  for (const auto& [mode, index] : modes) mode_list[index] = mode;
  const std::int64_t n_inputs = static_cast<std::int64_t>(inputs.size());
  const std::int64_t exact_tasks = n_inputs * static_cast<std::int64_t>(mode_list.size());
  const std::int64_t favor_tasks = n_inputs * static_cast<std::int64_t>(configs.size());
  const std::int64_t total = exact_tasks + favor_tasks;
  std::atomic<std::int64_t> done{0};
  auto tick = [&] {
    const std::int64_t now = ++done;
    if (progress) {
#pragma omp critical(favorlab_sweep_progress)
      progress(now, total);
    }
  };

  const int loop_threads = host_threads_for(backend, threads);
  std::vector<Eigen::MatrixXd> exact(static_cast<std::size_t>(exact_tasks));
  parallel_for(exact_tasks, loop_threads, [&](std::int64_t t) {
    const auto& in = inputs[static_cast<std::size_t>(t % n_inputs)];
    const auto [causal, renormalize] = mode_list[static_cast<std::size_t>(t / n_inputs)];
    AttentionConfig c;
    c.mechanism = Mechanism::exact;
    c.causal = causal;
    c.renormalize = renormalize;
    exact[static_cast<std::size_t>(t)] =
        attend_double_on_backend(backend, {in.q}, {in.k}, {in.v}, Eigen::MatrixXd(0, d), c).front();
    tick();
  });

  std::vector<std::vector<double>> mse(configs.size(), std::vector<double>(inputs.size()));
  // Largest configurations first would balance better, but task order does not affect the numbers either way.
  parallel_for(favor_tasks, loop_threads, [&](std::int64_t t) {
    const std::size_t ci = static_cast<std::size_t>(t / n_inputs), ii = static_cast<std::size_t>(t % n_inputs);
    const AttentionConfig& c = configs[ci];
    const auto& in = inputs[ii];
    const Eigen::MatrixXd w = draw_attention_projection(c, d, seed, first_index + ii);
    const Eigen::MatrixXd out = attend_double_on_backend(backend, {in.q}, {in.k}, {in.v}, w, c).front();
    const std::size_t mode = modes.at({c.causal, c.renormalize});
    mse[ci][ii] = output_mse(out, exact[mode * inputs.size() + ii]);
    tick();
  });
  return mse;
}

std::vector<std::vector<double>> gaussian_output_mse(const GaussianInputShape& shape,
                                                     const std::vector<AttentionConfig>& configs, std::uint64_t seed,
                                                     std::int64_t first, std::int64_t count, int threads,
                                                     const ProgressFn& progress, Backend backend) {
  if (count < 0 || first < 0) throw std::invalid_argument("attention error sweep: a negative input range");
  std::vector<std::vector<double>> mse(configs.size());
  // A chunk keeps every thread busy with (configuration, input) tasks while holding a few dozen inputs.
  const std::int64_t chunk = std::max<std::int64_t>(32, 4 * static_cast<std::int64_t>(std::max(threads, 1)));
  for (std::int64_t from = first; from < first + count; from += chunk) {
    const std::int64_t to = std::min(first + count, from + chunk);
    std::vector<AttentionInput> inputs;
    for (std::int64_t i = from; i < to; ++i)
      inputs.push_back(gaussian_attention_input(shape.L, shape.d, shape.dv, shape.qk_scale, shape.v_scale, seed,
                                                static_cast<std::uint64_t>(i)));
    const ProgressFn part = progress ? ProgressFn([&](std::int64_t done, std::int64_t total) {
      progress((from - first) * total / (to - from) + done, count * total / (to - from));
    })
                                     : ProgressFn{};
    const auto part_mse =
        favor_output_mse(inputs, configs, seed, threads, part, backend, static_cast<std::uint64_t>(from));
    for (std::size_t c = 0; c < configs.size(); ++c)
      mse[c].insert(mse[c].end(), part_mse[c].begin(), part_mse[c].end());
  }
  return mse;
}

}  // namespace favorlab
