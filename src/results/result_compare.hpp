#pragma once
// Did the statistics of an experiment change between two runs? (`favorlab compare BASELINE.json NEW.json`.)
// Two result documents (schema favorlab.result/1, results/result.hpp) of the same experiment are compared row by row:
// not whether the bits changed (other code, machines or seeds change them), but whether any Monte Carlo figure moved
// by more than its standard errors allow, or any deterministic figure moved at all.
//
// Inputs. Both documents must be JSON objects with the same "schema" string and the same "experiment", and their
// params must declare an equal "row_schema" (compared field by field after parsing, so member order is irrelevant):
//   "row_schema": {
//     "key":        ["estimator", "d", ...],          the fields that identify a row (non-empty, distinct names)
//     "statistics": [{"value": "mean", "stderr": "stderr", "count": "trials", "skewness": "mean_skewness",
//                     "variance": "mean_draw_variance", "rounding_scale": "truth", "rounding_power": 1}, ...],
//                   Monte Carlo figures: value, its standard error, the number of draws averaged, and optionally
//                   (field name, or absent/null) the a-priori skewness of ONE draw of the averaged quantity, the
//                   closed-form variance of one draw, and the exact field rounding is relative to (to the power 1
//                   or 2: 2 for a mean of squares); "kind": "mean" (the default, absent or null) is this kind;
//                 {"value": "p_hat", "successes": "exceed_count", "count": "trials", "kind": "binomial"}
//                   a proportion: the successes counted in count trials, value = successes/count (within 1e-12
//                   relative, else bad input); takes no stderr, skewness, variance or rounding fields
//     "exact":      ["truth", ...],                   deterministic fields (closed forms); optional
//     "verdict":    "status"                          the row's verdict field; optional (absent/null: none)
//   }
// Rows pair by the JSON values of their key fields, numbers compared exactly (by value: 16 and 16.0 are the same
// key, 0.1 and 0.10000001 are not; a string "1" is not the number 1). Every row must have every key field, and no two
// rows of one file may share a key. A declared non-key field that is absent from a row is read as null.
//
// Statistics. For a paired row and a declared statistic with values a (baseline) and b (new), standard errors
// s_a, s_b and counts n_a, n_b:
//   - neither row has a value (null or absent in both): the statistic does not apply to the row (counted as absent);
//   - any of a, b, s_a, s_b, n_a, n_b is null, absent or not finite: "not compared (non-finite)", counted;
//   - s_a = s_b = 0 (exact figures): changed iff |a − b| > tolerance·max(|a|, |b|); no z test, no skewness gate;
//   - otherwise z = (a − b)/sqrt(s_a² + s_b²), a two-sided z test. The family α is split over the N candidate pairs
//     (Bonferroni: all (row, statistic) pairs with finite figures and some s > 0, including those the gate below
//     then skips, which keeps the split fixed before any gate and only makes it more conservative): point
//     α_p = α/N, z_crit = two_sided_critical_z(α_p), and the pair changed iff |z| > z_crit. With the s being the
//     true standard errors and normal means, P(some pair is flagged | nothing changed) ≤ α.
//   - rounding floor: a pair past z_crit is still unchanged when |a − b| ≤ tolerance·max(|a|, |b|) +
//     (tolerance·|R|)^p, R the baseline's rounding_scale field and p its rounding_power (no term without one): the
//     statistic's own scale, never another field's (an MSE of 1.2e-9 beside a truth of 1 is not rounding at 1e-9).
//     It matters where an estimator is deterministic (x + y = 0 for positive features: zero variance in theory),
//     whose "standard error" is rounding noise that another build exceeds. Counted as within_rounding, never flagged.
//   - heavy-tail gate (only when the statistic declares a skewness field): with γ the BASELINE's skewness (a file
//     never sets its own gate) the z test is unreliable when trials_for_reliable_z_test(|γ|, z_crit, α_p) >
//     min(n_a, n_b) (stats/edgeworth.hpp: the one-term Edgeworth shift of one tail, γ(2z²+1)φ(z)/(6√n), must be at
//     most that tail's share α_p/2). For the two-sample statistic the skewness in that expansion is
//     (γ σ_a³/n_a² − γ σ_b³/n_b²)/(σ_a²/n_a + σ_b²/n_b)^{3/2}, at most γ/√min(n_a, n_b) in size: the one-sample rule
//     at the smaller count bounds it. A null or absent skewness is unknown and always gated. A gated pair is
//       compared by Chebyshev's inequality when the baseline gives the closed-form variance σ² of one draw: changed
//       iff |a − b| > σ·sqrt(1/n_a + 1/n_b)/sqrt(α_p) (beyond the rounding floor); level ≤ α_p for any distribution
//       with that variance, so the Bonferroni bound holds with no assumption on the tails;
//       otherwise "not compared (heavy-tailed)", listed by row.
//   - binomial statistics (kind "binomial"), with successes k_a, k_b in n_a, n_b trials: neither row has a value or
//     successes: absent; any of them null, absent or not finite, or n_a or n_b = 0: "not compared (non-finite)";
//     otherwise a candidate of the Bonferroni split like a z test, judged by the exact conditional test
//     (stats/binomial_two_sample.hpp): given k = k_a + k_b, under "same proportion" k_a ~ Binomial(k, n_a/(n_a +
//     n_b)); p = min(1, 2·min(P(K ≤ k_a), P(K ≥ k_a))), changed iff p ≤ α_p. Exact at any count, so no skewness gate
//     and no rounding floor; k = 0 in both files gives p = 1 (compared, unchanged).
//   - gate fields: every declared skewness, variance and rounding_scale field is also compared as an exact field
//     (below), so a new file whose gate fields differ from the baseline's (removed, set to null, rescaled) is changed.
//   - the uncompared fraction: (heavy-tailed + non-finite pairs)/(those + compared pairs); a report whose fraction
//     exceeds max_uncompared_fraction fails (fails(), exit 1) even with nothing changed: "unchanged" over a file
//     that was mostly not looked at says nothing.
// Exact fields: numbers agree when a == b or |a − b| ≤ tolerance·max(|a|, |b|) (so 0 agrees only with 0); null
// (or absent) agrees with null only, so null against a number is a mismatch; other JSON values must be equal. Every
// mismatch is a change.
// Rows present in only one file are listed by key and are a change.
// Verdicts — the row's verdict field and each entry of "checks" (paired by claim and where, the k-th occurrence of a
// pair with the k-th) — are listed where they differ, for information only: a verdict near its threshold flips with
// sampling noise alone, so a verdict change by itself is not a change of the statistics.
//
// CompareReport::changed() is true iff some statistic changed, some exact or gate field mismatched, or some row is
// present in only one file; `favorlab compare` exits 1 then or when too much went uncompared, 0 otherwise, 2 on bad
// input. Bad input (documents that are not comparable, or malformed rows: a missing key field, a duplicate key, a
// non-number where a number belongs, a negative standard error or count, a non-integer count, more successes than
// trials or a proportion that is not successes/count; a statistic of unknown kind, a binomial one with a stderr or
// gate field or a mean one with successes; alpha outside (0, 1); a negative or non-finite tolerance)
// throws std::invalid_argument with one line naming the file ("baseline"/"new"), row index and field where there is
// one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "results/result.hpp"

