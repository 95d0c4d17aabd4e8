// Theorem 1 (SMREG against SM): the ratio's two closed computations, its limits, the lower-bound asymptotics, the
// Monte Carlo check of the smreg estimator (with power), and the `smreg` subcommand's output and bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>

#include "cli_runner.hpp"
#include "features/family_theory.hpp"
#include "kernels/smreg_ratio.hpp"
#include "kernels/theorem1_bound.hpp"
#include "mc/estimator_sweep.hpp"
#include "mc/importance_coupled.hpp"
#include "stats/claim_check.hpp"

using namespace favorlab;
using namespace favorlab::testing;

namespace {

const std::vector<int> kDims{1, 2, 3, 4, 8, 16, 32, 64, 128, 256};
const std::vector<double> kZ{0, 1e-3, 0.01, 0.1, 0.5, 1, 2, 3, 5, 10, 20, 30, 37, 37.6, 37.67};

// 1 − SMREG/SM by eq. 30 in 50-digit arithmetic: an independent reference for the gap where it is tiny.
double gap_reference(double z_norm, int d) {
  using Real = boost::multiprecision::cpp_bin_float_50;
  const Real w = Real(z_norm) * Real(z_norm) / 2;
  Real pk = exp(-w), f = 1, sum = 0;
  for (int k = 0; k < 20000; ++k) {
    if (k > 0) {
      pk *= w / k;
      f *= Real(d) / Real(d + 2 * (k - 1));
    }
    sum += pk * (1 - f);
    if (k > w && pk < Real("1e-40")) break;
  }
  return static_cast<double>(sum);
}

}  // namespace

TEST_CASE("SMREG/SM: Bessel form and series agree to 1e-10 up to the overflow limit of exp(|z|^2/2)",
          "[kernels][smreg]") {
  double worst = 0;
  for (int d : kDims)
    for (double z : kZ) {
      const double exact = log_smreg_ratio_exact(z, d), series = log_smreg_ratio_series(z, d);
      INFO("d=" << d << " |z|=" << z << " exact=" << exact << " series=" << series);
      CHECK(std::abs(exact - series) <= 1e-10);
      worst = std::max(worst, std::abs(exact - series));
      // Theorem 1, first half: the ratio never exceeds 1.
      CHECK(exact <= 1e-10);
      CHECK(series <= 1e-10);
    }
  WARN("worst |log exact - log series| = " << worst);
}

TEST_CASE("SMREG/SM depends on |z| only: three different pairs give the same ratio", "[kernels][smreg]") {
  for (int d : {2, 16, 128})
    for (double z : {0.3, 2.0, 9.0}) {
      const double reference = log_smreg_ratio_exact(z, d);
      // x ⟂ y with ‖x‖ = ‖y‖ = z/√2, and x = z, y = 0.
      const Geometry orthogonal{z / std::sqrt(2.0), z / std::sqrt(2.0), 0.0}, lopsided{z, 0.0, 1.0};
      for (const Geometry& g : {orthogonal, lopsided}) {
        CHECK(log_smreg_exact(g, d) - g.dot() == Approx(reference).margin(1e-11));
        CHECK(log_smreg_ratio_series(g, d) == Approx(reference).margin(1e-11));
      }
    }
}

TEST_CASE("the gap series equals a 50-digit reference and 1 - exp(log ratio)", "[kernels][smreg]") {
  for (int d : {1, 2, 8, 64, 256, 65536})
    for (double z : {1e-3, 0.1, 1.0, 3.0, 10.0}) {
      INFO("d=" << d << " |z|=" << z);
      CHECK(smreg_ratio_gap(z, d) == Approx(gap_reference(z, d)).epsilon(1e-12));
      CHECK(smreg_ratio_gap(z, d) >= 0);
      // Where the gap is not tiny, the log forms carry it too.
      if (smreg_ratio_gap(z, d) > 1e-3 && d <= 256)  // beyond, the Bessel form leaves long double's range
        CHECK(-std::expm1(log_smreg_ratio_exact(z, d)) == Approx(smreg_ratio_gap(z, d)).epsilon(1e-10));
    }
  CHECK(smreg_ratio_gap(0, 8) == 0);
  // Where the Bessel form underflows long double it says so with −inf rather than a wrong finite number.
  CHECK(std::isinf(log_smreg_ratio_exact(10, 65536)));
}

