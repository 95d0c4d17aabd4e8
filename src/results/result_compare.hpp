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
// Statistics of kind "mean" may also declare, each optional:
//   "count_param": "trials" or ["groups", "draws"]   the params member(s) a row's count comes from: the count must be
//                  param·2^look for one of them (looks: mc/sequential_looks.hpp), look the row field "count_look"
//                  names (absent or null: 0); a count that is not is bad input (a file cannot lower its own count);
//   "skewness_sampled": true   the skewness field is a sampled figure (a gate bound from the draws): read from the
//                  baseline like every gate field, but not compared between files (another seed moves it);
//   "variance_bound": FIELD    a closed-form upper bound on the variance of one draw (e.g. one row's for coupled
//                  rows whose rows have the iid law: Cauchy–Schwarz and Jensen);
//   "range": FIELD             the length of an interval that holds every draw (a bounded estimator);
//   "defined": FIELD           a boolean row field, false where the averaged quantity has no finite mean (e.g. an
//                  output whose normalizer can cross 0): there, in the baseline's row, the statistic does not apply
//                  (absent, not counted); compared between files like a closed form;
//   "count_dropped": FIELD     draws left out of the count as non-finite: count + dropped = param·2^look. Dropped
//                  draws in the new file where the baseline has none are a change; in the baseline, the statistic is
//                  not compared (non-finite).
// A binomial statistic takes "count_param" and "count_look" too.
//
// Nothing the new file says widens its own test. For a paired row and a statistic with values a (baseline) and b
// (new), the baseline's standard error s_a and count n_a, the new file's count n_b (checked against its params):
//   - neither row has a value: the statistic does not apply (absent);
//   - a value, standard error or count in the baseline and none (null, absent, non-finite) in the new file, or a value
//     in the new file where the baseline has none: a change ("missing");
//   - the baseline's value without a finite standard error: "not compared (non-finite)", counted;
//   - counts: a row with a value must have a whole count >= 2 (bad input otherwise), consistent with its params;
//   - rounding floor: |a − b| ≤ tolerance·max(|a|, |b|) + (tolerance·|R|)^p (R the baseline's rounding_scale field,
//     p its rounding_power) is never a change, whatever the test: identical statistics are unchanged whatever their
//     tails. The statistic's own scale, never another field's.
//   - σ, the spread of one draw, is the baseline's closed-form variance where declared, else s_a·√n_a; the new
//     file's standard error never enters. σ = 0 (an exact figure): changed iff beyond the floor ("deterministic").
//   - the family α is split over 2N + N_b tests (Bonferroni; N mean statistics with a value in both files, each with a
//     location test and a spread test, N_b proportions): point α_p = α/(2N + N_b), z_crit = two_sided_critical_z(α_p).
//   - heavy-tail gate: with γ the BASELINE's skewness, the z test is trusted when trials_for_reliable_z_test(|γ|,
//     z_crit, α_p) ≤ min(n_a, n_b) (stats/edgeworth.hpp; for the two-sample difference the skewness in that
//     expansion is at most γ/√min(n_a, n_b)); a null skewness is unknown and always gated; no skewness field declared:
//     never gated. Then z = (a − b)/(σ·sqrt(1/n_a + 1/n_b)), changed iff |z| > z_crit ("z").
//   - past the gate, a distribution-free bound on |a − b| at level α_p from what the baseline declares: Chebyshev
//     (σ_V·sqrt((1/n_a + 1/n_b)/α_p), σ_V the closed-form variance or its bound), Hoeffding (range R:
//     R·sqrt((1/n_a + 1/n_b)·ln(2/α_p)/2)) and Bernstein (both: t = Lb/3 + sqrt((Lb/3)² + 2Lv), L = ln(2/α_p),
//     b = R/min(n_a, n_b), v = σ_V²(1/n_a + 1/n_b), σ_V² ≤ R²/4 without a variance): the smallest of those that
//     apply, chosen before looking at a − b, so the level is at most α_p for every law of one draw with that variance
//     or range ("chebyshev", "hoeffding", "bernstein");
//   - past the gate with none of those, Chebyshev with the baseline's own spread s_a·√n_a in place of σ where
//     |γ|/√min(n_a, n_b) ≤ kSampledSkewnessLimit and s_a > 0 ("sampled_chebyshev"): not distribution-free (a sample
//     that missed the tail understates σ); its level is simulated on lognormal draws at that limit
//     (tests/results/test_result_compare.cpp);
//   - otherwise "not compared (heavy-tailed)", listed by row, counted.
//   - spread test: the new file's spread σ_b = s_b·√n_b, where s_b exceeds the floor, against the baseline's
//     σ_V (closed form, bound, or R/2): changed iff σ_b² > σ_V²/α_p (Markov's inequality on the sample variance,
//     whose mean is at most σ_V²: level α_p for every law); without one, for the z and sampled Chebyshev tests,
//     against s_a·√n_a in its place (a gross check, level simulated alike). A deflated σ_b widens nothing.
//   - binomial statistics (kind "binomial"), with successes k_a, k_b in n_a, n_b trials: neither row has a value or
//     successes: absent; one file only: missing (a change); the exact conditional test (stats/binomial_two_sample.hpp):
//     given k = k_a + k_b, under "same proportion" k_a ~ Binomial(k, n_a/(n_a + n_b)); p = min(1, 2·min(P(K ≤ k_a),
//     P(K ≥ k_a))), changed iff p ≤ α_p. Exact at any count; k = 0 in both files gives p = 1 (unchanged).
//   - gate fields: every declared skewness (unless sampled), variance, variance_bound, range and rounding_scale field
//     is also compared as an exact field (below): a new file whose closed forms differ is changed.
//   - the uncompared fraction: (heavy-tailed + non-finite)/(those + compared); a report whose fraction exceeds
//     max_uncompared_fraction fails (fails(), exit 1) even with nothing changed.
//   - power (informational): for every compared statistic, whether the baseline's value scaled by 2 (or 3, 10, 1.01)
//     in the new file would be flagged by the test it got; a proportion's successes scaled alike.
// Exact fields: numbers agree when a == b or |a − b| ≤ tolerance·max(|a|, |b|) (so 0 agrees only with 0); null
// (or absent) agrees with null only, so null against a number is a mismatch; other JSON values must be equal. Every
// mismatch is a change.
// Rows present in only one file are listed by key and are a change.
// Params that differ (other than seed, threads and row_schema) are listed for information: a rerun of another size
// is judged at its own counts.
// Verdicts — the row's verdict field and each entry of "checks" (paired by claim and where, the k-th occurrence of a
// pair with the k-th) — are listed where they differ, for information only: a verdict near its threshold flips with
// sampling noise alone, so a verdict change by itself is not a change of the statistics.
//
// CompareReport::changed() is true iff some statistic changed, some exact or gate field mismatched, or some row is
// present in only one file; `favorlab compare` exits 1 then or when too much went uncompared, 0 otherwise, 2 on bad
// input. Bad input (documents that are not comparable, or malformed rows: a missing key field, a duplicate key, a
// non-number where a number belongs, a negative standard error, a count that is not a whole number >= 2 or not what
// the params say, more successes than trials or a proportion that is not successes/count; a statistic of unknown
// kind, a binomial one with a stderr or gate field or a mean one with successes; alpha outside (0, 1); a negative or
// non-finite tolerance) throws std::invalid_argument with one line naming the file ("baseline"/"new"), row index
// and field where there is one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "results/result.hpp"

