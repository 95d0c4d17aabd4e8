// `favorlab structured` — structured orthogonal features (Performers paper, section B.2): SORF-style Hadamard blocks
// √d·H D₁ H D₂ H D₃ and products of random Givens rotations, with chi row norms (features/structured_projection.hpp).
// The paper's claim: their estimators are slightly biased, the bias vanishing as d → ∞, while the MSE stays close to
// that of Haar-random orthogonal features (R-ORF) at a fraction of the cost.
// Per d (m = d) and geometry, all four couplings run one sweep each (independent streams); per point and estimator:
//   mean − SM with its SE and z, the relative bias (mean − SM)/SM and its SE, MSE and its SE, MSE / MSE(R-ORF).
// Checks per coupling × estimator (evaluation/structured_points.hpp): 1. "E[estimate] = SM" over every d × geometry,
// Lemma 1 for the iid and orthogonal controls, a detected bias for Hadamard and Givens rows; 2. "the bias shrinks
// with d". With --until-conclusive the controls' sweeps take looks (mc/sweep_set.hpp) at every point still open; the
// Hadamard and Givens sweeps run their --trials once. Speed (kind "speed", perf/structured_speed.hpp): x ↦ Wx, dense
// GEMM against the fast applies; reported, not judged.
#include <algorithm>
#include <cmath>

#include "evaluation/structured_points.hpp"
#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "features/family_theory.hpp"
#include "features/structured_projection.hpp"
#include "features/walsh_hadamard.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/sweep_set.hpp"
#include "mc/sweep_figures.hpp"
#include "perf/memory_estimate.hpp"
#include "perf/structured_speed.hpp"

namespace favorlab {

namespace {

// figures[di][c]: the cells of coupling kCouplings[c] at dims_[di], [estimator * points + point]; moments[di]: the
// a-priori error moments of the iid estimator at the same cells (standing in for every coupling).
using Figures = std::vector<std::vector<std::vector<CellFigures>>>;
using Moments = std::vector<std::vector<ErrorMoments>>;

// What measure() returns: the figures and moments above, the controls' looks, the cells per control sweep (ne · np),
// and the estimator evaluations and seconds of every sweep.
struct Measures {
  Figures figures;
  Moments moments;
  LookRecord looks;
  std::size_t per_sweep = 0;
  std::int64_t evaluations = 0;
  double seconds = 0;
};

constexpr Coupling kCouplings[] = {Coupling::iid, Coupling::orthogonal, Coupling::hadamard, Coupling::givens};
constexpr std::size_t kOrthogonal = 1;
constexpr std::size_t kControls = 2;  // kCouplings[0, kControls): the rows Lemma 1 holds for (iid, orthogonal)

class StructuredExperiment final : public Experiment {
 public:
  std::string name() const override { return "structured"; }
  std::string summary() const override {
    return "Structured orthogonal features (Hadamard, Givens): bias vs d, MSE vs R-ORF, speed of applying W";
  }
  std::int64_t default_trials(bool quick) const override { return quick ? 400 : 4000; }
  bool takes_looks() const override { return true; }

  // Per d (m = d) four sweeps one after another (iid, orthogonal, hadamard, givens; d×d blocks), a row per cell; then
  // per --speed-d the dense d×d W, a d × batch input and the outputs of the three methods.
  MemoryEstimate memory_estimate(const RunContext& ctx) const override {
    using namespace memory;
    const double points = static_cast<double>(x_norms_.size()) * static_cast<double>(y_norms_.size()) *
                          static_cast<double>(cosines_.size());
    const double ne = static_cast<double>(estimators_.size()), columns = widest_columns_per_row(estimators_);
    double peak = 0;
    for (int d : dims_)
      for (Coupling c : kCouplings)
        peak = std::max(peak, estimator_sweep_bytes({static_cast<double>(d), static_cast<double>(d), columns * d, ne,
                                                     points, 0, c},
                                                    ctx.trials, ctx.threads));
    peak = std::max(peak, structured_speed_bytes(speed_dims(), resolved_batch(ctx.quick)));
    const double cells = static_cast<double>(dims_.size()) * std::size(kCouplings) * ne * points;
    return estimate(peak + rows_bytes(cells, 26) + cells * sizeof(CellFigures) +
                        cells / std::size(kCouplings) * sizeof(ErrorMoments),
                    "--d, --speed-d, --batch or the grid");
  }