TEST_CASE("known limits: ratio -> 1 as |z| -> 0 (gap ~ w^2 (1 - 2/d) ... ) and as d -> infinity", "[kernels][smreg]") {
  // Small w: 1 − ratio = P[N=2](1 − f(2,d)) + O(w³) = w²/2 · 2/(d+2) + O(w³).
  for (int d : {2, 16, 256}) {
    const double z = 1e-3, w = z * z / 2;
    CHECK(smreg_ratio_gap(z, d) == Approx(w * w / (d + 2)).epsilon(1e-5));
    CHECK(std::exp(log_smreg_ratio_exact(z, d)) == Approx(1).epsilon(1e-12));
  }
  // Fixed |z|: the ratio rises to 1 with d, and d·gap → w² from below (theorem1_bound.hpp).
  for (double z : {0.5, 1.0, 2.0}) {
    const double w = z * z / 2;
    double previous = 2;
    for (int d : {2, 8, 32, 128, 512, 2048, 1 << 16, 1 << 22}) {
      const double gap = smreg_ratio_gap(z, d);
      INFO("|z|=" << z << " d=" << d);
      CHECK(gap < previous);
      CHECK(d * gap <= w * w * (1 + 1e-12));
      previous = gap;
    }
    CHECK((1 << 22) * smreg_ratio_gap(z, 1 << 22) == Approx(w * w).epsilon(1e-4));
  }
}

TEST_CASE("SMREG/SM falls as |z| grows, so the infimum over |z| <= 2 sqrt(ln C) is at the bound", "[kernels][smreg]") {
  for (int d : kDims) {
    double previous_gap = 0, previous_log = 0;
    for (double z = 0.05; z < 37.6; z *= 1.1) {
      // The gap 1 − ratio resolves the ratio near 1, its log near 0: each must move strictly in its range.
      const double gap = smreg_ratio_gap(z, d), log_ratio = log_smreg_ratio_series(z, d);
      INFO("d=" << d << " |z|=" << z);
      if (gap < 0.5) CHECK(gap > previous_gap);
      if (gap > 0.1) CHECK(log_ratio < previous_log);
      previous_gap = gap;
      previous_log = log_ratio;
    }
  }
}

TEST_CASE("Theorem 1 bound: |z| <= 2 sqrt(ln C), limit (2 ln C)^2, critical C = exp(1/sqrt 2)", "[kernels][smreg]") {
  CHECK(theorem1_max_w(1) == 0);
  CHECK(theorem1_max_z_norm(std::exp(1.0)) == Approx(2));
  CHECK(theorem1_gap_limit(std::exp(1.0)) == Approx(4));
  CHECK(theorem1_gap_limit(theorem1_critical_c()) == Approx(2));
  // The admissible pair at the bound: x = y with ‖x‖² = ln C has SM(x,x) = SM(x,y) = C and ‖z‖ = 2√(ln C).
  const double c = 7.0, xn = std::sqrt(std::log(c));
  const Geometry g{xn, xn, 1.0};
  CHECK(std::exp(g.dot()) == Approx(c));
  CHECK(std::sqrt(g.z_sq()) == Approx(theorem1_max_z_norm(c)));
  CHECK_THROWS_AS(theorem1_max_w(0.5), std::invalid_argument);
  CHECK_THROWS_AS(theorem1_max_w(std::nan("")), std::invalid_argument);
}

TEST_CASE("ratio domain: |z| beyond the overflow of exp(|z|^2/2) is rejected naming the option", "[kernels][smreg]") {
  CHECK(max_ratio_z_norm() == Approx(37.677).margin(1e-3));
  CHECK(std::isfinite(std::exp(max_ratio_z_norm() * max_ratio_z_norm() / 2)));
  CHECK_NOTHROW(validate_ratio_z_norm(37.6, "--z-norm"));
  CHECK_THROWS_WITH(validate_ratio_z_norm(37.7, "--z-norm"), Catch::Contains("--z-norm"));
  CHECK_THROWS_WITH(validate_ratio_z_norm(-1, "--z-norm"), Catch::Contains("--z-norm"));
  CHECK_THROWS_AS(validate_ratio_z_norm(std::nan(""), "--z-norm"), std::invalid_argument);
}

TEST_CASE("Monte Carlo: the smreg estimator's mean is SMREG, and the check has power against SM",
          "[statistical][smreg]") {
  // α = 1e-6 family-wise per check (Bonferroni over 4 points × 2 dims); conclusive points required.
  constexpr double kAlpha = 1e-6;
  constexpr int kM = 16;
  const std::vector<double> zs{0.2, 0.5, 0.8, 1.0};
  for (const bool wrong_theory : {false, true}) {
    ClaimCheck check("smreg mean", "test", kAlpha, 2 * zs.size());
    for (int d : {4, 32}) {
      std::vector<Geometry> points;
      for (double z : zs) points.push_back(smreg_ratio_geometry(z));
      const SweepResult r = run_estimator_sweep({d, Coupling::iid, {{Family::smreg, kM}}, points, 2021,
                                                 static_cast<std::uint64_t>(d), 40000, 2, {}});
      for (std::size_t p = 0; p < points.size(); ++p) {
        const double truth = r.truth[p];
        const double theory = wrong_theory ? std::exp(points[p].dot()) : truth;  // SM instead of SMREG
        const PointVerdict v = check.judge({truth + r.cell(0, p).error.mean(), theory,
                                            r.cell(0, p).error.standard_error(), 1e-12 * truth,
                                            error_moments(Family::smreg, points[p], d, kM).error_skewness,
                                            r.cell(0, p).error.count(), r.cell(0, p).nonfinite, "p"});
        INFO("d=" << d << " |z|=" << zs[p] << " z=" << v.z << " needs " << v.trials_needed);
        REQUIRE(v.reliable);
      }
    }
    CHECK((((wrong_theory)) ? (check.result().status) == Verdict::violated : (check.result().status) != Verdict::violated));
  }
}