namespace favorlab {

struct StatisticChange {
  std::string row_key_text;  // "estimator=positive coupling=iid d=16 ..."
  Json row_key;              // the key fields and their values, in row_schema order
  std::string field;         // the statistic's value field
  double base = 0, fresh = 0, base_se = 0, fresh_se = 0;
  double z = 0;              // (base − fresh)/sqrt(base_se² + fresh_se²); ±∞ for a deterministic change
  bool deterministic = false;       // both standard errors 0: judged against the tolerance, not by z
  double relative_difference = 0;  // |base − fresh|/max(|base|, |fresh|)
  bool chebyshev = false;           // past the heavy-tail gate: judged by Chebyshev's inequality, not by z
  double chebyshev_k = 0;           // (base − fresh)/(σ·sqrt(1/n_a + 1/n_b)), σ² the closed-form variance of one draw
  bool binomial = false;            // a proportion, judged by the exact conditional binomial test (z: the normal z
  double p_value = 0;               // with the same two-sided p, for the order only)
  std::int64_t base_successes = 0, fresh_successes = 0, base_trials = 0, fresh_trials = 0;
};

struct ExactMismatch {
  std::string row_key_text;
  Json row_key;
  std::string field;
  Json base, fresh;                 // null where the row has no value (null or absent)
  double relative_difference = 0;  // for two numbers; NaN otherwise
  bool gate_field = false;          // a skewness, variance or rounding scale that decides how a statistic is tested
};

struct SkippedStatistic {
  enum class Reason { heavy_tailed, nonfinite };
  std::string row_key_text;
  std::string field;
  Reason reason = Reason::nonfinite;
  std::int64_t trials = 0;         // heavy_tailed: min(n_a, n_b)
  std::int64_t trials_needed = 0;  // heavy_tailed: trials_for_reliable_z_test (INT64_MAX: unknown skewness)
};

struct VerdictChange {
  std::string subject;  // rows: the key text; checks: "claim [where]"
  std::string base, fresh;  // the verdicts as text; "(absent)" where there is none
};

struct CompareReport {
  std::string experiment;
  double alpha = 0, tolerance = 0;
  double point_alpha = 0, z_critical = 0;
  std::int64_t rows_base = 0, rows_fresh = 0, rows_paired = 0;
  std::int64_t bonferroni_tests = 0;      // N, the candidate pairs α is split over
  std::int64_t statistics_compared = 0;   // pairs decided: z tests and deterministic pairs
  std::int64_t statistics_absent = 0;     // pairs where neither row has a value
  std::int64_t skipped_heavy_tailed = 0, skipped_nonfinite = 0;
  std::int64_t within_rounding = 0;       // |z| past the critical value, but the difference within the rounding floor
  std::int64_t compared_chebyshev = 0;    // of statistics_compared: past the heavy-tail gate, by Chebyshev's inequality
  std::int64_t compared_binomial = 0;     // of statistics_compared: proportions, by the exact binomial test
  double smallest_binomial_p = 1;         // over the binomial tests (1 when none)
  std::string smallest_binomial_at;       // "KEY: FIELD" of that test; empty when none
  double uncompared_fraction = 0;         // (skipped_heavy_tailed + skipped_nonfinite)/(those + statistics_compared)
  double max_uncompared_fraction = 0;     // the gate fails when uncompared_fraction exceeds this
  double largest_abs_z = 0;               // over the z tests (0 when none)
  std::string largest_at;                 // "KEY: FIELD" of that test; empty when none

