#include "mc/importance_coupled.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "features/feature_family.hpp"
#include "features/feature_map.hpp"
#include "kernels/row_norms.hpp"
#include "kernels/smreg.hpp"
#include "kernels/softmax_kernel.hpp"
#include "mc/importance_sphere.hpp"
#include "rng/uniform_index.hpp"

namespace favorlab {

bool is_importance_coupling(Coupling c) {
  return c == Coupling::iid || c == Coupling::orthogonal || c == Coupling::simplex;
}

CoupledBlockSampler::CoupledBlockSampler(Coupling c, int rows, int d, bool sphere_norms)
    : sphere_norms_(sphere_norms), d_(d) {
  if (!is_importance_coupling(c))
    throw std::invalid_argument("coupling must be iid, orthogonal or simplex for importance sampling, got '" +
                                std::string(coupling_name(c)) + "'");
  if (c == Coupling::simplex && d < 2)
    throw std::invalid_argument("simplex random features need d >= 2, got d = " + std::to_string(d));
  if (d < 1 || rows < 1 || rows > (c == Coupling::iid ? 1 : d))
    throw std::invalid_argument("a block needs 1 <= rows <= d (1 for iid rows), got rows = " + std::to_string(rows) +
                                ", d = " + std::to_string(d));
  if (c != Coupling::simplex) {
    coefficients_ = Eigen::MatrixXd::Identity(rows, rows);  // v_k = e_k: B = [e_1 … e_rows]
    identity_ = true;
    return;
  }
  // The vertices s_k = (e_k − 1/d)/√(1 − 1/d) (as in features/projection.cpp); any d − 1 of them are independent.
  const Eigen::MatrixXd vertices =
      ((Eigen::MatrixXd::Identity(d, d) - Eigen::MatrixXd::Constant(d, d, 1.0 / d)) / std::sqrt(1 - 1.0 / d))
          .topRows(rows);
  const int p = std::min(rows, d - 1);
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(vertices.transpose());
  const Eigen::MatrixXd basis = qr.householderQ() * Eigen::MatrixXd::Identity(d, p);
  coefficients_ = vertices * basis;
}

void CoupledBlockSampler::draw(Eigen::MatrixXd& w, int start, PhiloxStream& rng) const {
  const int p = static_cast<int>(coefficients_.cols());
  Eigen::MatrixXd g(d_, p);
  rng.normals(g.data(), g.size());
  // A uniform d×p frame: QR of a Gaussian matrix with the signs of diag(R) folded into Q (as for a Haar matrix).
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd frame = Eigen::MatrixXd::Identity(d_, p);
  frame.applyOnTheLeft(qr.householderQ());
  for (int j = 0; j < p; ++j)
    if (qr.matrixQR()(j, j) < 0) frame.col(j) = -frame.col(j);
  if (identity_) w.middleRows(start, rows()) = frame.transpose();
  else w.middleRows(start, rows()) = coefficients_ * frame.transpose();
  for (int k = 0; k < rows(); ++k) w.row(start + k) *= sphere_norms_ ? std::sqrt(d_) : chi_variate(d_, rng);
}

void reflect_block(Eigen::MatrixXd& w, int block, int row, const Eigen::VectorXd& from, const Eigen::VectorXd& to) {
  const int start = row / block * block, rows = std::min<int>(block, static_cast<int>(w.rows()) - start);
  // H = I − 2nnᵀ with n ∥ from − to maps from to to; from = to (to rounding) needs no reflection.
  Eigen::VectorXd n = from - to;
  const double len = n.norm();
  if (len > 1e-300) {
    n /= len;
    for (int k = start; k < start + rows; ++k) {
      const double c = w.row(k).dot(n);
      w.row(k) -= 2 * c * n.transpose();
    }
  }
}

void condition_block_on_row(Eigen::MatrixXd& w, int block, int row, const Eigen::VectorXd& omega) {
  if (block < 1 || row < 0 || row >= w.rows() || omega.size() != w.cols() || !(omega.norm() > 0))
    throw std::invalid_argument("condition_block_on_row: row outside W, or omega of the wrong size or zero");
  reflect_block(w, block, row, w.row(row).transpose().normalized(), omega.normalized());
  w.row(row) = omega.transpose();
}

namespace {

// log Σ exp(v_i) without overflow.
double log_sum_exp(const std::vector<double>& v) {
  const double top = *std::max_element(v.begin(), v.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double x : v) sum += std::exp(x - top);
  return top + std::log(sum);
}

}  // namespace

RowProposal optimal_row_proposal(Family e, const Geometry& g) {
  RowProposal row{optimal_importance_proposal(e, g), 0};
  // The a-priori figures of one row (the run's at m = 1); they also refuse an MSE beyond double precision.
  ImportanceSampledMse figures;
  set_a_priori_moments(figures, weighted_squared_error_moments(e, g, row.proposal),
                       weighted_estimate_moments(e, g, row.proposal),
                       weighted_squared_error_moments(e, g, {0, 1, false}), softmax_kernel(g), g);
  row.mse_skewness = figures.mse_skewness;
  row.estimate_skewness = figures.estimate_skewness;
  return row;
}

RowProposal mean_tuned_row_proposal(Family e, const Geometry& g) {
  return {mean_tuned_proposal(e, g), std::numeric_limits<double>::infinity()};
}

RowProposal defensive_mean_row_proposal(Family e, const Geometry& g) {
  RowProposal row{mean_tuned_proposal(e, g), std::numeric_limits<double>::infinity()};
  row.plain_share = kDefensivePlainShare;
  row.estimate_skewness = defensive_estimate_moments(e, g, row.proposal, row.plain_share).skewness;
  return row;
}

RowProposal optimal_sphere_row_proposal(const Geometry& g, int d) {
  RowProposal row;
  row.sphere = true;
  row.sphere_tilt = optimal_sphere_tilt(g, d);
  row.mse_skewness = sphere_squared_error_moments(g, d, row.sphere_tilt).skewness;
  row.estimate_skewness = sphere_estimate_moments(g, d, row.sphere_tilt).skewness;
  return row;
}

RowProposal mean_tuned_sphere_row_proposal(const Geometry& g, int d) {
  RowProposal row;
  row.sphere = true;
  row.sphere_tilt = mean_tuned_sphere_tilt(g, d);
  row.mse_skewness = std::numeric_limits<double>::infinity();
  return row;
}

RowProposal defensive_mean_sphere_row_proposal(const Geometry& g, int d) {
  RowProposal row = mean_tuned_sphere_row_proposal(g, d);
  row.sphere_tilt.plain_share = kDefensivePlainShare;
  row.estimate_skewness = sphere_estimate_moments(g, d, row.sphere_tilt).skewness;
  return row;
}

RowsSource projection_rows_source(Coupling c, int m, int d, bool sphere_norms) {
  return [c, m, d, sphere_norms](Eigen::MatrixXd& w, PhiloxStream& rng) {
    w = draw_projection(c, RowNorms::chi, m, d, rng);
    if (sphere_norms) rescale_rows_to_sqrt_d(w);
  };
}

CoupledRowsProposal::CoupledRowsProposal(Coupling c, const Geometry& g, int d, int m, bool sphere,
                                         const RowProposal& q, RowsSource source)
    : block_(c == Coupling::iid ? 1 : d),
      m_(m),
      d_(d),
      sphere_(sphere),
      q_(q),
      tilt_ratio_(sphere ? d : 2, q.sphere_tilt),
      full_(c, std::min(block_, m), d, sphere),
      last_(c, m % block_ == 0 ? std::min(block_, m) : m % block_, d, sphere),
      frame_(importance_frame(g, d)),
      source_(std::move(source)) {}

Eigen::VectorXd CoupledRowsProposal::tilted_row(PhiloxStream& rng, const Eigen::VectorXd& xi) const {
  const Eigen::VectorXd& unit = frame_.unit;
  Eigen::VectorXd omega = xi - unit.dot(xi) * unit;  // the part of ω across ẑ, as under the plain law
  if (sphere_) {
    // √d (t ẑ + √(1 − t²) v), v uniform on the directions across ẑ.
    const double t = draw_sphere_tilt(d_, q_.sphere_tilt, rng);
    return std::sqrt(d_) * (t * unit + std::sqrt(std::max(0.0, 1 - t * t)) * omega.normalized());
  }
  // The plain share draws its uniform only when there is one, so that runs without it keep their streams.
  if (q_.plain_share > 0 && rng.uniform() < q_.plain_share) return xi;
  double s = q_.proposal.mean + q_.proposal.sd * rng.normal();
  if (q_.proposal.symmetric && rng.uniform() < 0.5) s = -s;
  return omega + s * unit;
}

void CoupledRowsProposal::draw_blocks(Eigen::MatrixXd& w, PhiloxStream& rng) const {
  if (source_) {
    source_(w, rng);
    if (w.rows() != m_ || w.cols() != d_)
      throw std::logic_error("a rows source drew " + std::to_string(w.rows()) + " x " + std::to_string(w.cols()) +
                             " rows, not " + std::to_string(m_) + " x " + std::to_string(d_));
    return;
  }
  w.resize(m_, d_);
  for (int start = 0; start < m_; start += block_) (start + block_ >= m_ ? last_ : full_).draw(w, start, rng);
}

double CoupledRowsProposal::log_ratio(double s) const {
  if (sphere_) return tilt_ratio_.log_ratio(std::clamp(s / std::sqrt(d_), -1.0, 1.0));
  const double tilted = proposal_log_ratio(q_.proposal, s);
  if (q_.plain_share == 0) return tilted;
  // log(β + (1 − β) e^{tilted}) without overflow.
  const double a = std::log(q_.plain_share), b = std::log1p(-q_.plain_share) + tilted, top = std::max(a, b);
  return top + std::log(std::exp(a - top) + std::exp(b - top));
}

double CoupledRowsProposal::draw(Eigen::MatrixXd& w, PhiloxStream& rng, const Eigen::VectorXd& xi) const {
  const int row = static_cast<int>(uniform_index(rng, static_cast<std::uint64_t>(m_)));
  const Eigen::VectorXd omega = tilted_row(rng, xi);
  draw_blocks(w, rng);
  condition_block_on_row(w, block_, row, omega);
  // w = 1 / mean_i q₁(s_i)/φ(s_i): the proposal's density over the plain law, inverted.
  std::vector<double> log_ratios(static_cast<std::size_t>(m_));
  for (int i = 0; i < m_; ++i) log_ratios[static_cast<std::size_t>(i)] = log_ratio(w.row(i).dot(frame_.unit));
  return inverse_mean_ratio(log_ratios);
}

double inverse_mean_ratio(const std::vector<double>& log_ratios) {
  return std::exp(std::log(static_cast<double>(log_ratios.size())) - log_sum_exp(log_ratios));
}

namespace {

// The run's checks for rows of norm √d (check_importance_run's for the chi-norm families); returns SMREG.
double check_sphere_run(Coupling c, const Geometry& g, int d, int m, std::int64_t trials, int threads,
                        const RowProposal& q) {
  if (c != Coupling::iid && c != Coupling::orthogonal)
    throw std::invalid_argument("smreg importance sampling needs iid or orthogonal rows, got '" +
                                std::string(coupling_name(c)) + "'");
  if (d < 2) throw std::invalid_argument("smreg importance sampling needs d >= 2, got d = " + std::to_string(d));
  if (m < 1) throw std::invalid_argument("number of random features m must be positive, got " + std::to_string(m));
  if (trials < 2) throw std::invalid_argument("trials must be at least 2, got " + std::to_string(trials));
  if (threads < 1) throw std::invalid_argument("threads must be at least 1, got " + std::to_string(threads));
  validate_geometry(g, d);
  if (!q.sphere)
    throw std::invalid_argument("smreg importance sampling needs a sphere tilt (optimal_sphere_row_proposal)");
  sphere_tilt_log_ratio(d, q.sphere_tilt, 0);  // throws for an invalid tilt
  const double k = smreg_exact(g, d);
  if (!std::isfinite(k) || !(k > 0))
    throw std::invalid_argument("the kernel value SMREG is not representable in double precision; use smaller norms");
  return k;
}

}  // namespace

CoupledImportanceSampledMse importance_sampled_coupled_mse(Family e, Coupling c, const Geometry& g, int d, int m,
                                                           std::int64_t trials, std::uint64_t seed,
                                                           std::uint64_t stream, int threads,
                                                           const RowProposal& row_proposal,
                                                           const ProgressFn& progress,
                                                           const CoupledImportanceSampledMse* from,
                                                           const RowsSource& source) {
  const bool sphere = e == Family::smreg;
  const double sm = sphere ? check_sphere_run(c, g, d, m, trials, threads, row_proposal)
                           : check_importance_run(e, g, d, m, trials, threads);
  if (!sphere && row_proposal.sphere)
    throw std::invalid_argument("a sphere tilt is for smreg's rows of norm sqrt(d), not for " +
                                std::string(estimator_name(e)));
  check_importance_proposal(row_proposal.proposal);
  if (!(row_proposal.plain_share >= 0 && row_proposal.plain_share < 1) || (sphere && row_proposal.plain_share != 0))
    throw std::invalid_argument("the plain law's share of a chi-norm row proposal must lie in [0, 1) (rows of norm "
                                "sqrt(d) carry theirs in the sphere tilt), got " +
                                std::to_string(row_proposal.plain_share));
  const CoupledRowsProposal rows(c, g, d, m, sphere, row_proposal, source);

  const ImportanceFrame& frame = rows.frame();
  const auto features = family_info(e).map->f64.features;  // the project's own map on all m rows
  const std::int64_t first = first_continued_trial(trials, from != nullptr ? from->drawn : 0);
  const ImportanceTrials total = run_importance_trials(
      trials - first, threads, seed, stream, d,
      [&](PhiloxStream& rng, const Eigen::VectorXd& xi) {
        Eigen::MatrixXd w(m, d);
        const double weight = rows.draw(w, rng, xi);
        Eigen::MatrixXd fx, fy;
        features(frame.x_row, w, fx);
        features(frame.y_row, w, fy);
        return ImportanceDraw{weight, fx.cwiseProduct(fy).sum() / sm};
      },
      progress, first, from != nullptr ? &from->sums : nullptr);
  return coupled_report(total, sm, row_proposal, sphere);
}

std::int64_t default_importance_mean_trials(std::int64_t plain_trials) { return std::max<std::int64_t>(2, plain_trials); }

CoupledImportanceSampledMse importance_sampled_mean(Family e, Coupling c, const Geometry& g, int d, int m,
                                                    std::int64_t trials, std::uint64_t seed, std::uint64_t stream,
                                                    int threads, const ProgressFn& progress) {
  const bool sphere = e == Family::smreg;
  if (sphere && d < 2)  // the sphere tilt's own message names the dimension; say which line needs it
    throw std::invalid_argument("the importance-sampled smreg mean needs d >= 2, got d = " + std::to_string(d));
  const RowProposal q = sphere ? defensive_mean_sphere_row_proposal(g, d) : defensive_mean_row_proposal(e, g);
  return importance_sampled_coupled_mse(e, c, g, d, m, trials, seed, stream, threads, q, progress, nullptr,
                                        projection_rows_source(c, m, d, sphere));
}

std::int64_t first_continued_trial(std::int64_t trials, std::int64_t drawn_before) {
  if (drawn_before > 0 && trials <= drawn_before)
    throw std::invalid_argument("a continued run needs more trials than it has drawn (" + std::to_string(trials) +
                                " <= " + std::to_string(drawn_before) + ")");
  return drawn_before;
}

CoupledImportanceSampledMse coupled_report(const ImportanceTrials& total, double sm, const RowProposal& q,
                                           bool sphere) {
  CoupledImportanceSampledMse result;
  result.proposal = q.proposal;
  result.sphere = sphere;
  result.sphere_tilt = q.sphere_tilt;
  result.row_mse_skewness = q.mse_skewness;
  ImportanceSampledMse figures;
  total.report(sm, 1, figures);  // a trial is the whole m-row estimator: no division by m
  result.estimate_mean = figures.estimate_mean;
  result.estimate_stderr = figures.estimate_stderr;
  result.mse = figures.mse;
  result.mse_stderr = figures.mse_stderr;
  result.trials = figures.trials;
  result.nonfinite = figures.nonfinite;
  result.mse_sample_skewness = total.squared.skewness();
  result.estimate_sample_skewness = total.estimate.skewness();
  result.row_estimate_skewness = q.estimate_skewness;
  result.sums = total;
  result.drawn = total.squared.count() + total.nonfinite;
  return result;
}

}  // namespace favorlab
