#include "evaluation/favor_error_summary.hpp"

#include <cmath>
#include <stdexcept>

#include "attention/attend.hpp"
#include "features/projection.hpp"
#include "io/join_list.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"
#include "stats/running_moments.hpp"

namespace favorlab {

AttentionConfig FavorArm::config() const {
  AttentionConfig c;
  c.features = features;
  c.coupling = coupling;
  c.m = m;
  c.causal = causal;
  return c;
}

std::vector<FavorArm> favor_arm_grid(const std::vector<bool>& causal_modes, const std::vector<Coupling>& couplings,
                                     const std::vector<Family>& features, const std::vector<int>& ms) {
  std::vector<FavorArm> arms;
  for (bool causal : causal_modes)
    for (Coupling c : couplings)
      for (Family f : features)
        for (int m : ms) arms.push_back({causal, c, f, m});
  return arms;
}

std::size_t find_favor_arm(const std::vector<FavorArm>& arms, const FavorArm& arm) {
  for (std::size_t a = arms.size(); a-- > 0;)
    if (arms[a] == arm) return a;
  throw std::invalid_argument("no FAVOR arm " + std::string(feature_kind_name(arm.features)) + ", " +
                              std::string(coupling_name(arm.coupling)) + ", m=" + std::to_string(arm.m) +
                              (arm.causal ? ", causal" : ", bidirectional"));
}

std::vector<AttentionInput> npy_attention_inputs(const std::string& q_path, const std::string& k_path,
                                                 const std::string& v_path) {
  const auto q = npy_to_heads<double>(read_npy(q_path), "--q " + q_path);
  const auto k = npy_to_heads<double>(read_npy(k_path), "--k " + k_path);
  const auto v = npy_to_heads<double>(read_npy(v_path), "--v " + v_path);
  AttentionConfig exact;
  exact.mechanism = Mechanism::exact;
  check_attention_inputs<double>(q, k, v, Eigen::MatrixXd(0, q.front().cols()), exact);
  std::vector<AttentionInput> inputs;
  for (std::size_t h = 0; h < q.size(); ++h) inputs.push_back({q[h], k[h], v[h]});
  return inputs;
}

std::vector<OutputBaseline> exact_output_baselines(const std::vector<AttentionInput>& inputs, bool causal,
                                                   int threads) {
  AttentionConfig exact;
  exact.mechanism = Mechanism::exact;
  exact.causal = causal;
  std::vector<OutputBaseline> baselines;
  for (const auto& in : inputs) {
    const Eigen::MatrixXd o =
        attend<double>({in.q}, {in.k}, {in.v}, Eigen::MatrixXd(0, in.q.cols()), exact, threads).front();
    baselines.push_back(output_baseline(o, in.v, causal));
  }
  return baselines;
}

OutputErrorSummary summarize_output_error(const std::vector<double>& mse,
                                          const std::vector<OutputBaseline>& baselines) {
  if (mse.size() != baselines.size())
    throw std::invalid_argument("output error summary: " + std::to_string(mse.size()) + " MSEs but " +
                                std::to_string(baselines.size()) + " baselines");
  OutputErrorSummary s;
  RunningMoments moments, relative, uniform_relative, uniform_mse;
  for (double v : mse) {
    if (std::isfinite(v))
      moments.add(v);
    else
      ++s.nonfinite;
  }
  for (std::size_t i = 0; i < mse.size(); ++i) {
    const OutputBaseline& b = baselines[i];
    uniform_mse.add(b.uniform_mse);
    if (b.variance > 0 && std::isfinite(mse[i])) {
      relative.add(mse[i] / b.variance);
      uniform_relative.add(b.uniform_mse / b.variance);
    }
  }
  s.inputs = static_cast<std::int64_t>(mse.size());
  s.mse_mean = moments.count() > 0 ? moments.mean() : NAN;
  s.mse_std = moments.count() > 1 ? std::sqrt(moments.variance()) : NAN;
  s.mse_stderr = moments.count() > 1 ? moments.standard_error() : NAN;
  s.rel_error_mean = relative.count() > 0 ? relative.mean() : NAN;
  s.rel_error_stderr = relative.count() > 1 ? relative.standard_error() : NAN;
  s.uniform_mse_mean = uniform_mse.mean();
  s.uniform_rel_error_mean = uniform_relative.count() > 0 ? uniform_relative.mean() : NAN;
  return s;
}

std::string ArmInputs::where(const std::vector<int>& ms) const {
  return "L=" + std::to_string(L) + ", d=" + std::to_string(d) + ", " + std::to_string(inputs) + " inputs" +
         (looks ? " (doubling by looks)" : "") + ", m in {" + join_list(ms) + "}";
}

Json favor_arm_row(const FavorArm& arm, const OutputErrorSummary& s, const std::vector<double>& mse,
                   const ArmInputs& inputs, double qk_scale) {
  Json row{{"features", std::string(feature_kind_name(arm.features))},
           {"estimator", std::string(feature_kind_name(arm.features))},
           {"coupling", std::string(coupling_name(arm.coupling))},
           {"mode", arm.causal ? "causal" : "bidirectional"},
           {"causal", arm.causal},
           {"m", arm.m},
           {"L", inputs.L},
           {"d", inputs.d},
           {"qk_scale", inputs.from_files ? Json(nullptr) : Json(qk_scale)},
           {"mse_mean", number_or_null(s.mse_mean)},
           {"mse_std", number_or_null(s.mse_std)},
           {"mse_stderr", number_or_null(s.mse_stderr)},
           {"inputs", s.inputs},
           {"nonfinite", s.nonfinite}};
  Json per_input = Json::array();
  for (double v : mse) per_input.push_back(number_or_null(v));
  row["mse_per_input"] = per_input;
  // Relative error mse/variance of the exact output (1: no better than predicting the mean row) and uniform
  // attention's, averaged over the inputs where the exact output varies.
  row["rel_error_mean"] = number_or_null(s.rel_error_mean);
  row["rel_error_stderr"] = number_or_null(s.rel_error_stderr);
  row["uniform_mse_mean"] = number_or_null(s.uniform_mse_mean);
  row["uniform_rel_error_mean"] = number_or_null(s.uniform_rel_error_mean);
  return row;
}

}  // namespace favorlab
