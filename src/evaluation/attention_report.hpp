#pragma once
// The measurements behind `favorlab attention-report` for one head (docs/theory.md#error-measures;
// attention_baselines.hpp, head_diagnostics.hpp): FAVOR's output error and attention-matrix error for every arm
// (feature family × coupling × mode) × m × projection draw, beside the exact baselines of the same head — uniform
// attention, exact attention in float32 and on bfloat16 inputs, the best rank-r matrix — and the head's diagnostics.
//
// Projection draws: draw r of the head numbered `head_index` uses draw_attention_projection(config, d, seed,
// report_draw_index(head_index, r)), so every head and draw has its own W, the same at any thread count and whatever
// the number of draws (more draws extend the list).
// Memory: the exact matrix A (Lq×L) and its SVD are made for bidirectional arms when L ≤ matrix_max_L, one head at a
// time; each concurrent task then also holds its own Â (Lq×L). Everything else is O(L·(d + m)) per task.
// Work: the (arm, m, draw) tasks run on `threads` OpenMP threads, each single-threaded and writing its own slot.
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "attention/attention_config.hpp"
#include "evaluation/favor_error_sweep.hpp"
#include "evaluation/head_diagnostics.hpp"
#include "stats/check.hpp"

namespace favorlab {

struct ReportArm {
  Family features = Family::positive;
  Coupling coupling = Coupling::orthogonal;
  bool causal = false;
};

struct ReportSettings {
  std::vector<ReportArm> arms;
  std::vector<int> ms;
  int draws = 8;
  int matrix_max_L = 4096;  // A, its SVD and Â only for L ≤ this
  std::uint64_t seed = 2021;
  int threads = 1;
};

// Every mode × coupling × feature family, in that order (the modes outermost); a data-dependent family (oprf, sderf:
// its parameters come from every key) has no causal arm.
std::vector<ReportArm> report_arms(const std::vector<Family>& features, const std::vector<Coupling>& couplings,
                                   const std::vector<bool>& causal_modes);

inline constexpr int kMaxReportDraws = 1 << 20;
std::uint64_t report_draw_index(std::uint64_t head_index, int draw);

struct ArmPoint {  // one arm at one m
  int columns = 0;                    // feature columns: the rank bound of the bidirectional Â
  std::vector<double> mse;            // per draw: mean over entries of (Ô − O)²
  std::vector<double> relative;       // per draw: relative output error (NaN: O has no variance across rows)
  std::vector<double> matrix_error;   // per draw: ‖Â − A‖_F (empty: not computed)
};

struct ModeBaselines {  // for one mode (bidirectional or causal)
  bool present = false;
  double output_mean_square = 0;  // ‖O‖_F² / entries
  double uniform_mse = 0;
  double uniform_relative = std::numeric_limits<double>::quiet_NaN();
  double f32_mse = 0;
  double f32_relative = std::numeric_limits<double>::quiet_NaN();
  // Exact attention in float32 on Q, K, V rounded to bfloat16 (half_inputs.hpp): what a model that stores its
  // activations in bfloat16 already gives up, before any approximation.
  double bf16_mse = 0;
  double bf16_relative = std::numeric_limits<double>::quiet_NaN();
};

struct HeadReport {
  int Lq = 0, L = 0, d = 0, dv = 0;
  ModeBaselines modes[2];             // [0] bidirectional, [1] causal
  bool matrix = false;                // A and its singular values were computed
  double matrix_norm = 0;             // ‖A‖_F
  double uniform_matrix_error = 0;    // ‖A − U‖_F, U the uniform matrix (every entry 1/L)
  std::vector<double> truncation;     // ‖A − A_r‖_F for r = 0..min(Lq, L) (rank_truncation_errors)
  HeadDiagnostics diagnostics;
  std::vector<std::vector<ArmPoint>> points;  // [arm][m index]
};

// Tasks report_head runs for a head of length L (for progress totals).
std::int64_t report_head_tasks(const ReportSettings& settings, int L);

// Throws std::invalid_argument naming the problem: empty or non-finite inputs, mismatched shapes, a configuration the
// head does not fit (validate_attention_config), draws outside [2, kMaxReportDraws], no arms or m values.
HeadReport report_head(const AttentionInput& head, const ReportSettings& settings, std::uint64_t head_index,
                       const std::function<void()>& tick = {});

// One arm's output MSE at every m of `settings` on draws first..first + count − 1 of a head:
// mse[m index][draw − first], the numbers report_head gives those draws (the same W, the same exact reference), so a
// head's draws can be extended a batch at a time (more draws for the slope check's looks). Throws as report_head, and
// on a range outside [0, kMaxReportDraws).
std::vector<std::vector<double>> arm_draw_mse(const AttentionInput& head, const ReportArm& arm,
                                              const ReportSettings& settings, std::uint64_t head_index, int first,
                                              int count);

// Slope of log MSE against log m of each draw (least squares over the m values); NaN for a draw with an MSE that is
// not finite and positive, or fewer than two m values. The report judges these per draw with the sign test.
std::vector<double> error_slopes(const std::vector<int>& ms, const std::vector<std::vector<double>>& mse_by_m);

}  // namespace favorlab