TEST_CASE("smreg subcommand: rows, checks, heavy-tailed points inconclusive, bound verdicts", "[cli][smreg]") {
  const auto dir = scratch_dir("smreg");
  const auto run = run_cli("smreg --d 4,64 --z-norm 0,0.3,1,10,37 --C 1.5,2,3 --asymptote-d 65536 --trials 4000 "
                           "--importance-trials 100000 --threads 2 --quiet --out r.json",
                           dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir / "r.json"));
  std::size_t ratio_rows = 0, bound_rows = 0;
  for (const auto& row : doc["rows"]) {
    if (row["kind"] == "ratio") {
      ++ratio_rows;
      for (const char* key : {"d", "z_norm", "ratio_exact", "ratio_series", "mc_ratio", "mc_stderr", "z", "status",
                              "trials_needed", "x_norm", "y_norm", "cos_angle"})
        CHECK(row.contains(key));
      CHECK(row["ratio_exact"].get<double>() <= 1.0);
      // d = 64, |z| = 10 and 37: the estimator's error is far too skewed for a z test at 4000 trials; the
      // importance-sampled line runs where the plain one is open, and settles those points.
      if (row["d"] == 64 && row["z_norm"].get<double>() >= 10) CHECK(row["status"] == "inconclusive");
      CHECK(row.contains("is_mean") == (row["status"] == "inconclusive"));
      if (!row.contains("is_mean")) continue;
      CHECK(row["is_mean_status"] == "holds");
      CHECK(row["is_trials"] == 100000);
      // The draws matter (no zero-variance line), and a Bessel form 5 % off is refuted.
      const double truth = row["truth"];
      CHECK(row["is_stderr"].get<double>() > 1e-4 * truth);
      ClaimCheck wrong("SMREG x 1.05", "one point", 1e-3, 1);
      CHECK(wrong.judge({row["is_mean"].get<double>(), truth * 1.05, row["is_stderr"].get<double>(), 1e-10 * truth,
                         row["is_mean_skewness"].get<double>(), row["is_trials"].get<std::int64_t>(), 0, "p"})
                .status == Verdict::violated);
    } else {
      ++bound_rows;
      CHECK(row["kind"] == "bound");
      CHECK(row["d_gap"].get<double>() <= row["d_gap_limit"].get<double>() * (1 + 1e-12));
    }
  }
  CHECK(ratio_rows == 2 * 5);
  CHECK(bound_rows == 3 * 3);
  REQUIRE(doc["checks"].size() == 5 + 3 + 3);
  CHECK(doc["checks"][0]["status"] == "holds");        // series = Bessel form
  CHECK(doc["checks"][1]["status"] == "inconclusive"); // Monte Carlo: heavy-tailed points
  CHECK(doc["checks"][2]["claim"].get<std::string>().ends_with(", importance-sampled"));
  CHECK(doc["checks"][2]["status"] == "holds");        // ... settled by importance sampling at the open points
  CHECK(doc["checks"][3]["claim"].get<std::string>().ends_with(", plain or importance-sampled"));
  CHECK(doc["checks"][3]["status"] == "holds");        // every point by one method or the other
  CHECK(doc["checks"][3]["points_held"] == 10);
  CHECK(doc["checks"][4]["status"] == "holds");        // SMREG ≤ SM
  CHECK(doc["checks"][5]["status"] == "holds");        // C = 1.5: (2 ln 1.5)² = 0.66 ≤ 2
  CHECK(doc["checks"][6]["status"] == "holds");        // C = 2: (2 ln 2)² = 1.92 ≤ 2
  CHECK(doc["checks"][7]["status"] == "violated");     // C = 3: (2 ln 3)² = 4.83 > 2
  CHECK(doc["checks"][7]["statistic"].get<double>() == Approx(std::pow(2 * std::log(3.0), 2) - 2));
  // The corrected statement, inf ratio >= 1 - (2 ln C)^2/d at every d, holds for every C, including the C = 3 that
  // refutes the printed one; and it is sharp: at d = 65536 the gap reaches within 1 % of (2 ln C)^2, so a constant
  // 1 % smaller would have been refuted (the check's power).
  for (int k = 8; k < 11; ++k) {
    INFO(doc["checks"][k]["detail"]);
    CHECK(doc["checks"][k]["claim"].get<std::string>().starts_with("Theorem 1 corrected"));
    CHECK(doc["checks"][k]["status"] == "holds");
    CHECK(doc["checks"][k]["points_held"] == 3);
    CHECK(doc["checks"][k]["power"].get<double>() < 0.01);
    CHECK(doc["checks"][k]["statistic"].get<double>() <= 1e-10);
  }
  std::filesystem::remove_all(dir);
}