  void add_options(CLI::App& app) override {
    app.add_option("--d", dims_, "Dimensions (m = d; hadamard needs powers of 2), comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--x-norm", x_norms_, "Norms of x, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--y-norm", y_norms_, "Norms of y, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--cos", cosines_, "Cosines of the angle between x and y, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--estimators", estimators_, "Estimators: positive, trig, hyperbolic")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--speed-d", speed_dims_, "Dimensions of the speed measurement (powers of 2)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_flag("--no-speed", no_speed_, "Skip the speed measurement (its timings differ from run to run)");
    app.add_option("--batch", batch_, "Vectors per batch in the speed measurement (default: 4096, quick 1024)");
    app.add_option("--repeats", repeats_, "Timed repeats per method (median reported)")->capture_default_str();
    app.add_option("--alpha", alpha_, "Family-wise false-failure rate of each check (Bonferroni over its points)")
        ->capture_default_str();
  }

  Result run(const RunContext& ctx) override {
    validate();
    const int batch = resolved_batch(ctx.quick);
    std::vector<Geometry> points;
    for (double xn : x_norms_)
      for (double yn : y_norms_)
        for (double c : cosines_) points.push_back({xn, yn, c});
    std::vector<Family> estimators;
    for (const auto& n : estimators_) estimators.push_back(parse_estimator(n));
    Result result;
    result.experiment = name();
    result.params = Json{{"d", dims_},          {"x_norm", x_norms_},    {"y_norm", y_norms_},
                         {"cos", cosines_},     {"estimators", estimators_}, {"speed_d", speed_dims()},
                         {"batch", batch},      {"repeats", repeats_},   {"alpha", alpha_}};
    result.params["row_schema"] = structured_row_schema();

    const Measures measures = measure(points, estimators, ctx);
    add_checks(result, points, estimators, measures, ctx);

    if (!speed_dims().empty()) {
      measure_structured_speed(speed_dims(), batch, repeats_, ctx.seed, result);
      if (ctx.progress) ctx.progress(1, 1);
    }
    report_looks(ctx.looks, measures.looks, result);
    result.measurements["estimator_evaluations"] = measures.evaluations;
    const double seconds = measures.seconds;
    result.measurements["evaluations_per_second"] =
        seconds > 0 ? static_cast<double>(measures.evaluations) / seconds : 0.0;
    return result;
  }

 private:
  static bool is_structured(Coupling c) { return c == Coupling::hadamard || c == Coupling::givens; }

