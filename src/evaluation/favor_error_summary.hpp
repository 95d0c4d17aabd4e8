#pragma once
// The grid and the summaries of `favorlab attention-error` (Performers Fig. 4) around favor_output_mse
// (favor_error_sweep.hpp): the FAVOR arms mode × coupling × features × m, the inputs read from .npy heads, the exact
// outputs' baselines (attention_baselines.hpp) and, per arm, the summary of its output MSE over the inputs:
//   mse       mean, standard deviation and standard error over the inputs with a finite MSE (non-finite counted)
//   relative  mean ± SE of MSE_i / variance of exact output i, over the inputs whose exact output varies and whose
//             MSE is finite (1: no better than predicting the mean row)
//   uniform   the MSE of uniform attention averaged over all inputs, and its relative error averaged over the same
//             inputs as the relative error above
#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention_config.hpp"
#include "evaluation/attention_baselines.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "results/result.hpp"

namespace favorlab {

struct FavorArm {
  bool causal = false;
  Coupling coupling = Coupling::iid;
  Family features = Family::positive;
  int m = 0;
  // The FAVOR configuration of the arm (the defaults otherwise: renormalized, stabilized).
  AttentionConfig config() const;
  bool operator==(const FavorArm&) const = default;
};

// Every arm, modes outermost, then couplings, features and m (the order of the rows).
std::vector<FavorArm> favor_arm_grid(const std::vector<bool>& causal_modes, const std::vector<Coupling>& couplings,
                                     const std::vector<Family>& features, const std::vector<int>& ms);

// The index of the last arm equal to `arm`; throws std::invalid_argument when there is none.
std::size_t find_favor_arm(const std::vector<FavorArm>& arms, const FavorArm& arm);

// One input per head of the .npy files (L×d or H×L×d queries and keys, L×dv or H×L×dv values). Throws
// std::invalid_argument naming the file for unreadable files or shapes that do not fit exact attention.
std::vector<AttentionInput> npy_attention_inputs(const std::string& q_path, const std::string& k_path,
                                                 const std::string& v_path);

// The baseline of each input's exact output (double, CPU), bidirectional or causal.
std::vector<OutputBaseline> exact_output_baselines(const std::vector<AttentionInput>& inputs, bool causal,
                                                   int threads);

struct OutputErrorSummary {
  std::int64_t inputs = 0, nonfinite = 0;
  double mse_mean = 0, mse_std = 0, mse_stderr = 0;  // NaN where there are too few finite values (1, 2, 2)
  double rel_error_mean = 0, rel_error_stderr = 0;   // NaN likewise
  double uniform_mse_mean = 0, uniform_rel_error_mean = 0;
};
// `mse` and `baselines` per input. Throws std::invalid_argument when their sizes differ.
OutputErrorSummary summarize_output_error(const std::vector<double>& mse, const std::vector<OutputBaseline>& baselines);

// What the rows and checks say about the inputs: their length, dimension and number, and where they came from.
struct ArmInputs {
  int L = 0, d = 0, inputs = 0;
  bool from_files = false, looks = false;
  // "L=…, d=…, N inputs[ (doubling by looks)], m in {…}"
  std::string where(const std::vector<int>& ms) const;
};

// An arm's row: its output MSE over the inputs (summary `s`), per input, and against the baselines of the exact
// outputs; qk_scale: the Gaussian inputs' scale (null for inputs from files).
Json favor_arm_row(const FavorArm& arm, const OutputErrorSummary& s, const std::vector<double>& mse,
                   const ArmInputs& inputs, double qk_scale);

}  // namespace favorlab