// The importance-sampled line's default draws are the plain line's: a three-trial run of a large d and m (every point
// open after its pilot) draws three importance-sampled trials per open point, not a fixed 1e5 (which ran for hours:
// 1e5 draws of an 8000 × 1000 row matrix per point), and the rule shows in params.importance_trials. unbiased too.
TEST_CASE("the importance-sampled line draws as many trials by default as the plain line", "[cli][smreg]") {
  const auto dir = scratch_dir("smreg-is-default");
  for (const auto& [args, is_trials] : std::vector<std::pair<std::string, int>>{
           {"smreg --d 256 --m 2000 --z-norm 1 --C 2 --asymptote-d 2048 --trials 3", 3},
           {"unbiased --d 64 --m 2000 --estimators positive --x-norm 1 --y-norm 1 --cos 0 --trials 3", 3},
           {"smreg --d 4 --z-norm 1 --C 2 --asymptote-d 2048 --trials 5000 --quick", 5000},
           {"smreg --d 4 --z-norm 1 --C 2 --asymptote-d 2048 --trials 5000 --importance-trials 700", 700}}) {
    const auto doc = run_cli_json(args + " --threads 2", dir, "r.json");
    INFO(args);
    CHECK(doc["params"]["importance_trials"] == is_trials);
    for (const auto& row : doc["rows"])
      if (row.contains("is_trials")) CHECK(row["is_trials"] == is_trials);
  }
}

TEST_CASE("smreg subcommand: bad input exits 2 naming the option", "[cli][smreg]") {
  const auto dir = scratch_dir("smreg-bad");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"smreg --d 0", "--d"},           {"smreg --d 4,-2", "--d"},
      {"smreg --z-norm 38", "--z-norm"}, {"smreg --z-norm -0.5", "--z-norm"},
      {"smreg --z-norm nan", "--z-norm"}, {"smreg --C 0.5", "--C"},
      {"smreg --C 1e200", "--C"},        {"smreg --m 0", "--m"},
      {"smreg --alpha 0", "--alpha"},    {"smreg --asymptote-d 0", "--asymptote-d"},
  };
  for (const auto& [args, needle] : cases) {
    const auto run = run_cli(args + " --trials 50 --out r.json --quiet", dir);
    INFO("favorlab " << args << "\nstderr: " << run.err);
    CHECK(run.status == 2);
    CHECK(run.err.find(needle) != std::string::npos);
    CHECK(!std::filesystem::exists(dir / "r.json"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("smreg subcommand: threads do not change the numbers", "[cli][smreg][determinism]") {
  const auto dir = scratch_dir("smreg-threads");
  // The tilted sampler needs d >= 2: a d = 1 point is judged by the plain line alone, the others by both.
  for (const std::string dims : {"1,3,16", "3,16"}) {
    const std::string args = "smreg --d " + dims + " --z-norm 0.5,5 --C 2 --asymptote-d 64 --trials 3000 "
                             "--importance-trials 2000 --quiet";
    REQUIRE(run_cli(args + " --threads 1 --out a.json", dir).status == 0);
    REQUIRE(run_cli(args + " --threads 2 --out b.json", dir).status == 0);
    const auto a = nlohmann::json::parse(read_text(dir / "a.json")),
               b = nlohmann::json::parse(read_text(dir / "b.json"));
    CHECK(a["rows"] == b["rows"]);
    CHECK(a["checks"] == b["checks"]);
    std::size_t sampled = 0, combined = 0;
    for (const auto& c : a["checks"]) {
      sampled += c["claim"].get<std::string>().ends_with(", importance-sampled");
      combined += c["claim"].get<std::string>().ends_with(", plain or importance-sampled");
    }
    CHECK(sampled == 1u);
    CHECK(combined == 1u);
    for (const auto& row : a["rows"])
      if (row["kind"] == "ratio" && row["d"] == 1) CHECK_FALSE(row.contains("is_mean"));
  }
  std::filesystem::remove_all(dir);
}