namespace favorlab {

// How a statistic was judged (results/result_compare.cpp: the order above).
enum class StatisticTest {
  z,                  // the z test, past the heavy-tail gate
  chebyshev,          // distribution-free, from the baseline's closed-form variance (or its bound)
  hoeffding,          // distribution-free, from the baseline's range of one draw
  bernstein,          // distribution-free, from both
  sampled_chebyshev,  // Chebyshev with the baseline's sampled spread (level simulated, not distribution-free)
  deterministic,      // σ = 0: an exact figure, judged by the rounding floor alone
  binomial,           // the exact conditional test of two proportions
  rounding,           // no test applies, but the two values agree within the rounding floor
  none,               // no test applies: not compared
};
const char* statistic_test_name(StatisticTest test);

struct StatisticChange {
  enum class Kind { value, missing, spread };
  std::string row_key_text;  // "estimator=positive coupling=iid d=16 ..."
  Json row_key;              // the key fields and their values, in row_schema order
  std::string field;         // the statistic's value field
  Kind kind = Kind::value;   // value: a moved figure; missing: a figure in one file only; spread: the new file's
                             // standard error is inconsistent with the baseline's spread of one draw
  StatisticTest test = StatisticTest::z;
  std::string missing_field;        // missing: which field (value, stderr, count, successes) and in which file
  double base = 0, fresh = 0, base_se = 0, fresh_se = 0;
  double z = 0;              // z test: (base − fresh)/(σ·sqrt(1/n_a + 1/n_b)); others: the normal z with the same
                             // two-sided level as |base − fresh|/threshold (for the order), ±∞ for a deterministic one
  double threshold = 0;      // the |base − fresh| (spread: the new spread) beyond which the pair is changed
  double excess = 0;         // |base − fresh|/threshold (spread: σ_b/threshold); ∞ for a missing figure
  bool deterministic = false;       // σ = 0: judged against the rounding floor, not by a test
  double relative_difference = 0;  // |base − fresh|/max(|base|, |fresh|)
  bool chebyshev = false;           // past the heavy-tail gate: a distribution-free test (or sampled Chebyshev)
  double chebyshev_k = 0;           // (base − fresh)/(σ·sqrt(1/n_a + 1/n_b)), σ the test's spread of one draw
  bool binomial = false;            // a proportion, judged by the exact conditional binomial test
  double p_value = 0;
  std::int64_t base_successes = 0, fresh_successes = 0, base_trials = 0, fresh_trials = 0;
};

struct ExactMismatch {
  std::string row_key_text;
  Json row_key;
  std::string field;
  Json base, fresh;                 // null where the row has no value (null or absent)
  double relative_difference = 0;  // for two numbers; NaN otherwise
  bool gate_field = false;          // a skewness, variance, bound or scale that decides how a statistic is tested
};

struct SkippedStatistic {
  enum class Reason { heavy_tailed, nonfinite };
  std::string row_key_text;
  std::string field;
  Reason reason = Reason::nonfinite;
  std::int64_t trials = 0;         // heavy_tailed: min(n_a, n_b)
  std::int64_t trials_needed = 0;  // heavy_tailed: trials_for_reliable_z_test (INT64_MAX: unknown skewness)
};

// A statistic that some test judged: for --out, and for the power figures below.
struct JudgedStatistic {
  std::string row_key_text, field;
  StatisticTest test = StatisticTest::z;
  double base = 0;       // the baseline's value
  double threshold = 0;  // the |base − new| beyond which its test flags it (∞ where no test applies); binomial: 0
  double floor_scale = 0;  // the rounding floor's part that does not scale with the values, (tolerance·R)^p
  std::int64_t base_successes = 0, base_trials = 0, fresh_trials = 0;  // binomial
};

// Power against a planted change: of the statistics judged by each test, how many a new value of factor × the
// baseline's (a proportion: its successes × factor) would flag.
struct PlantedPower {
  double factor = 0;
  std::vector<std::pair<StatisticTest, std::pair<std::int64_t, std::int64_t>>> by_test;  // test -> (flagged, judged)
  std::int64_t flagged = 0, judged = 0;
};

struct ParamDifference {
  std::string name;
  Json base, fresh;  // null where absent
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
  std::int64_t bonferroni_tests = 0;      // 2N + N_b: a location and a spread test per mean statistic, one per
                                          // proportion
  std::int64_t statistics_compared = 0;   // pairs decided by some test (StatisticTest other than none)
  std::int64_t statistics_absent = 0;     // pairs where neither row has a value
  std::int64_t skipped_heavy_tailed = 0, skipped_nonfinite = 0;
  std::int64_t within_rounding = 0;       // past the test's threshold, but the difference within the rounding floor
  std::int64_t compared_chebyshev = 0;    // of statistics_compared: past the heavy-tail gate, by a distribution-free
                                          // test or sampled Chebyshev
  std::int64_t compared_binomial = 0;     // of statistics_compared: proportions, by the exact binomial test
  std::vector<std::pair<StatisticTest, std::int64_t>> compared_by;  // every test that judged some pair, and how many
  double smallest_binomial_p = 1;         // over the binomial tests (1 when none)
  std::string smallest_binomial_at;       // "KEY: FIELD" of that test; empty when none
  double uncompared_fraction = 0;         // (skipped_heavy_tailed + skipped_nonfinite)/(those + statistics_compared)
  double max_uncompared_fraction = 0;     // the gate fails when uncompared_fraction exceeds this
  double largest_abs_z = 0;               // over the z tests (0 when none)
  std::string largest_at;                 // "KEY: FIELD" of that test; empty when none