  // Every sweep: per d the controls (with their looks) and the structured couplings (once), and the a-priori error
  // moments of every cell.
  Measures measure(const std::vector<Geometry>& points, const std::vector<Family>& estimators,
                   const RunContext& ctx) const {
    const std::size_t nc = std::size(kCouplings), nd = dims_.size(), ne = estimators.size(), np = points.size();
    Measures measures;
    Moments& moments = measures.moments;
    moments.resize(nd);
    std::vector<std::vector<EstimatorSpec>> specs(nd);
    for (std::size_t di = 0; di < nd; ++di) {
      const int d = dims_[di];
      for (const auto& g : points) validate_geometry(g, d);
      for (Family e : estimators) specs[di].push_back({e, d});
      for (Family e : estimators)
        for (const Geometry& g : points) moments[di].push_back(error_moments(e, g, d, d));
    }
    // A stream per (coupling, d): adding a dimension does not change the others' numbers.
    const auto config = [&](std::size_t di, std::size_t c) {
      const int d = dims_[di];
      const std::uint64_t stream = (static_cast<std::uint64_t>(kCouplings[c]) << 32) | static_cast<std::uint64_t>(d);
      return SweepConfig{d, kCouplings[c], specs[di], points, ctx.seed, stream, ctx.trials, ctx.threads,
                         FeatureParameters{}};
    };
    // The controls (iid and orthogonal rows, sweep di·kControls + c) are one set of sweeps that takes looks: Lemma 1
    // is proven there, so every open point can be settled. Hadamard and Givens run once: their bias is a finding, not
    // a theorem, and their d = 256 cells, the dearest, would spend a shared look schedule's budget.
    const std::size_t parts = 1 + nd * (nc - kControls) + (speed_dims().empty() ? 0 : 1);
    std::vector<SweepConfig> control_configs;
    for (std::size_t di = 0; di < nd; ++di)
      for (std::size_t c = 0; c < kControls; ++c) control_configs.push_back(config(di, c));
    SweepSet controls(control_configs, part_progress(ctx.progress, 0, parts));
    Figures& figures = measures.figures;
    figures.assign(nd, std::vector<std::vector<CellFigures>>(nc));
    SweepTally tally;
    for (std::size_t di = 0; di < nd; ++di)
      for (std::size_t c = kControls; c < nc; ++c) {
        const SweepResult sweep =
            run_estimator_sweep(config(di, c), part_progress(ctx.progress, 1 + di * (nc - kControls) + c - kControls,
                                                             parts));
        tally.add(sweep);
        figures[di][c] = sweep_figures(sweep);
      }

    const std::size_t per_sweep = controls.cells_per_sweep();  // ne · np
    measures.per_sweep = per_sweep;
    std::vector<ClaimCheck> scratch;  // judges of the looks, [c · ne + e]
    for (std::size_t c = 0; c < kControls; ++c)
      for (std::size_t e = 0; e < ne; ++e)
        scratch.push_back(structured_bias_claim(kCouplings[c], estimators[e], dims_, np, alpha_));
    measures.looks = controls.take_looks(
        ctx.looks,
        [&](std::size_t cell, int look) {
          const std::size_t sweep = cell / per_sweep, local = cell % per_sweep, e = local / np, p = local % np;
          const std::size_t di = sweep / kControls, c = sweep % kControls;
          return scratch[c * ne + e].judge(
              structured_bias_evidence(cell_figures(controls.cell(cell), controls.truth(cell)), moments[di][local],
                                       dims_[di], points[p], ctx.looks.sequential() ? look : -1));
        },
        ctx.progress);
    for (std::size_t di = 0; di < nd; ++di)
      for (std::size_t c = 0; c < kControls; ++c) figures[di][c] = sweep_figures(controls.sweep(di * kControls + c));
    measures.evaluations = tally.evaluations + controls.evaluations();
    measures.seconds = tally.seconds + controls.seconds();
    return measures;
  }

  // Checks 1 and 2 of every coupling × estimator, with check 1's point rows.
  void add_checks(Result& result, const std::vector<Geometry>& points, const std::vector<Family>& estimators,
                  const Measures& measures, const RunContext& ctx) const {
    const std::size_t nc = std::size(kCouplings), nd = dims_.size(), ne = estimators.size(), np = points.size();
    const std::size_t per_sweep = measures.per_sweep;
    const auto cell_of = [&](std::size_t di, std::size_t c, std::size_t e, std::size_t p) {
      return (di * kControls + c) * per_sweep + e * np + p;
    };
    for (std::size_t c = 0; c < nc; ++c)
      for (std::size_t e = 0; e < ne; ++e) {
        // A control point is judged at the look its cell stopped at; a fixed-size run and the structured couplings
        // (no looks) at the whole α.
        const auto look = [&](std::size_t di, std::size_t p) {
          return c < kControls && ctx.looks.sequential() ? measures.looks.cell_look[cell_of(di, c, e, p)] : -1;
        };
        bias_check(result, c, estimators[e], e, points, measures.figures, measures.moments, look);
        if (is_structured(kCouplings[c]) && nd >= 2)
          shrink_check(result, c, estimators[e], e, points, measures.figures, measures.moments);
      }
  }

