#include "perf/permute_overhead.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <string>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/permute_attention.hpp"
#include "attention/random_inputs.hpp"
#include "io/format_number.hpp"
#include "perf/interleaved_timing.hpp"
#include "perf/memory_estimate.hpp"
#include "perm/permutation.hpp"
#include "stats/counted_check.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

namespace {

Json overhead_row(bool causal, std::int64_t L, int m, const PermuteOverheadGrid& grid, double favor, double permute) {
  return Json{{"kind", "overhead"},          {"mode", causal ? "causal" : "bidirectional"},
              {"L", L},                      {"m", m},
              {"d", grid.d},                 {"repeats", grid.repeats},
              {"favor_seconds", favor},      {"permute_seconds", permute},
              {"time_ratio", permute / favor}, {"threads", 1}};
}

Check target_line(bool causal, const CountedCheck& t, const PermuteOverheadGrid& grid) {
  return measured_check(
      "Target: PermuteFormer as fast as Performer, time ratio <= " + format_number(grid.target) + " at m = 256 (" +
          (causal ? "causal" : "bidirectional") + ")",
      "positive features, float32, d=" + std::to_string(grid.d) + ", one thread, median of " +
          std::to_string(grid.repeats) + " interleaved runs",
      t.worst * grid.target, grid.target,
      std::to_string(t.points - t.failed) + " of " + std::to_string(t.points) +
          " lengths within the target; largest time ratio " + format_number(t.worst * grid.target, 4) + " at " +
          t.where + "; a wall-clock measurement on a possibly shared machine, never judged");
}

}  // namespace

void measure_permute_overhead(const PermuteOverheadGrid& grid, Result& result) {
  const int eigen_threads = Eigen::nbThreads();
  Eigen::setNbThreads(1);
  double checksum = 0;
  CountedCheck tally[2];
  for (int causal = 0; causal < 2; ++causal)
    for (int m : grid.m)
      for (std::int64_t L : grid.lengths) {
        AttentionConfig config;
        config.m = m;
        config.causal = causal == 1;
        config.chunk = grid.chunk;
        const Eigen::MatrixXd w = draw_attention_projection(config, grid.d, grid.seed, 0);
        const auto L32 = static_cast<int>(L);
        const auto input = [&](std::uint64_t part) {
          return gaussian_input(L32, grid.d, 1.0, grid.seed, grid.input_stream + part, 0).cast<float>();
        };
        const Heads<float> q{input(0)}, k{input(1)}, v{input(2)};
        const std::vector<PermuteHead> heads{
            {random_permutation(m, grid.seed, grid.perm_stream, 0), std::nullopt, causal ? grid.r : 1.0}};
        const auto seconds = time_interleaved(
            grid.repeats,
            {[&] { checksum += attend<float>(q, k, v, w, config, 1)[0](0, 0); },
             [&] { checksum += permute_attend<float>(q, k, v, w, config, heads, PermuteLayout::line(), 1)[0](0, 0); }});
        const double favor = sample_median(seconds[0]), permute = sample_median(seconds[1]);
        result.rows.push_back(overhead_row(causal == 1, L, m, grid, favor, permute));
        if (m == 256) tally[causal].add(permute / favor / grid.target, "L=" + std::to_string(L));
      }
  Eigen::setNbThreads(eigen_threads);
  result.measurements["overhead_checksum"] = checksum;
  for (int causal = 0; causal < 2; ++causal)
    if (tally[causal].points > 0) result.checks.push_back(target_line(causal == 1, tally[causal], grid));
}

double permute_overhead_bytes(const PermuteOverheadGrid& grid) {
  using namespace memory;
  double most = 0;
  for (std::int64_t length : grid.lengths)
    for (int mo : grid.m) {
      const double L = static_cast<double>(length), d = grid.d, m = mo;
      AttendShape a{1, L, L, d, d, m, m};
      a.scalar = kFloat;
      double forward = 0;
      for (bool causal : {false, true}) {
        a.causal = causal;
        a.permute = false;
        forward = std::max(forward, attend_bytes(a, 1));
        a.permute = true;
        forward = std::max(forward, attend_bytes(a, 1));
      }
      most =
          std::max(most, projection_bytes(Coupling::orthogonal, mo, grid.d) + L * d * (5 * kFloat + kDouble) + forward);
    }
  return most;
}

}  // namespace favorlab
