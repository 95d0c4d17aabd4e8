// `favorlab structured` — structured orthogonal features (Performers paper, section B.2): SORF-style Hadamard blocks
// √d·H D₁ H D₂ H D₃ and products of random Givens rotations, with chi row norms (features/structured_projection.hpp).
// The paper's claim: their estimators are slightly biased, the bias vanishing as d → ∞, while the MSE stays close to
// that of Haar-random orthogonal features (R-ORF) at a fraction of the cost.
// Per d (m = d) and geometry, all four couplings run one sweep each (independent streams); per point and estimator:
//   mean − SM with its SE and z, the relative bias (mean − SM)/SM and its SE, MSE and its SE, MSE / MSE(R-ORF).
// Checks per coupling × estimator:
//   1. "E[estimate] = SM" over every d × geometry (two-sided z, Bonferroni). For iid and orthogonal rows this is
//      Lemma 1, a control that must hold for the experiment's own sampler, so only its plain Monte Carlo judges it;
//      for hadamard and givens a violation is the finding that the bias is statistically detectable — the detail
//      names the worst point.
//   2. "the bias shrinks with d": per geometry, |relative bias| at the largest d ≤ |relative bias| at the smallest d
//      (one-sided; SE √(SE₁² + SE₂²), valid since |·| is 1-Lipschitz and the two d use independent streams).
// With --until-conclusive the controls' sweeps (iid and orthogonal rows) take looks (mc/sweep_set.hpp) at every point
// still open; the Hadamard and Givens sweeps run their --trials once.
// Speed (kind "speed"): x ↦ Wx for a batch of vectors, dense GEMM vs the fast Hadamard and Givens applies, one thread,
// median of repeats, ratios to dense from the same run. No check: timings are reported, not judged.
// Heavy-tailed points are inconclusive: the a-priori skewness of the iid error (kernels/error_moments.hpp) stands in
// for the structured couplings, whose features have the same (chi-norm) row lengths.
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "experiments/estimator_grid.hpp"
#include "experiments/experiment.hpp"
#include "experiments/look_report.hpp"
#include "features/family_theory.hpp"
#include "features/structured_projection.hpp"
#include "features/walsh_hadamard.hpp"
#include "io/join_list.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/sweep_set.hpp"
#include "mc/sweep_figures.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/absolute_comparison.hpp"
#include "stats/sample_quantile.hpp"

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
    const double batch = std::max(0, resolved_batch(ctx.quick));
    for (int d : speed_dims())
      peak = std::max(peak, (static_cast<double>(d) * d + 6.0 * d * batch) * kDouble +
                                projection_bytes(Coupling::givens, d, d));
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
    result.params["row_schema"] = row_schema();

    const Measures measures = measure(points, estimators, ctx);
    add_checks(result, points, estimators, measures, ctx);

    if (!speed_dims().empty()) {
      speed(ctx, batch, result);
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
      for (std::size_t e = 0; e < ne; ++e) scratch.push_back(bias_claim(c, estimators[e], np));
    measures.looks = controls.take_looks(
        ctx.looks,
        [&](std::size_t cell, int look) {
          const std::size_t sweep = cell / per_sweep, local = cell % per_sweep, e = local / np, p = local % np;
          const std::size_t di = sweep / kControls, c = sweep % kControls;
          return scratch[c * ne + e].judge(bias_evidence(cell_figures(controls.cell(cell), controls.truth(cell)),
                                                         moments[di][local], dims_[di], points[p],
                                                         ctx.looks.sequential() ? look : -1));
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

  // Check 1 of coupling c and estimator `est`: E[estimate] = SM over every d × geometry.
  ClaimCheck bias_claim(std::size_t c, Family est, std::size_t np) const {
    const bool structured = is_structured(kCouplings[c]);
    return ClaimCheck(std::string(structured ? "Structured features (B.2)" : "Lemma 1 (control)") + ": E[" +
                          std::string(estimator_name(est)) + " estimate] = SM" +
                          (structured ? "; a violation = bias detected" : ""),
                      std::string(coupling_name(kCouplings[c])) + " projections with chi row norms, m=d, d in {" +
                          join_list(dims_) + "}, " + std::to_string(np) + " geometries",
                      alpha_, dims_.size() * np);
  }

  // A cell's evidence for check 1, judged at `look` (−1: the whole α).
  static PointEvidence bias_evidence(const CellFigures& f, const ErrorMoments& em, int d, const Geometry& g, int look) {
    PointEvidence ev{f.mean,   f.truth,     f.stderr_, kRoundingAllowance * f.truth, em.error_skewness,
                     f.trials, f.nonfinite, "d=" + std::to_string(d) + ", " + point_label(g)};
    ev.look = look;
    return ev;
  }

  // Check 1 of coupling c and estimator `est` (number e) over every d × geometry, a row per point; look(di, p): the
  // look each point is judged at.
  template <class Look>
  void bias_check(Result& result, std::size_t c, Family est, std::size_t e, const std::vector<Geometry>& points,
                  const Figures& figures, const Moments& moments, const Look& look) const {
    const std::size_t np = points.size();
    ClaimCheck bias = bias_claim(c, est, np);
    for (std::size_t di = 0; di < dims_.size(); ++di)
      for (std::size_t p = 0; p < np; ++p) {
        const CellFigures& f = figures[di][c][e * np + p];
        const ErrorMoments& em = moments[di][e * np + p];
        const int at = look(di, p);
        const PointVerdict v = bias.judge(bias_evidence(f, em, dims_[di], points[p], at));
        MseRatio ratio = independent_mse_ratio(f, figures[di][kOrthogonal][e * np + p]);
        if (c == kOrthogonal) ratio.stderr_ = 0.0;  // the orthogonal cell against itself: exactly 1
        Json row = point_row(est, c, dims_[di], points[p], f, v, ratio, em);
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
    const std::size_t lo = static_cast<std::size_t>(std::min_element(dims_.begin(), dims_.end()) - dims_.begin());
    const std::size_t hi = static_cast<std::size_t>(std::max_element(dims_.begin(), dims_.end()) - dims_.begin());
    AbsoluteAtMostCheck shrink("Structured features (B.2): |relative bias of " + std::string(estimator_name(est)) +
                                   "| at d=" + std::to_string(dims_[hi]) + " <= at d=" + std::to_string(dims_[lo]),
                               std::string(coupling_name(kCouplings[c])) + " projections, " + std::to_string(np) +
                                   " geometries, independent streams",
                               alpha_, np);
    for (std::size_t p = 0; p < np; ++p) {
      const CellFigures &a = figures[hi][c][e * np + p], &b = figures[lo][c][e * np + p];
      const double skew = std::max(std::abs(moments[hi][e * np + p].error_skewness),
                                   std::abs(moments[lo][e * np + p].error_skewness));
      shrink.judge(a.relative_bias(), a.relative_bias_stderr(), b.relative_bias(), b.relative_bias_stderr(), skew,
                   std::min(a.trials, b.trials), a.nonfinite + b.nonfinite, point_label(points[p]));
    }
    result.checks.push_back(shrink.result());
  }

  // A point row: the figures of one cell, the verdict of its bias check and its MSE against the orthogonal one.
  static Json point_row(Family est, std::size_t c, int d, const Geometry& g, const CellFigures& f,
                        const PointVerdict& v, const MseRatio& ratio, const ErrorMoments& em) {
    Json row = estimator_row(est, kCouplings[c], d, d, g);
    row["kind"] = "point";
    row["method"] = nullptr;  // a speed row's key field
    row["truth"] = f.truth;
    row["mean"] = f.mean;
    row["stderr"] = f.stderr_;
    row["z"] = v.z;
    row["status"] = v.status;
    row["trials_needed"] = trials_json(v.trials_needed);
    row["relative_bias"] = f.relative_bias();
    row["relative_bias_stderr"] = f.relative_bias_stderr();
    row["mse"] = f.mse;
    row["mse_stderr"] = f.mse_stderr;
    row["mse_ratio_to_orthogonal"] = ratio.value;
    row["mse_ratio_stderr"] = ratio.stderr_;
    row["trials"] = f.trials;
    row["nonfinite"] = f.nonfinite;
    // For compare: the a-priori skewness of one error and squared error (iid values stand in for coupled rows, as
    // in the check) and the closed-form variances of one draw, exact for iid rows only.
    const bool iid = kCouplings[c] == Coupling::iid;
    row["mean_skewness"] = number_or_null(em.error_skewness);
    row["mse_skewness"] = number_or_null(em.squared_error_skewness);
    row["mean_draw_variance"] = iid ? number_or_null(em.variance) : Json(nullptr);
    row["mse_draw_variance"] = iid ? number_or_null(em.squared_error_variance) : Json(nullptr);
    add_compare_fields(row);  // spread bounds and ranges for compare; hadamard, givens: no iid skewness stand-in
    return row;
  }

  // For compare: point rows pair by estimator × coupling × d × geometry, speed rows by method × d (timings: not
  // compared). Mean and MSE are statistics, scaled to the spread of one draw the row declares (add_compare_fields) and
  // counted in params.trials at the row's look; the relative bias (mean/truth − 1) and the ratio to the orthogonal
  // MSE are not declared, being functions of declared figures and exact fields.
  static Json row_schema() {
    auto statistic = [](const char* value, const char* stderr_field, const char* skewness, const char* spread,
                        int power) {
      return Json{{"value", value},
                  {"stderr", stderr_field},
                  {"count", "trials"},
                  {"count_param", "trials"},
                  {"count_look", "look"},
                  {"count_dropped", "nonfinite"},
                  {"skewness", skewness},
                  {"variance", std::string(spread) + "_draw_variance"},
                  {"variance_bound", std::string(spread) + "_draw_variance_bound"},
                  {"range", std::string(spread) + "_range"},
                  {"rounding_scale", "truth"},
                  {"rounding_power", power}};
    };
    return Json{{"key", Json::array({"kind", "method", "estimator", "coupling", "d", "x_norm", "y_norm", "cos_angle"})},
                {"statistics", Json::array({statistic("mean", "stderr", "mean_skewness", "mean", 1),
                                            statistic("mse", "mse_stderr", "mse_skewness", "mse", 2)})},
                {"exact", Json::array({"m", "truth"})},
                {"verdict", "status"}};
  }

  // Median wall time of `repeats_` runs of f, in seconds.
  template <class F>
  double median_seconds(F&& f) const {
    std::vector<double> t;
    for (int r = 0; r < repeats_; ++r) {
      const auto start = std::chrono::steady_clock::now();
      f();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return sample_median(t);
  }

  void speed(const RunContext& ctx, int batch, Result& result) const {
    // One thread for every method, so the ratios compare algorithms rather than parallel efficiency.
    const int eigen_threads = Eigen::nbThreads();
    Eigen::setNbThreads(1);
    double checksum = 0;  // keeps the timed work observable
    for (int d : speed_dims()) {
      PhiloxStream rng(ctx.seed, (std::uint64_t{1} << 40) | static_cast<std::uint64_t>(d), 0);
      const HadamardProjection had = HadamardProjection::draw(d, d, RowNorms::sqrt_d, rng);
      const GivensProjection giv = GivensProjection::draw(d, d, RowNorms::sqrt_d, rng);
      const Eigen::MatrixXd w = had.dense();
      Eigen::MatrixXd x(d, batch);
      for (Eigen::Index j = 0; j < x.cols(); ++j)
        for (Eigen::Index i = 0; i < x.rows(); ++i) x(i, j) = rng.normal();
      Eigen::MatrixXd out(d, batch);
      const double t_dense = median_seconds([&] { out.noalias() = w * x; checksum += out(0, 0); });
      const double t_had = median_seconds([&] { checksum += had.apply(x)(0, 0); });
      const double t_giv = median_seconds([&] { checksum += giv.apply(x)(0, 0); });
      const std::pair<const char*, double> methods[] = {{"dense", t_dense}, {"hadamard", t_had}, {"givens", t_giv}};
      for (const auto& [method, t] : methods)
        // Null geometry and estimator: the key fields of the point rows, which a speed row does not have.
        result.rows.push_back(Json{{"kind", "speed"},
                                   {"estimator", nullptr},
                                   {"coupling", nullptr},
                                   {"x_norm", nullptr},
                                   {"y_norm", nullptr},
                                   {"cos_angle", nullptr},
                                   {"method", method},
                                   {"d", d},
                                   {"m", d},
                                   {"batch", batch},
                                   {"repeats", repeats_},
                                   {"seconds", t},
                                   {"vectors_per_second", batch / t},
                                   {"time_ratio_to_dense", t / t_dense},
                                   {"threads", 1}});
    }
    Eigen::setNbThreads(eigen_threads);
    result.measurements["speed_checksum"] = checksum;
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