  // Check 1 of coupling c and estimator `est` (number e) over every d × geometry, a row per point; look(di, p): the
  // look each point is judged at.
  template <class Look>
  void bias_check(Result& result, std::size_t c, Family est, std::size_t e, const std::vector<Geometry>& points,
                  const Figures& figures, const Moments& moments, const Look& look) const {
    const std::size_t np = points.size();
    ClaimCheck bias = structured_bias_claim(kCouplings[c], est, dims_, np, alpha_);
    for (std::size_t di = 0; di < dims_.size(); ++di)
      for (std::size_t p = 0; p < np; ++p) {
        const CellFigures& f = figures[di][c][e * np + p];
        const ErrorMoments& em = moments[di][e * np + p];
        const int at = look(di, p);
        const PointVerdict v = bias.judge(structured_bias_evidence(f, em, dims_[di], points[p], at));
        MseRatio ratio = independent_mse_ratio(f, figures[di][kOrthogonal][e * np + p]);
        if (c == kOrthogonal) ratio.stderr_ = 0.0;  // the orthogonal cell against itself: exactly 1
        Json row = structured_point_row(est, kCouplings[c], dims_[di], points[p], f, v, ratio, em);
        if (at >= 0) row["look"] = at;
        result.rows.push_back(std::move(row));
      }
    result.checks.push_back(bias.result());
  }

  // Check 2 of a structured coupling c and estimator `est` (number e): |relative bias| at the largest d ≤ at the
  // smallest, per geometry.
  void shrink_check(Result& result, std::size_t c, Family est, std::size_t e, const std::vector<Geometry>& points,
                    const Figures& figures, const Moments& moments) const {
    const std::size_t np = points.size();
    const auto lo = static_cast<std::size_t>(std::min_element(dims_.begin(), dims_.end()) - dims_.begin());
    const auto hi = static_cast<std::size_t>(std::max_element(dims_.begin(), dims_.end()) - dims_.begin());
    const auto block = [&](const auto& of_d) { return std::vector(of_d.begin() + e * np, of_d.begin() + (e + 1) * np); };
    result.checks.push_back(structured_shrink_check(kCouplings[c], est, dims_[hi], dims_[lo], points,
                                                    block(figures[hi][c]), block(figures[lo][c]), block(moments[hi]),
                                                    block(moments[lo]), alpha_));
  }

  void validate() const {
    if (dims_.empty()) throw std::invalid_argument("--d needs at least one dimension");
    for (int d : dims_)
      if (d < 2 || !is_power_of_two(d))
        throw std::invalid_argument("--d values must be powers of 2 of at least 2 (hadamard blocks), got d=" +
                                    std::to_string(d));
    for (int d : speed_dims_)
      if (d < 2 || !is_power_of_two(d))
        throw std::invalid_argument("--speed-d values must be powers of 2 of at least 2, got d=" + std::to_string(d));
    if (batch_ < 0) throw std::invalid_argument("--batch must be positive, got " + std::to_string(batch_));
    if (repeats_ < 1) throw std::invalid_argument("--repeats must be at least 1, got " + std::to_string(repeats_));
    if (!(alpha_ > 0 && alpha_ < 1)) throw std::invalid_argument("--alpha must lie in (0, 1)");
    if (estimators_.empty()) throw std::invalid_argument("--estimators needs at least one estimator");
    for (const auto& n : estimators_)
      if (family_info(parse_estimator(n)).target != KernelTarget::softmax)
        throw std::invalid_argument("--estimators: " + n + " does not estimate SM; use positive, trig or hyperbolic");
    if (x_norms_.empty() || y_norms_.empty() || cosines_.empty())
      throw std::invalid_argument("--x-norm, --y-norm and --cos each need at least one value");
  }


  int resolved_batch(bool quick) const { return batch_ > 0 ? batch_ : (quick ? 1024 : 4096); }

  std::vector<int> dims_{4, 16, 64, 256};
  std::vector<double> x_norms_{0.5, 1.0};
  std::vector<double> y_norms_{0.5, 1.0};
  std::vector<double> cosines_{-0.5, 0, 0.5, 0.9};
  std::vector<std::string> estimators_{"positive", "trig"};
  std::vector<int> speed_dims_{64, 256, 1024};
  bool no_speed_ = false;
  std::vector<int> speed_dims() const { return no_speed_ ? std::vector<int>{} : speed_dims_; }
  int batch_ = 0;
  int repeats_ = 5;
  double alpha_ = 1e-3;
};

}  // namespace

std::unique_ptr<Experiment> make_structured_experiment() { return std::make_unique<StructuredExperiment>(); }

}  // namespace favorlab