  std::vector<StatisticChange> changes;  // deterministic changes first (largest relative difference), then largest |z|
  std::vector<ExactMismatch> exact_mismatches;            // row order, then field order
  std::vector<std::string> only_in_base, only_in_fresh;   // key texts, in file order
  std::vector<SkippedStatistic> skipped;                  // row order, then statistic order
  std::vector<VerdictChange> verdict_changes;             // informational
  std::vector<VerdictChange> check_changes;               // informational

  bool changed() const { return !changes.empty() || !exact_mismatches.empty() || !only_in_base.empty() || !only_in_fresh.empty(); }
  // Too much of the file went unjudged for "unchanged" to mean anything.
  bool too_many_uncompared() const { return uncompared_fraction > max_uncompared_fraction; }
  bool fails() const { return changed() || too_many_uncompared(); }
};

// The default largest fraction of a file's statistics that may go uncompared (heavy-tailed with no closed-form
// variance, or non-finite) before `compare` fails.
inline constexpr double kDefaultMaxUncompared = 0.05;

CompareReport compare_results(const Json& base, const Json& fresh, double alpha = 1e-3, double tolerance = 1e-9,
                              double max_uncompared_fraction = kDefaultMaxUncompared);

// The report as a document for --out: {schema: "favorlab.compare/1", experiment, changed, alpha, tolerance,
// bonferroni_tests, point_alpha, z_critical, rows {baseline, new, paired}, statistics {compared, absent,
// skipped_heavy_tailed, skipped_nonfinite}, largest_abs_z, largest_at, changes, exact_mismatches, only_in_baseline,
// only_in_new, skipped, verdict_changes, check_changes}; non-finite numbers (a deterministic change's z, an unknown
// skewness's trials_needed) are written as null.
Json compare_report_json(const CompareReport& report);

// For a terminal: one line per exact mismatch, then per statistic change (worst first), per row present in one file
// only, per verdict change (marked informational), at most max_lines of them (then a line saying how many were left
// out), and last a summary line that starts with "EXPERIMENT: CHANGED" or "EXPERIMENT: unchanged".
std::vector<std::string> compare_report_lines(const CompareReport& report, std::size_t max_lines = 50);

}  // namespace favorlab
