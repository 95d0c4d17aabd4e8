#include "evaluation/attention_report.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/half_inputs.hpp"
#include "evaluation/attention_baselines.hpp"
#include "evaluation/attention_error.hpp"
#include "runtime/parallel_for.hpp"

namespace favorlab {

namespace {

AttentionConfig favor_config(const ReportArm& arm, int m) {
  AttentionConfig c;
  c.features = arm.features;
  c.coupling = arm.coupling;
  c.causal = arm.causal;
  c.m = m;
  return c;
}

AttentionConfig exact_config(bool causal) {
  AttentionConfig c;
  c.mechanism = Mechanism::exact;
  c.causal = causal;
  return c;
}

bool uses_matrix(const ReportSettings& s, int L) {
  if (L > s.matrix_max_L) return false;
  for (const auto& arm : s.arms)
    if (!arm.causal) return true;
  return false;
}

void validate(const AttentionInput& head, const ReportSettings& s) {
  if (s.arms.empty()) throw std::invalid_argument("attention report: no arms");
  if (s.ms.empty()) throw std::invalid_argument("attention report: no m values");
  if (s.draws < 2 || s.draws > kMaxReportDraws)
    throw std::invalid_argument("attention report: draws must lie in [2, " + std::to_string(kMaxReportDraws) +
                                "], got " + std::to_string(s.draws));
  if (head.q.rows() == 0 || head.k.rows() == 0 || head.q.cols() == 0 || head.v.cols() == 0)
    throw std::invalid_argument("attention report: an empty head");
  const int d = static_cast<int>(head.q.cols());
  // Causal masking needs as many queries as keys; check it only where some arm is causal (cross-attention heads,
  // Lq ≠ L, are fine bidirectionally).
  bool any_causal = false;
  for (const auto& arm : s.arms) any_causal = any_causal || arm.causal;
  check_attention_inputs<double>({head.q}, {head.k}, {head.v}, Eigen::MatrixXd(0, d), exact_config(any_causal));
  for (const auto& arm : s.arms)
    for (int m : s.ms) {
      const AttentionConfig c = favor_config(arm, m);
      validate_attention_config(c, d);
    }
}

// Exact outputs and their baselines, per mode that some arm uses: exact[mode] (left empty for a mode no arm uses)
// and r.modes[mode] (r.d already set); step() once per mode, for progress.
template <class Step>
void exact_baselines(const AttentionInput& head, const ReportSettings& s, HeadReport& r, Eigen::MatrixXd (&exact)[2],
                     const Step& step) {
  const Heads<float> qf{head.q.cast<float>()}, kf{head.k.cast<float>()}, vf{head.v.cast<float>()};
  const Heads<float> qb = rounded_as<float>(HalfInputs::bfloat16, {head.q}, "Q"),
                     kb = rounded_as<float>(HalfInputs::bfloat16, {head.k}, "K"),
                     vb = rounded_as<float>(HalfInputs::bfloat16, {head.v}, "V");
  for (int mode = 0; mode < 2; ++mode) {
    bool used = false;
    for (const auto& arm : s.arms) used = used || arm.causal == (mode == 1);
    if (used) {
      const AttentionConfig c = exact_config(mode == 1);
      exact[mode] = attend<double>({head.q}, {head.k}, {head.v}, Eigen::MatrixXd(0, r.d), c, s.threads).front();
      ModeBaselines& b = r.modes[mode];
      b.present = true;
      b.output_mean_square = exact[mode].squaredNorm() / static_cast<double>(exact[mode].size());
      const Eigen::MatrixXd uniform = uniform_attention_output(head.v, head.q.rows(), mode == 1);
      b.uniform_mse = output_mse(uniform, exact[mode]);
      b.uniform_relative = relative_output_error(uniform, exact[mode]);
      const Eigen::MatrixXd f32 =
          attend<float>(qf, kf, vf, Eigen::MatrixXd(0, r.d), c, s.threads).front().cast<double>();
      b.f32_mse = output_mse(f32, exact[mode]);
      b.f32_relative = relative_output_error(f32, exact[mode]);
      const Eigen::MatrixXd bf16 =
          attend<float>(qb, kb, vb, Eigen::MatrixXd(0, r.d), c, s.threads).front().cast<double>();
      b.bf16_mse = output_mse(bf16, exact[mode]);
      b.bf16_relative = relative_output_error(bf16, exact[mode]);
    }
    step();
  }
}

}  // namespace

std::uint64_t report_draw_index(std::uint64_t head_index, int draw) {
  return (head_index << 20) + static_cast<std::uint64_t>(draw);
}

std::vector<ReportArm> report_arms(const std::vector<Family>& features, const std::vector<Coupling>& couplings,
                                   const std::vector<bool>& causal_modes) {
  std::vector<ReportArm> arms;
  for (const bool causal : causal_modes)
    for (Coupling c : couplings)
      for (Family f : features)
        if (!(causal && family_info(f).data_dependent)) arms.push_back({f, c, causal});
  return arms;
}

std::int64_t report_head_tasks(const ReportSettings& s, int L) {
  std::int64_t tasks = static_cast<std::int64_t>(s.arms.size() * s.ms.size()) * s.draws;
  return tasks + 2 + (uses_matrix(s, L) ? 1 : 0);  // + exact outputs (2 modes) + matrix and SVD
}

HeadReport report_head(const AttentionInput& head, const ReportSettings& s, std::uint64_t head_index,
                       const std::function<void()>& tick) {
  validate(head, s);
  HeadReport r;
  r.Lq = static_cast<int>(head.q.rows());
  r.L = static_cast<int>(head.k.rows());
  r.d = static_cast<int>(head.q.cols());
  r.dv = static_cast<int>(head.v.cols());
  auto step = [&] {
    if (tick) {
#pragma omp critical(favorlab_report_progress)
      tick();
    }
  };
  r.diagnostics = head_diagnostics(head.q, head.k);

  // Exact outputs and their baselines, per mode that some arm uses.
  Eigen::MatrixXd exact[2];
  exact_baselines(head, s, r, exact, step);

  Eigen::MatrixXd a;
  if (uses_matrix(s, r.L)) {
    a = attention_matrix<double>(head.q, head.k, Eigen::MatrixXd(0, r.d), exact_config(false), s.threads);
    r.matrix = true;
    r.matrix_norm = a.norm();
    r.uniform_matrix_error = (a.array() - 1.0 / r.L).matrix().norm();
    r.truncation = rank_truncation_errors(singular_values(a));
    step();
  }

  const auto n_arms = s.arms.size(), n_ms = s.ms.size();
  r.points.assign(n_arms, std::vector<ArmPoint>(n_ms));
  for (std::size_t ai = 0; ai < n_arms; ++ai)
    for (std::size_t mi = 0; mi < n_ms; ++mi) {
      ArmPoint& p = r.points[ai][mi];
      p.columns = feature_columns(favor_config(s.arms[ai], s.ms[mi]), r.d);
      p.mse.assign(static_cast<std::size_t>(s.draws), 0.0);
      p.relative.assign(static_cast<std::size_t>(s.draws), 0.0);
      if (r.matrix && !s.arms[ai].causal) p.matrix_error.assign(static_cast<std::size_t>(s.draws), 0.0);
    }
  const std::int64_t draws = s.draws, tasks = static_cast<std::int64_t>(n_arms * n_ms) * draws;
  parallel_for(tasks, s.threads, [&](std::int64_t t) {
    const auto ai = static_cast<std::size_t>(t / (static_cast<std::int64_t>(n_ms) * draws));
    const auto mi = static_cast<std::size_t>((t / draws) % static_cast<std::int64_t>(n_ms));
    const int draw = static_cast<int>(t % draws);
    const ReportArm& arm = s.arms[ai];
    const AttentionConfig c = favor_config(arm, s.ms[mi]);
    const Eigen::MatrixXd w = draw_attention_projection(c, r.d, s.seed, report_draw_index(head_index, draw));
    const Eigen::MatrixXd out = attend<double>({head.q}, {head.k}, {head.v}, w, c, 1).front();
    ArmPoint& p = r.points[ai][mi];
    const Eigen::MatrixXd& reference = exact[arm.causal ? 1 : 0];
    p.mse[static_cast<std::size_t>(draw)] = output_mse(out, reference);
    p.relative[static_cast<std::size_t>(draw)] = relative_output_error(out, reference);
    if (!p.matrix_error.empty()) {
      const Eigen::MatrixXd a_hat = attention_matrix<double>(head.q, head.k, w, c, 1);
      p.matrix_error[static_cast<std::size_t>(draw)] =
          a_hat.allFinite() ? (a_hat - a).norm() : std::numeric_limits<double>::infinity();
    }
    step();
  });
  return r;
}

std::vector<std::vector<double>> arm_draw_mse(const AttentionInput& head, const ReportArm& arm,
                                              const ReportSettings& s, std::uint64_t head_index, int first,
                                              int count) {
  ReportSettings one = s;
  one.arms = {arm};
  one.draws = std::max(2, count);  // validate's lower bound concerns a report's draws, not a batch's
  validate(head, one);
  if (first < 0 || count < 0 || first > kMaxReportDraws - count)
    throw std::invalid_argument("attention report: draws " + std::to_string(first) + " to " +
                                std::to_string(first + count) + " lie outside [0, " + std::to_string(kMaxReportDraws) +
                                ")");
  const int d = static_cast<int>(head.q.cols());
  const Eigen::MatrixXd exact =
      attend<double>({head.q}, {head.k}, {head.v}, Eigen::MatrixXd(0, d), exact_config(arm.causal), s.threads).front();
  const std::int64_t n_ms = static_cast<std::int64_t>(s.ms.size()), tasks = n_ms * count;
  std::vector<std::vector<double>> mse(s.ms.size(), std::vector<double>(static_cast<std::size_t>(count)));
  parallel_for(tasks, s.threads, [&](std::int64_t t) {
    const auto mi = static_cast<std::size_t>(t / count);
    const int draw = first + static_cast<int>(t % count);
    const AttentionConfig c = favor_config(arm, s.ms[mi]);
    const Eigen::MatrixXd w = draw_attention_projection(c, d, s.seed, report_draw_index(head_index, draw));
    const Eigen::MatrixXd out = attend<double>({head.q}, {head.k}, {head.v}, w, c, 1).front();
    mse[mi][static_cast<std::size_t>(draw - first)] = output_mse(out, exact);
  });
  return mse;
}

std::vector<double> error_slopes(const std::vector<int>& ms, const std::vector<std::vector<double>>& mse_by_m) {
  if (mse_by_m.size() != ms.size()) throw std::invalid_argument("error slopes: one MSE list per m needed");
  const std::size_t draws = ms.empty() ? 0 : mse_by_m.front().size();
  std::vector<double> slopes(draws, std::numeric_limits<double>::quiet_NaN());
  if (ms.size() < 2) return slopes;
  double mean_x = 0;
  for (int m : ms) mean_x += std::log(static_cast<double>(m));
  mean_x /= static_cast<double>(ms.size());
  double sxx = 0;
  for (int m : ms) sxx += (std::log(static_cast<double>(m)) - mean_x) * (std::log(static_cast<double>(m)) - mean_x);
  if (!(sxx > 0)) return slopes;
  for (std::size_t r = 0; r < draws; ++r) {
    double sxy = 0;
    bool usable = true;
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const double e = mse_by_m[i].at(r);
      if (!(e > 0) || !std::isfinite(e)) usable = false;
      else sxy += (std::log(static_cast<double>(ms[i])) - mean_x) * std::log(e);
    }
    if (usable) slopes[r] = sxy / sxx;
  }
  return slopes;
}

}  // namespace favorlab
