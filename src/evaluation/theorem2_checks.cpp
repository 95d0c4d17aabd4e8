#include "evaluation/theorem2_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "features/family_theory.hpp"
#include "features/theorem2_point.hpp"
#include "kernels/simplex_moments.hpp"
#include "stats/exact_inequality.hpp"

namespace favorlab {

namespace {

// Simplex ≤ orthogonal by Monte Carlo: at m = 1 both couplings are one Gaussian row, so the claim is an equality
// there, which no one-sided test can establish; the check says so when its grid has m = 1.
Check with_equal_law_note(Check check, const std::vector<int>& ms) {
  if (std::find(ms.begin(), ms.end(), 1) != ms.end())
    check.detail += "; at m=1 simplex and orthogonal rows have the same law (one Gaussian row): those points are an "
                    "equality, open at any trial count (the exact values settle them)";
  return check;
}

// A row's cell and its figures: the mean (from the same draws as the MSE, for compare) and the MSE.
Json figure_row(Family e, Coupling c, int d, int m, const Geometry& g, const CellFigures& f) {
  Json row = estimator_row(e, c, d, m, g);
  row["z_norm"] = std::sqrt(g.z_sq());
  row["truth"] = f.truth;
  row["mean"] = f.mean;
  row["stderr"] = f.stderr_;
  row["mse"] = f.mse;
  row["mse_stderr"] = f.mse_stderr;
  return row;
}

// The counts, and for compare the a-priori skewness of one draw of the error and of its square (iid values;
// coupled rows share the marginals), their closed-form variances where exact and what bounds them elsewhere.
void finish_row(Json& row, const CellFigures& f, const ErrorMoments& em, bool iid) {
  row["trials"] = f.trials;
  row["nonfinite"] = f.nonfinite;
  add_draw_fields(row, em, iid);  // and the coupled rows' exact mean variance, bounds and ranges
}

// An iid or orthogonal row of Theorem 2: the figures, the closed forms and the verdict of its exact-MSE check.
Json theorem2_row(Family e, Coupling c, int d, int m, const Geometry& g, const CellFigures& f, const Theorem2Point& th,
                  const PointVerdict& v, const ErrorMoments& em) {
  Json row = figure_row(e, c, d, m, g, f);
  row["mse_theory"] = c == Coupling::iid ? th.iid_mse : th.orthogonal_mse;
  row["mse_iid_theory"] = th.iid_mse;
  row["mse_orthogonal_theory"] = th.orthogonal_mse;
  row["bound_claimed"] = th.claimed_bound;
  row["bound_corrected"] = th.corrected_bound;
  row["z"] = v.z;
  row["status"] = v.status;
  row["trials_needed"] = trials_json(v.trials_needed);
  finish_row(row, f, em, c == Coupling::iid);
  return row;
}

}  // namespace

void theorem2_checks(Result& result, const Theorem2Cells& cells, Family e, const std::vector<CellFigures>& iid,
                     const std::vector<CellFigures>& ort, PlainVerdicts& plain, double alpha) {
  const std::string en(estimator_name(e)), k = e == Family::smreg ? "SMREG" : "SM";
  const std::string claim = "): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) ", where = cells.where();
  const std::size_t n = cells.count(e);
  // The names the importance-sampled checks look the plain verdicts up by (e is positive or smreg).
  const std::string& ort_claim = e == Family::smreg ? kOrthogonalSmreg : kOrthogonalPositive;
  const std::string& iid_claim = e == Family::smreg ? kIidSmreg : kLemma2Positive;
  ClaimCheck ort_check(ort_claim, "orthogonal projections, " + where, alpha, n);
  ClaimCheck iid_check(iid_claim, "iid projections, " + where, alpha, n);
  ClaimCheck claim_mc("Theorem 2 (" + en + claim + k + "^2, Monte Carlo",
                      "both couplings, independent streams, " + where, alpha, n, ClaimCheck::Sides::upper);
  ExactInequality claim_exact("Theorem 2 (" + en + claim + k + "^2, exact values", where);
  ExactInequality corrected_exact("Theorem 2 corrected (" + en + claim + "(" + k + " - Lambda)^2, exact values", where);
  // The largest z of the Monte Carlo claim check away from ‖z‖ = 0, where both estimators are exact and a
  // violation has a zero standard error (an astronomically large z that says nothing about sampling).
  double largest_inexact_z = -std::numeric_limits<double>::infinity();
  std::string largest_inexact_label;
  for (std::size_t s = 0; s < cells.specs.size(); ++s) {
    if (cells.specs[s].estimator != e) continue;
    const int m = cells.specs[s].m;
    for (std::size_t p = 0; p < cells.points.size(); ++p) {
      const Geometry& g = cells.points[p];
      const CellFigures &fi = iid[cells.at(s, p)], &fo = ort[cells.at(s, p)];
      const double k2 = fo.truth * fo.truth, z_norm = std::sqrt(g.z_sq());
      const Theorem2Point th = theorem2_point(e, g, cells.d, m);
      const ErrorMoments em = error_moments(e, g, cells.d, m);
      const double skew = em.squared_error_skewness, allowance = kRoundingAllowance * kRoundingAllowance * k2;
      const std::string label = "m=" + std::to_string(m) + ", " + point_label(g);
      const PointVerdict vi =
          iid_check.judge({fi.mse, th.iid_mse, fi.mse_stderr, allowance, skew, fi.trials, fi.nonfinite, label});
      result.rows.push_back(theorem2_row(e, Coupling::iid, cells.d, m, g, fi, th, vi, em));
      const PointVerdict vo = ort_check.judge(
          {fo.mse, th.orthogonal_mse, fo.mse_stderr, allowance, skew, fo.trials, fo.nonfinite, label});
      plain[{iid_claim, label}] = vi;
      plain[{ort_claim, label}] = vo;
      Json row = theorem2_row(e, Coupling::orthogonal, cells.d, m, g, fo, th, vo, em);
      const PointVerdict mc =
          claim_mc.judge(mse_difference_evidence(fo, fi, th.claimed_gap(), allowance, skew, k2, label));
      row["claim_exact_status"] = claim_exact.judge(th.orthogonal_mse, th.claimed_bound, k2, label, z_norm);
      row["claim_exact_margin"] = (th.orthogonal_mse - th.claimed_bound) / k2;
      if (g.z_sq() > 0 && mc.status != Verdict::inconclusive && mc.z > largest_inexact_z) {
        largest_inexact_z = mc.z;
        largest_inexact_label = label;
      }
      row["claim_mc_status"] = mc.status;
      row["claim_mc_z"] = mc.z;
      row["corrected_exact_status"] = corrected_exact.judge(th.orthogonal_mse, th.corrected_bound, k2, label, z_norm);
      result.rows.push_back(row);
    }
  }
  result.checks.push_back(ort_check.result());
  result.checks.push_back(iid_check.result());
  result.checks.push_back(claim_exact.result());
  Check mc_check = claim_mc.result();
  if (!largest_inexact_label.empty()) {
    std::ostringstream extra;
    extra << "; away from |z| = 0 (where both MSEs are exactly 0) the largest z is " << largest_inexact_z << " at "
          << largest_inexact_label;
    mc_check.detail += extra.str();
  }
  result.checks.push_back(mc_check);
  result.checks.push_back(corrected_exact.result());
}

void structured_check(Result& result, const Theorem2Cells& cells, Family e, Coupling coupling,
                      const std::vector<CellFigures>& figures, const std::vector<CellFigures>& iid, double alpha) {
  const std::string en(estimator_name(e)), k = e == Family::smreg ? "SMREG" : "SM";
  ClaimCheck check("Theorem 2 (" + en + ") with " + std::string(coupling_name(coupling)) +
                       " features: MSE <= MSE(iid) - (1-1/m) 2/(d+2) " + k + "^2, Monte Carlo",
                   cells.where(), alpha, cells.count(e), ClaimCheck::Sides::upper);
  for (std::size_t s = 0; s < cells.specs.size(); ++s) {
    if (cells.specs[s].estimator != e) continue;
    const int m = cells.specs[s].m;
    for (std::size_t p = 0; p < cells.points.size(); ++p) {
      const Geometry& g = cells.points[p];
      const CellFigures &f = figures[cells.at(s, p)], &fi = iid[cells.at(s, p)];
      const double t = f.truth;
      const Theorem2Point th = theorem2_point(e, g, cells.d, m);
      const ErrorMoments em = error_moments(e, g, cells.d, m);
      const PointVerdict v = check.judge(mse_difference_evidence(
          f, fi, th.claimed_gap(), kRoundingAllowance * kRoundingAllowance * t * t, em.squared_error_skewness, t * t,
          "m=" + std::to_string(m) + ", " + point_label(g)));
      Json row = figure_row(e, coupling, cells.d, m, g, f);
      row["mse_iid_theory"] = th.iid_mse;
      row["mse_orthogonal_theory"] = th.orthogonal_mse;
      row["mse_ratio_to_orthogonal"] = th.orthogonal_mse > 0 ? Json(f.mse / th.orthogonal_mse) : Json(nullptr);
      row["bound_claimed"] = th.claimed_bound;
      row["claim_mc_status"] = v.status;
      row["claim_mc_z"] = v.z;
      row["status"] = v.status;
      row["trials_needed"] = trials_json(v.trials_needed);
      finish_row(row, f, em, false);
      result.rows.push_back(row);
    }
  }
  result.checks.push_back(check.result());
}

void simplex_checks(Result& result, const Theorem2Cells& cells, const std::vector<CellFigures>& simplex,
                    const std::vector<CellFigures>& ort, PlainVerdicts& plain, double alpha) {
  const std::string where = cells.where();
  const std::size_t n = cells.ms.size() * cells.points.size(), np = cells.points.size();
  ClaimCheck exact_check(kSimplexPositive, "simplex projections, " + where, alpha, n);
  ClaimCheck mc_check(kSimplexOrder + ", Monte Carlo", "both couplings, independent streams, " + where, alpha, n,
                      ClaimCheck::Sides::upper);
  ExactInequality exact_order("Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal), exact values", where);
  for (std::size_t i = 0; i < cells.ms.size(); ++i) {
    const int m = cells.ms[i];
    std::size_t o = 0;  // the orthogonal figure of positive features at this m
    while (o < cells.specs.size() && !(cells.specs[o].estimator == Family::positive && cells.specs[o].m == m)) ++o;
    for (std::size_t p = 0; p < np; ++p) {
      const Geometry& g = cells.points[p];
      const CellFigures &f = simplex[i * np + p], &of = ort[cells.at(o, p)];
      const double k2 = f.truth * f.truth;
      const double simplex_theory = simplex_mse(g, cells.d, 0.0, m);
      const Theorem2Point th = theorem2_point(Family::positive, g, cells.d, m);
      // The iid squared-error skewness stands in for coupled rows (same marginals).
      const ErrorMoments em = error_moments(Family::positive, g, cells.d, m);
      const double skew = em.squared_error_skewness, allowance = kRoundingAllowance * kRoundingAllowance * k2;
      const std::string label = "m=" + std::to_string(m) + ", " + point_label(g);
      const PointVerdict v =
          exact_check.judge({f.mse, simplex_theory, f.mse_stderr, allowance, skew, f.trials, f.nonfinite, label});
      const PointVerdict mc = mc_check.judge(mse_difference_evidence(f, of, 0.0, allowance, skew, k2, label));
      plain[{kSimplexPositive, label}] = v;
      plain[{kSimplexOrder, label}] = mc;
      Json row = figure_row(Family::positive, Coupling::simplex, cells.d, m, g, f);
      row["mse_iid_theory"] = th.iid_mse;
      row["mse_orthogonal_theory"] = th.orthogonal_mse;
      row["mse_simplex_theory"] = simplex_theory;
      row["bound_claimed"] = th.claimed_bound;
      row["status"] = v.status;
      row["trials_needed"] = trials_json(v.trials_needed);
      row["simplex_below_orthogonal_mc_status"] = mc.status;
      row["simplex_below_orthogonal_exact_status"] =
          exact_order.judge(simplex_theory, th.orthogonal_mse, k2, label, std::sqrt(g.z_sq()));
      finish_row(row, f, em, false);
      result.rows.push_back(row);
    }
  }
  result.checks.push_back(exact_check.result());
  result.checks.push_back(exact_order.result());
  result.checks.push_back(with_equal_law_note(mc_check.result(), cells.ms));
}

}  // namespace favorlab
