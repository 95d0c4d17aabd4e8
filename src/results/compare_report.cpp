// The reports of results/result_compare.hpp: the JSON document for --out and the lines for a terminal.
#include "results/result_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "io/format_number.hpp"
#include "stats/edgeworth.hpp"

namespace favorlab {

namespace {


const char* reason_name(SkippedStatistic::Reason r) {
  return r == SkippedStatistic::Reason::heavy_tailed ? "heavy_tailed" : "nonfinite";
}

std::string plural(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// One entry of the document's "changes": a statistic that changed, with its figures and the test that flagged it.
Json change_json(const StatisticChange& c) {
  const bool missing = c.kind == StatisticChange::Kind::missing;
  return Json{{"row", c.row_key_text},
              {"key", c.row_key},
              {"field", c.field},
              {"kind", c.kind == StatisticChange::Kind::value     ? "value"
                       : c.kind == StatisticChange::Kind::missing ? "missing"
                                                                  : "spread"},
              {"test", statistic_test_name(c.test)},
              {"missing", missing ? Json(c.missing_field) : Json(nullptr)},
              {"baseline", number_or_null(c.base)},
              {"new", number_or_null(c.fresh)},
              {"baseline_stderr", number_or_null(c.base_se)},
              {"new_stderr", number_or_null(c.fresh_se)},
              {"z", number_or_null(c.z)},
              {"threshold", number_or_null(c.threshold)},
              {"excess", number_or_null(c.excess)},
              {"deterministic", c.deterministic},
              {"relative_difference", number_or_null(c.relative_difference)},
              {"chebyshev", c.chebyshev},
              {"chebyshev_k", c.chebyshev ? number_or_null(c.chebyshev_k) : Json(nullptr)},
              {"binomial", c.binomial},
              {"p_value", c.binomial ? Json(c.p_value) : Json(nullptr)}};
}

// One entry of "exact_mismatches": an exact (or gate) field that differs.
Json mismatch_json(const ExactMismatch& m) {
  return Json{{"row", m.row_key_text},
              {"key", m.row_key},
              {"field", m.field},
              {"baseline", m.base},
              {"new", m.fresh},
              {"relative_difference", number_or_null(m.relative_difference)},
              {"gate_field", m.gate_field}};
}

// One entry of "skipped": a statistic not compared, and for a heavy-tailed one the trials a z test would need.
Json skipped_json(const SkippedStatistic& s) {
  Json e{{"row", s.row_key_text}, {"field", s.field}, {"reason", reason_name(s.reason)}};
  if (s.reason == SkippedStatistic::Reason::heavy_tailed) {
    e["trials"] = s.trials;
    e["trials_needed"] = s.trials_needed == kTrialsOutOfReach ? Json(nullptr) : Json(s.trials_needed);
  }
  return e;
}

}  // namespace

Json compare_report_json(const CompareReport& r) {
  Json j;
  j["schema"] = "favorlab.compare/1";
  j["experiment"] = r.experiment;
  j["changed"] = r.changed();
  j["too_many_uncompared"] = r.too_many_uncompared();
  j["uncompared_fraction"] = r.uncompared_fraction;
  j["max_uncompared_fraction"] = r.max_uncompared_fraction;
  j["alpha"] = r.alpha;
  j["tolerance"] = r.tolerance;
  j["bonferroni_tests"] = r.bonferroni_tests;
  j["point_alpha"] = number_or_null(r.point_alpha);
  j["z_critical"] = number_or_null(r.z_critical);
  j["rows"] = {{"baseline", r.rows_base}, {"new", r.rows_fresh}, {"paired", r.rows_paired}};
  Json by_test = Json::object();
  for (const auto& [test, count] : r.compared_by) by_test[statistic_test_name(test)] = count;
  j["statistics"] = {{"compared", r.statistics_compared},
                     {"absent", r.statistics_absent},
                     {"skipped_heavy_tailed", r.skipped_heavy_tailed},
                     {"skipped_nonfinite", r.skipped_nonfinite},
                     {"within_rounding", r.within_rounding},
                     {"compared_chebyshev", r.compared_chebyshev},
                     {"compared_binomial", r.compared_binomial},
                     {"by_test", by_test}};
  j["smallest_binomial_p"] = r.smallest_binomial_at.empty() ? Json(nullptr) : Json(r.smallest_binomial_p);
  j["smallest_binomial_at"] = r.smallest_binomial_at.empty() ? Json(nullptr) : Json(r.smallest_binomial_at);
  j["largest_abs_z"] = r.largest_at.empty() ? Json(nullptr) : number_or_null(r.largest_abs_z);
  j["largest_at"] = r.largest_at.empty() ? Json(nullptr) : Json(r.largest_at);
  j["changes"] = Json::array();
  for (const StatisticChange& c : r.changes) j["changes"].push_back(change_json(c));
  j["exact_mismatches"] = Json::array();
  for (const ExactMismatch& m : r.exact_mismatches) j["exact_mismatches"].push_back(mismatch_json(m));
  j["only_in_baseline"] = r.only_in_base;
  j["only_in_new"] = r.only_in_fresh;
  j["skipped"] = Json::array();
  for (const SkippedStatistic& s : r.skipped) j["skipped"].push_back(skipped_json(s));
  j["judged"] = Json::array();
  for (const JudgedStatistic& s : r.judged)
    j["judged"].push_back({{"row", s.row_key_text},
                           {"field", s.field},
                           {"test", statistic_test_name(s.test)},
                           {"baseline", number_or_null(s.base)},
                           {"threshold", number_or_null(s.threshold)},
                           {"floor", number_or_null(r.tolerance * std::abs(s.base) + s.floor_scale)}});
  j["power"] = Json::array();
  for (const PlantedPower& p : r.power) {
    Json tests = Json::object();
    for (const auto& [test, counts] : p.by_test) tests[statistic_test_name(test)] = {counts.first, counts.second};
    j["power"].push_back({{"factor", p.factor}, {"flagged", p.flagged}, {"judged", p.judged}, {"by_test", tests}});
  }
  j["param_differences"] = Json::array();
  for (const ParamDifference& d : r.param_differences)
    j["param_differences"].push_back({{"name", d.name}, {"baseline", d.base}, {"new", d.fresh}});
  auto verdicts = [](const std::vector<VerdictChange>& v) {
    Json a = Json::array();
    for (const VerdictChange& c : v) a.push_back({{"subject", c.subject}, {"baseline", c.base}, {"new", c.fresh}});
    return a;
  };
  j["verdict_changes"] = verdicts(r.verdict_changes);
  j["check_changes"] = verdicts(r.check_changes);
  return j;
}

namespace {

const char* bound_name(StatisticTest test) {
  switch (test) {
    case StatisticTest::chebyshev: return "Chebyshev";
    case StatisticTest::hoeffding: return "Hoeffding";
    case StatisticTest::bernstein: return "Bernstein";
    case StatisticTest::sampled_chebyshev: return "Chebyshev on the baseline's sampled spread";
    default: return "";
  }
}

std::string change_line(const StatisticChange& c, const CompareReport& r) {
  const std::string at = c.field + " changed at " + c.row_key_text + ": ";
  if (c.kind == StatisticChange::Kind::missing)
    return at + "missing " + c.missing_field + " (baseline " + format_number(c.base) + ", new " +
           format_number(c.fresh) + ")";
  if (c.kind == StatisticChange::Kind::spread)
    return at + "the new standard error " + format_number(c.fresh_se, 3) + " is inconsistent with the baseline's " +
           (c.chebyshev ? "closed-form" : "sampled") + " spread of one draw (" +
           (c.chebyshev ? "Markov" : "gross check") + ": sqrt(n)·SE exceeds " + format_number(c.threshold, 3) + ")";
  if (c.binomial)
    return at + format_number(c.base) + " (" + std::to_string(c.base_successes) + " of " + std::to_string(c.base_trials) +
           ") -> " + format_number(c.fresh) + " (" + std::to_string(c.fresh_successes) + " of " +
           std::to_string(c.fresh_trials) + "), exact binomial p = " + format_number(c.p_value, 3) + " (p <= " +
           format_number(r.point_alpha, 3) + ")";
  if (c.deterministic)
    return at + format_number(c.base, 10) + " -> " + format_number(c.fresh, 10) + " (an exact figure; relative " +
           "difference " + format_number(c.relative_difference, 3) + " beyond rounding, tolerance " +
           format_number(r.tolerance, 3) + ")";
  if (c.chebyshev)
    return at + format_number(c.base) + " -> " + format_number(c.fresh) + ", heavy-tailed: " + bound_name(c.test) +
           " k = " + format_number(c.chebyshev_k, 4) + " standard deviations of one draw, |difference| " +
           format_number(std::abs(c.base - c.fresh), 3) + " > " + format_number(c.threshold, 3);
  return at + format_number(c.base) + " +- " + format_number(c.base_se, 3) + " -> " + format_number(c.fresh) + " +- " +
         format_number(c.fresh_se, 3) + ", z = " + format_number(c.z, 4) + " (|z| > " + format_number(r.z_critical, 4) +
         ")";
}

std::string short_json(const Json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string power_line(const CompareReport& r) {
  // Appended piece by piece (GCC 12 misreads "x" + std::string as an overlapping copy: -Wrestrict).
  std::string line = "power (informational): a new value planted at ";
  for (std::size_t k = 0; k < r.power.size(); ++k) {
    const PlantedPower& p = r.power[k];
    if (k > 0) line += ", ";
    line += 'x';
    line += format_number(p.factor);
    line += " is flagged at ";
    line += std::to_string(p.flagged);
    line += " of ";
    line += std::to_string(p.judged);
  }
  for (const PlantedPower& p : r.power)
    if (p.factor == 2) {
      line += " (x2 by test:";
      for (const auto& [test, counts] : p.by_test) {
        line += ' ';
        line += statistic_test_name(test);
        line += ' ';
        line += std::to_string(counts.first);
        line += '/';
        line += std::to_string(counts.second);
      }
      line += ')';
    }
  return line;
}

}  // namespace

std::vector<std::string> compare_report_lines(const CompareReport& r, std::size_t max_lines) {
  std::vector<std::string> detail;
  for (const ExactMismatch& m : r.exact_mismatches) {
    std::string line = std::string(m.gate_field ? "gate field " : "exact field ") + m.field + " differs at " +
                       m.row_key_text + ": " + m.base.dump() + " -> " + m.fresh.dump();
    if (std::isfinite(m.relative_difference))
      line += " (relative difference " + format_number(m.relative_difference, 3) + " > tolerance " +
              format_number(r.tolerance, 3) + ")";
    detail.push_back(std::move(line));
  }
  for (const StatisticChange& c : r.changes) detail.push_back(change_line(c, r));
  for (const std::string& k : r.only_in_base) detail.push_back("row only in baseline: " + k);
  for (const SkippedStatistic& k : r.skipped)
    detail.push_back(k.field + " not compared at " + k.row_key_text + " (" +
                     (k.reason == SkippedStatistic::Reason::nonfinite
                          ? std::string("the baseline has no finite standard error or all-finite draws")
                          : "heavy-tailed, no closed-form variance, bound or range; a z test needs " +
                                (k.trials_needed == kTrialsOutOfReach ? std::string("an unknown number of")
                                                               : format_number(static_cast<double>(k.trials_needed), 3)) +
                                " trials, the smaller run has " + std::to_string(k.trials)) +
                     ")");
  for (const std::string& k : r.only_in_fresh) detail.push_back("row only in new: " + k);
  for (const ParamDifference& d : r.param_differences)
    detail.push_back("params differ (informational): " + d.name + " " + short_json(d.base) + " -> " +
                     short_json(d.fresh));
  for (const VerdictChange& v : r.verdict_changes)
    detail.push_back("verdict (informational) at " + v.subject + ": " + v.base + " -> " + v.fresh);
  for (const VerdictChange& v : r.check_changes)
    detail.push_back("check verdict (informational) " + v.subject + ": " + v.base + " -> " + v.fresh);

  std::vector<std::string> lines;
  const std::size_t shown = std::min(max_lines, detail.size());
  lines.assign(detail.begin(), detail.begin() + static_cast<std::ptrdiff_t>(shown));
  if (shown < detail.size())
    lines.push_back("... " + plural(static_cast<std::int64_t>(detail.size() - shown), "more line", "more lines") +
                    " not shown (compare --out writes them all)");
  if (!r.power.empty() && r.power.front().judged > 0) lines.push_back(power_line(r));

  std::string summary = r.experiment + (r.changed()               ? ": CHANGED: "
                                        : r.too_many_uncompared() ? ": UNDECIDED (too much not compared): "
                                                                  : ": unchanged: ");
  summary += plural(static_cast<std::int64_t>(r.changes.size()), "statistic", "statistics") + " changed (|z| > " +
             format_number(r.z_critical, 4) + ", family alpha " + format_number(r.alpha) + " over " +
             plural(r.bonferroni_tests, "test", "tests") + "), " +
             plural(static_cast<std::int64_t>(r.exact_mismatches.size()), "exact-field mismatch", "exact-field mismatches") +
             ", " + std::to_string(r.only_in_base.size()) + " rows only in baseline, " +
             std::to_string(r.only_in_fresh.size()) + " only in new; " + std::to_string(r.rows_paired) +
             " rows paired, " + std::to_string(r.statistics_compared) + " statistics compared";
  if (!r.compared_by.empty()) {
    summary += " (";
    for (std::size_t k = 0; k < r.compared_by.size(); ++k)
      summary += (k > 0 ? ", " : "") + std::string(statistic_test_name(r.compared_by[k].first)) + " " +
                 std::to_string(r.compared_by[k].second);
    summary += ")";
  }
  if (!r.largest_at.empty()) summary += ", largest |z| " + format_number(r.largest_abs_z, 3) + " at " + r.largest_at;
  if (r.compared_binomial > 0)
    summary += ", smallest binomial p " + format_number(r.smallest_binomial_p, 3);
  summary += ", " + std::to_string(r.skipped_heavy_tailed) + " not compared (heavy-tailed), " +
             std::to_string(r.skipped_nonfinite) + " not compared (non-finite), " +
             std::to_string(r.within_rounding) + " past their test but within rounding (" +
             format_number(100 * r.uncompared_fraction, 3) + " % not compared, at most " +
             format_number(100 * r.max_uncompared_fraction, 3) + " % allowed); " +
             plural(static_cast<std::int64_t>(r.verdict_changes.size()), "row verdict", "row verdicts") + " and " +
             plural(static_cast<std::int64_t>(r.check_changes.size()), "check verdict", "check verdicts") +
             " changed (informational)";
  lines.push_back(std::move(summary));
  return lines;
}

}  // namespace favorlab