  std::vector<StatisticChange> changes;  // missing and deterministic first, then by excess over the threshold
  std::vector<ExactMismatch> exact_mismatches;            // row order, then field order
  std::vector<std::string> only_in_base, only_in_fresh;   // key texts, in file order
  std::vector<SkippedStatistic> skipped;                  // row order, then statistic order
  std::vector<JudgedStatistic> judged;                    // row order, then statistic order
  std::vector<PlantedPower> power;                        // factors 1.01, 2, 3, 10
  std::vector<ParamDifference> param_differences;         // informational
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

// Past the heavy-tail gate with no closed-form variance, bound or range, the baseline's own spread stands in for σ
// (sampled Chebyshev) only where the skewness of the mean, |γ|/√n, is at most this: the lognormal simulation of
// tests/results/test_result_compare.cpp keeps that test within its level there.
inline constexpr double kSampledSkewnessLimit = 5.0;

// The factors of CompareReport::power.
inline constexpr double kPlantedFactors[] = {1.01, 2, 3, 10};

// Throws std::invalid_argument (one line) unless 0 < alpha < 1, 0 <= tolerance < inf and 0 <= max_uncompared <= 1:
// the command checks its options with it before reading either file.
void check_compare_options(double alpha, double tolerance, double max_uncompared_fraction);

CompareReport compare_results(const Json& base, const Json& fresh, double alpha = 1e-3, double tolerance = 1e-9,
                              double max_uncompared_fraction = kDefaultMaxUncompared);

// The report as a document for --out: {schema: "favorlab.compare/1", experiment, changed, alpha, tolerance,
// bonferroni_tests, point_alpha, z_critical, rows {baseline, new, paired}, statistics {compared, absent,
// skipped_heavy_tailed, skipped_nonfinite, within_rounding, by_test {TEST: count}}, largest_abs_z, largest_at,
// changes, exact_mismatches, only_in_baseline, only_in_new, skipped, judged [{row, field, test, baseline,
// threshold, floor}], power [{factor, flagged, judged, by_test {TEST: [flagged, judged]}}], param_differences,
// verdict_changes, check_changes}; non-finite numbers (a deterministic change's z, an unknown skewness's
// trials_needed) are written as null.
Json compare_report_json(const CompareReport& report);

// For a terminal: one line per exact mismatch, then per statistic change (worst first), per row present in one file
// only, per statistic not compared, per differing param and per verdict change (both marked informational), at most
// max_lines of them (then a line saying how many were left out), a power line, and last a summary line that starts
// with "EXPERIMENT: CHANGED", "EXPERIMENT: UNDECIDED" or "EXPERIMENT: unchanged".
std::vector<std::string> compare_report_lines(const CompareReport& report, std::size_t max_lines = 50);

}  // namespace favorlab
