#include "results/result_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "io/format_number.hpp"
#include "stats/binomial_two_sample.hpp"
#include "stats/edgeworth.hpp"
#include "stats/normal_quantiles.hpp"

namespace favorlab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr auto kMaxTrials = std::numeric_limits<std::int64_t>::max();

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

struct StatisticFields {
  std::string value, stderr_field, count, skewness;  // skewness empty: none declared
  std::string variance;                               // closed-form variance of one draw; empty: none declared
  std::string rounding_scale;                         // exact field rounding is relative to; empty: the value's own
  int rounding_power = 1;                             // the statistic's units are those of rounding_scale^power
  bool binomial = false;                              // kind "binomial": a proportion successes/count, no stderr
  std::string successes;                              // binomial: the field counting successes
  bool operator==(const StatisticFields&) const = default;
};

struct RowSchema {
  std::vector<std::string> key;
  std::vector<StatisticFields> statistics;
  std::vector<std::string> exact;
  std::string verdict;  // empty: none declared
  bool operator==(const RowSchema&) const = default;
};

// The member `name` of an object, or nullptr when it has none.
const Json* member(const Json& object, const std::string& name) {
  const auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::string field_name(const Json& j, const std::string& where) {
  if (!j.is_string() || j.get<std::string>().empty()) fail(where + " must be a non-empty field name, got " + j.dump());
  return j.get<std::string>();
}

std::vector<std::string> field_names(const Json* j, const std::string& where, bool required) {
  std::vector<std::string> names;
  if (j == nullptr || j->is_null()) {
    if (required) fail(where + " is missing");
    return names;
  }
  if (!j->is_array()) fail(where + " must be an array of field names");
  for (const Json& item : *j) names.push_back(field_name(item, where + " entry"));
  return names;
}

// Absent or null: "" (optional field name).
std::string optional_field_name(const Json& object, const std::string& name, const std::string& where) {
  const Json* j = member(object, name);
  return j == nullptr || j->is_null() ? std::string() : field_name(*j, where + "." + name);
}

RowSchema parse_row_schema(const Json& j, const std::string& where) {
  if (!j.is_object()) fail(where + " must be an object");
  RowSchema s;
  s.key = field_names(member(j, "key"), where + ".key", true);
  if (s.key.empty()) fail(where + ".key must name at least one field");
  for (std::size_t i = 0; i < s.key.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (s.key[i] == s.key[k]) fail(where + ".key names '" + s.key[i] + "' twice");
  const Json* stats = member(j, "statistics");
  if (stats != nullptr && !stats->is_null()) {
    if (!stats->is_array()) fail(where + ".statistics must be an array of objects");
    for (const Json& item : *stats) {
      const std::string at = where + ".statistics entry";
      if (!item.is_object()) fail(at + " must be an object, got " + item.dump());
      StatisticFields f;
      const std::string kind = optional_field_name(item, "kind", at);
      if (!kind.empty() && kind != "mean" && kind != "binomial")
        fail(at + ".kind must be \"mean\" or \"binomial\", got \"" + kind + "\"");
      f.binomial = kind == "binomial";
      if (f.binomial) {
        // A proportion is judged on its counts: no standard error, and no gate (the exact test holds at any n).
        for (const char* required : {"value", "successes", "count"})
          if (member(item, required) == nullptr) fail(at + " " + item.dump() + " lacks '" + required + "'");
        for (const char* refused : {"stderr", "skewness", "variance", "rounding_scale", "rounding_power"})
          if (member(item, refused) != nullptr)
            fail(at + " " + item.dump() + ": a binomial statistic takes no '" + refused + "'");
        f.value = field_name(item["value"], at + ".value");
        f.successes = field_name(item["successes"], at + ".successes");
        f.count = field_name(item["count"], at + ".count");
        s.statistics.push_back(std::move(f));
        continue;
      }
      if (member(item, "successes") != nullptr)
        fail(at + " " + item.dump() + ": 'successes' belongs to a statistic of kind \"binomial\"");
      for (const char* required : {"value", "stderr", "count"})
        if (member(item, required) == nullptr) fail(at + " " + item.dump() + " lacks '" + required + "'");
      f.value = field_name(item["value"], at + ".value");
      f.stderr_field = field_name(item["stderr"], at + ".stderr");
      f.count = field_name(item["count"], at + ".count");
      f.skewness = optional_field_name(item, "skewness", at);
      f.variance = optional_field_name(item, "variance", at);
      f.rounding_scale = optional_field_name(item, "rounding_scale", at);
      if (const Json* power = member(item, "rounding_power"); power != nullptr && !power->is_null()) {
        if (!power->is_number_integer() || (power->get<int>() != 1 && power->get<int>() != 2))
          fail(at + ".rounding_power must be 1 or 2, got " + power->dump());
        f.rounding_power = power->get<int>();
      }
      s.statistics.push_back(std::move(f));
    }
  }
  s.exact = field_names(member(j, "exact"), where + ".exact", false);
  s.verdict = optional_field_name(j, "verdict", where);
  return s;
}

std::string document_string(const Json& doc, const char* name, const char* file) {
  const Json* j = member(doc, name);
  if (j == nullptr || !j->is_string()) fail(std::string(file) + " has no \"" + name + "\" string; is it a favorlab result file?");
  return j->get<std::string>();
}

const Json* row_schema_of(const Json& doc) {
  const Json* params = member(doc, "params");
  if (params == nullptr || !params->is_object()) return nullptr;
  const Json* rs = member(*params, "row_schema");
  return rs == nullptr || rs->is_null() ? nullptr : rs;
}

// A key value as text. Numbers by value: an integral float below 2^53 is written as an integer (16.0 -> "16"),
// other floats in their shortest round-trip form. Strings quoted for pairing (so "1" is not 1), bare for display.
std::string number_token(const Json& v) {
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && x == std::trunc(x) && std::abs(x) < 9007199254740992.0)
      return std::to_string(static_cast<long long>(x));
  }
  return v.dump();
}
std::string pairing_token(const Json& v) { return v.is_number() ? number_token(v) : v.dump(); }
std::string display_token(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.is_number() ? number_token(v) : v.dump();
}

struct IndexedRows {
  std::vector<std::string> texts;  // display key texts, by row index
  std::vector<Json> keys;          // key objects, by row index
  std::vector<std::string> pairing;  // pairing keys, by row index
  std::unordered_map<std::string, std::size_t> by_key;
};

IndexedRows index_rows(const Json& doc, const RowSchema& schema, const char* file) {
  const Json* rows = member(doc, "rows");
  if (rows == nullptr || !rows->is_array()) fail(std::string(file) + " has no \"rows\" array");
  IndexedRows out;
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const Json& row = (*rows)[i];
    if (!row.is_object()) fail(std::string(file) + " row " + std::to_string(i) + " is not an object");
    std::string pairing, text;
    Json key = Json::object();
    for (const std::string& f : schema.key) {
      const Json* v = member(row, f);
      if (v == nullptr) fail(std::string(file) + " row " + std::to_string(i) + " lacks key field '" + f + "'");
      pairing += pairing_token(*v);
      pairing += '\x1f';  // cannot occur inside a token (JSON escapes control characters)
      if (!text.empty()) text += ' ';
      text += f + "=" + display_token(*v);
      key[f] = *v;
    }
    const auto [it, inserted] = out.by_key.emplace(pairing, i);
    if (!inserted)
      fail(std::string(file) + " rows " + std::to_string(it->second) + " and " + std::to_string(i) +
           " have the same key (duplicate key " + text + ")");
    out.texts.push_back(std::move(text));
    out.keys.push_back(std::move(key));
    out.pairing.push_back(std::move(pairing));
  }
  return out;
}

std::string row_at(const char* file, std::size_t index, const std::string& field) {
  return std::string(file) + " row " + std::to_string(index) + " field '" + field + "'";
}

// A declared number: NaN when absent, null or (in memory) not finite; anything else that is not a number is an error.
double number_field(const Json& row, const std::string& field, const char* file, std::size_t index) {
  const Json* v = member(row, field);
  if (v == nullptr || v->is_null()) return kNaN;
  if (!v->is_number()) fail(row_at(file, index, field) + " is not a number: " + v->dump());
  const double x = v->get<double>();
  return std::isfinite(x) ? x : kNaN;
}

double stderr_field(const Json& row, const std::string& field, const char* file, std::size_t index) {
  const double s = number_field(row, field, file, index);
  if (s < 0) fail(row_at(file, index, field) + " is a negative standard error: " + format_number(s));
  return s;
}

double count_field(const Json& row, const std::string& field, const char* file, std::size_t index) {
  const double n = number_field(row, field, file, index);
  if (!std::isnan(n) && (n < 0 || n != std::trunc(n) || n > 9e18))
    fail(row_at(file, index, field) + " is not a non-negative whole count: " + format_number(n, 17));
  return n;
}

// A non-key field's value: null when absent, and a non-finite float (possible only in memory) is null as JSON has it.
Json value_or_null(const Json& row, const std::string& field) {
  const Json* v = member(row, field);
  if (v == nullptr) return nullptr;
  if (v->is_number_float() && !std::isfinite(v->get<double>())) return nullptr;
  return *v;
}

double relative_difference(double a, double b) {
  const double scale = std::max(std::abs(a), std::abs(b));
  return scale == 0 ? 0 : std::abs(a - b) / scale;
}

bool within_tolerance(double a, double b, double tolerance) {
  return a == b || std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

std::string verdict_text(const Json* v) {
  if (v == nullptr || v->is_null()) return "(none)";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

// A z-tested candidate, held until the Bonferroni split over all candidates is known.
struct Candidate {
  std::size_t ordinal;  // row position × statistics + statistic, for the order of the skipped list
  std::size_t base_row;
  std::size_t statistic;
  double a, b, sa, sb;
  double floor;         // the rounding floor of |a − b| (the statistic's own scale, never another field's)
  double na, nb;
  double skewness;      // |γ| from the baseline only; NaN: unknown; unused without a declared skewness
  double variance;      // closed-form variance of one draw, from the baseline only; NaN: none
  std::int64_t ka = 0, kb = 0;  // binomial: the successes (a, b are the proportions, na, nb the trials)
};

// A binomial statistic of one paired row: settles the absent and non-finite pairs, refuses inconsistent counts, and
// collects the rest as candidates of the exact conditional test (pass 2).
void binomial_pass1(const Json& rb, const Json& rf, std::size_t i, std::size_t j, const StatisticFields& f,
                    std::size_t ordinal, std::size_t statistic, const std::string& text, CompareReport& report,
                    std::vector<std::pair<std::size_t, SkippedStatistic>>& skipped, std::vector<Candidate>& candidates) {
  const double a = number_field(rb, f.value, "baseline", i), b = number_field(rf, f.value, "new", j);
  const double ka = count_field(rb, f.successes, "baseline", i), kb = count_field(rf, f.successes, "new", j);
  const double na = count_field(rb, f.count, "baseline", i), nb = count_field(rf, f.count, "new", j);
  // The proportion must be what the counts say: the test reads the counts, the report shows the value.
  auto consistent = [&](double value, double k, double n, const char* file, std::size_t index) {
    if (std::isnan(value) || std::isnan(k) || std::isnan(n)) return;
    if (k > n)
      fail(row_at(file, index, f.successes) + " counts " + format_number(k, 17) + " successes in " +
           format_number(n, 17) + " trials ('" + f.count + "')");
    if (n > 0 && std::abs(value - k / n) > 1e-12 * (k / n))
      fail(row_at(file, index, f.value) + " is " + format_number(value, 15) + " but " + f.successes + "/" + f.count +
           " = " + format_number(k / n, 15));
  };
  consistent(a, ka, na, "baseline", i);
  consistent(b, kb, nb, "new", j);
  if (std::isnan(ka) && std::isnan(kb) && std::isnan(a) && std::isnan(b)) {
    ++report.statistics_absent;
    return;
  }
  // No trials on a side: no proportion to compare (like a non-finite figure).
  if (std::isnan(ka) || std::isnan(kb) || std::isnan(na) || std::isnan(nb) || std::isnan(a) || std::isnan(b) ||
      na == 0 || nb == 0) {
    ++report.skipped_nonfinite;
    skipped.emplace_back(ordinal, SkippedStatistic{text, f.value, SkippedStatistic::Reason::nonfinite, 0, 0});
    return;
  }
  candidates.push_back({ordinal, i, statistic, a, b, 0, 0, 0, na, nb, kNaN, kNaN, static_cast<std::int64_t>(ka),
                        static_cast<std::int64_t>(kb)});
}

void compare_checks(const Json& base, const Json& fresh, CompareReport& report) {
  using CheckKey = std::pair<std::string, std::string>;
  auto entries = [](const Json& doc, const char* file) {
    std::vector<std::pair<CheckKey, const Json*>> out;
    const Json* checks = member(doc, "checks");
    if (checks == nullptr || checks->is_null()) return out;
    if (!checks->is_array()) fail(std::string(file) + " \"checks\" is not an array");
    for (std::size_t i = 0; i < checks->size(); ++i) {
      const Json& c = (*checks)[i];
      const Json* claim = c.is_object() ? member(c, "claim") : nullptr;
      const Json* where = c.is_object() ? member(c, "where") : nullptr;
      if (claim == nullptr || where == nullptr || !claim->is_string() || !where->is_string())
        fail(std::string(file) + " check " + std::to_string(i) + " lacks a \"claim\" or \"where\" string");
      out.push_back({{claim->get<std::string>(), where->get<std::string>()}, member(c, "status")});
    }
    return out;
  };
  const auto b = entries(base, "baseline");
  const auto f = entries(fresh, "new");
  std::map<CheckKey, std::vector<std::size_t>> fresh_by_key;
  for (std::size_t i = 0; i < f.size(); ++i) fresh_by_key[f[i].first].push_back(i);
  std::map<CheckKey, std::size_t> seen;
  std::vector<bool> used(f.size(), false);
  auto subject = [](const CheckKey& k) { return k.first + " [" + k.second + "]"; };
  for (const auto& [key, status] : b) {
    const std::size_t occurrence = seen[key]++;
    const auto it = fresh_by_key.find(key);
    const std::string base_text = verdict_text(status);
    if (it == fresh_by_key.end() || occurrence >= it->second.size()) {
      report.check_changes.push_back({subject(key), base_text, "(absent)"});
      continue;
    }
    const std::size_t j = it->second[occurrence];
    used[j] = true;
    const std::string fresh_text = verdict_text(f[j].second);
    if (base_text != fresh_text) report.check_changes.push_back({subject(key), base_text, fresh_text});
  }
  for (std::size_t j = 0; j < f.size(); ++j)
    if (!used[j]) report.check_changes.push_back({subject(f[j].first), "(absent)", verdict_text(f[j].second)});
}


const char* reason_name(SkippedStatistic::Reason r) {
  return r == SkippedStatistic::Reason::heavy_tailed ? "heavy_tailed" : "nonfinite";
}

std::string plural(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

CompareReport compare_results(const Json& base, const Json& fresh, double alpha, double tolerance,
                              double max_uncompared_fraction) {
  if (!(alpha > 0 && alpha < 1)) fail("compare: alpha must lie in (0, 1), got " + format_number(alpha));
  if (!(max_uncompared_fraction >= 0 && max_uncompared_fraction <= 1))
    fail("compare: the largest uncompared fraction must lie in [0, 1], got " + format_number(max_uncompared_fraction));
  if (!(tolerance >= 0 && std::isfinite(tolerance)))
    fail("compare: tolerance must be finite and non-negative, got " + format_number(tolerance));
  if (!base.is_object()) fail("baseline is not a favorlab result document (a JSON object)");
  if (!fresh.is_object()) fail("new is not a favorlab result document (a JSON object)");
  const std::string base_schema = document_string(base, "schema", "baseline");
  const std::string fresh_schema = document_string(fresh, "schema", "new");
  if (base_schema != fresh_schema)
    fail("schema differs: baseline " + base_schema + ", new " + fresh_schema + "; compare needs the same schema");
  const std::string experiment = document_string(base, "experiment", "baseline");
  const std::string fresh_experiment = document_string(fresh, "experiment", "new");
  if (experiment != fresh_experiment)
    fail("experiment differs: baseline " + experiment + ", new " + fresh_experiment +
         "; compare needs two runs of the same experiment");
  const Json* base_rs = row_schema_of(base);
  const Json* fresh_rs = row_schema_of(fresh);
  if (base_rs == nullptr && fresh_rs == nullptr)
    fail(experiment + " results declare no params.row_schema; compare needs one");
  if (base_rs == nullptr || fresh_rs == nullptr)
    fail(experiment + " results in the " + (base_rs == nullptr ? "baseline" : "new") +
         " file declare no params.row_schema (the other file does); the row_schema differs");
  const RowSchema schema = parse_row_schema(*base_rs, "baseline params.row_schema");
  if (!(parse_row_schema(*fresh_rs, "new params.row_schema") == schema))
    fail("params.row_schema differs between baseline and new; compare needs the same row_schema");

  const IndexedRows b_rows = index_rows(base, schema, "baseline");
  const IndexedRows f_rows = index_rows(fresh, schema, "new");
  const Json& b_json = base["rows"];
  const Json& f_json = fresh["rows"];

  CompareReport report;
  report.experiment = experiment;
  report.alpha = alpha;
  report.tolerance = tolerance;
  report.rows_base = static_cast<std::int64_t>(b_rows.texts.size());
  report.rows_fresh = static_cast<std::int64_t>(f_rows.texts.size());

  // Pair the rows, in baseline order.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::vector<bool> fresh_paired(f_rows.texts.size(), false);
  for (std::size_t i = 0; i < b_rows.pairing.size(); ++i) {
    const auto it = f_rows.by_key.find(b_rows.pairing[i]);
    if (it == f_rows.by_key.end()) {
      report.only_in_base.push_back(b_rows.texts[i]);
      continue;
    }
    pairs.emplace_back(i, it->second);
    fresh_paired[it->second] = true;
  }
  for (std::size_t j = 0; j < f_rows.texts.size(); ++j)
    if (!fresh_paired[j]) report.only_in_fresh.push_back(f_rows.texts[j]);
  report.rows_paired = static_cast<std::int64_t>(pairs.size());

  // The gate fields (skewness, variance) decide how a statistic is tested, so they are read from the baseline only
  // and must agree in the new file like exact fields: a file cannot relax its own gate.
  std::vector<std::string> gate_fields;
  for (const StatisticFields& f : schema.statistics)
    for (const std::string* g : {&f.skewness, &f.variance, &f.rounding_scale})
      if (!g->empty() && std::find(gate_fields.begin(), gate_fields.end(), *g) == gate_fields.end() &&
          std::find(schema.exact.begin(), schema.exact.end(), *g) == schema.exact.end())
        gate_fields.push_back(*g);

  // Pass 1: read every declared field of every paired row; settle the absent, non-finite and exact (SE 0) figures,
  // exact fields and verdicts, and collect the z-test candidates.
  const std::size_t n_stats = schema.statistics.size();
  std::vector<std::pair<std::size_t, SkippedStatistic>> skipped;
  std::vector<Candidate> candidates;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    // Named variables, not a structured binding: the lambda below captures i, which clang before 16 refuses for a
    // binding (the fuzz preset builds with clang).
    const std::size_t i = pairs[p].first, j = pairs[p].second;
    const Json& rb = b_json[i];
    const Json& rf = f_json[j];
    const std::string& text = b_rows.texts[i];
    for (std::size_t s = 0; s < n_stats; ++s) {
      const StatisticFields& f = schema.statistics[s];
      if (f.binomial) {
        binomial_pass1(rb, rf, i, j, f, p * n_stats + s, s, text, report, skipped, candidates);
        continue;
      }
      const double a = number_field(rb, f.value, "baseline", i), b = number_field(rf, f.value, "new", j);
      const double sa = stderr_field(rb, f.stderr_field, "baseline", i), sb = stderr_field(rf, f.stderr_field, "new", j);
      const double na = count_field(rb, f.count, "baseline", i), nb = count_field(rf, f.count, "new", j);
      const double skew = f.skewness.empty() ? kNaN : std::abs(number_field(rb, f.skewness, "baseline", i));
      const double variance = f.variance.empty() ? kNaN : number_field(rb, f.variance, "baseline", i);
      if (!std::isnan(variance) && variance < 0)
        fail(row_at("baseline", i, f.variance) + " is a negative variance: " + format_number(variance));
      // Rounding moves a statistic by a fraction of its own size, or, where the schema names one, of its own closed
      // form's scale to the statistic's power (an MSE near 0 is a mean of squared rounding errors of the truth).
      double floor = tolerance * std::max(std::abs(a), std::abs(b));
      if (!f.rounding_scale.empty()) {
        const double r = number_field(rb, f.rounding_scale, "baseline", i);  // the baseline's, like the gate's
        if (std::isfinite(r)) floor += std::pow(tolerance * std::abs(r), f.rounding_power);
      }
      const std::size_t ordinal = p * n_stats + s;
      if (std::isnan(a) && std::isnan(b)) {
        ++report.statistics_absent;
        continue;
      }
      if (std::isnan(a) || std::isnan(b) || std::isnan(sa) || std::isnan(sb) || std::isnan(na) || std::isnan(nb)) {
        ++report.skipped_nonfinite;
        skipped.emplace_back(ordinal, SkippedStatistic{text, f.value, SkippedStatistic::Reason::nonfinite, 0, 0});
        continue;
      }
      if (sa == 0 && sb == 0) {
        ++report.statistics_compared;
        if (!within_tolerance(a, b, tolerance)) {
          const double inf = std::numeric_limits<double>::infinity();
          report.changes.push_back(
              {text, b_rows.keys[i], f.value, a, b, 0, 0, a > b ? inf : -inf, true, relative_difference(a, b)});
        }
        continue;
      }
      candidates.push_back({ordinal, i, s, a, b, sa, sb, floor, na, nb, skew, variance, 0, 0});
    }
    auto compare_exact = [&](const std::string& field, bool gate) {
      const Json vb = value_or_null(rb, field), vf = value_or_null(rf, field);
      bool agree;
      double rel = kNaN;
      if (vb.is_null() || vf.is_null()) {
        agree = vb.is_null() && vf.is_null();
      } else if (vb.is_number() && vf.is_number()) {
        const double x = vb.get<double>(), y = vf.get<double>();
        agree = within_tolerance(x, y, tolerance);
        rel = relative_difference(x, y);
      } else {
        agree = vb == vf;
      }
      if (!agree) report.exact_mismatches.push_back({text, b_rows.keys[i], field, vb, vf, rel, gate});
    };
    for (const std::string& field : schema.exact) compare_exact(field, false);
    for (const std::string& field : gate_fields) compare_exact(field, true);
    if (!schema.verdict.empty()) {
      const std::string vb = verdict_text(member(rb, schema.verdict)), vf = verdict_text(member(rf, schema.verdict));
      if (vb != vf) report.verdict_changes.push_back({text, vb, vf});
    }
  }

  // Pass 2: the Bonferroni split over all candidates, the heavy-tail gate, the z tests and, past the gate, Chebyshev.
  report.bonferroni_tests = static_cast<std::int64_t>(candidates.size());
  report.point_alpha = bonferroni_alpha(alpha, candidates.size());
  report.z_critical = two_sided_critical_z(report.point_alpha);
  for (const Candidate& c : candidates) {
    const StatisticFields& f = schema.statistics[c.statistic];
    const std::string& text = b_rows.texts[c.base_row];
    if (f.binomial) {
      // The exact conditional test: no normal approximation, so no skewness gate and no rounding floor (counts).
      ++report.statistics_compared;
      ++report.compared_binomial;
      const double pv = binomial_two_sample_p(c.ka, static_cast<std::int64_t>(c.na), c.kb,
                                              static_cast<std::int64_t>(c.nb));
      if (pv < report.smallest_binomial_p) {
        report.smallest_binomial_p = pv;
        report.smallest_binomial_at = text + ": " + f.value;
      }
      if (pv <= report.point_alpha) {
        StatisticChange change{text, b_rows.keys[c.base_row], f.value, c.a, c.b, 0, 0, 0, false,
                               relative_difference(c.a, c.b)};
        change.binomial = true;
        change.p_value = pv;
        change.base_successes = c.ka;
        change.fresh_successes = c.kb;
        change.base_trials = static_cast<std::int64_t>(c.na);
        change.fresh_trials = static_cast<std::int64_t>(c.nb);
        // The normal z with the same two-sided p, for the worst-first order of the changes.
        const double zeq = two_sided_critical_z(std::max(pv, 1e-300));
        change.z = c.a >= c.b ? zeq : -zeq;
        report.changes.push_back(std::move(change));
      }
      continue;
    }
    const auto trials = static_cast<std::int64_t>(std::min(c.na, c.nb));
    const bool rounding = std::abs(c.a - c.b) <= c.floor;
    if (!f.skewness.empty()) {
      // Two-sided: the point α is what trials_for_reliable_z_test takes (it allows each tail α/2).
      const std::int64_t needed = std::isfinite(c.skewness)
                                      ? trials_for_reliable_z_test(c.skewness, report.z_critical, report.point_alpha)
                                      : kMaxTrials;
      if (needed > trials) {
        // Past the gate the z test's level is unknown, but Chebyshev's inequality holds for any distribution with
        // the closed-form variance σ² of one draw: P(|X̄_a − X̄_b| ≥ k·σ·sqrt(1/n_a + 1/n_b)) ≤ 1/k², k = 1/sqrt(α_p).
        if (std::isfinite(c.variance)) {
          ++report.statistics_compared;
          ++report.compared_chebyshev;
          const double spread = std::sqrt(c.variance * (1 / c.na + 1 / c.nb));
          const double k = std::abs(c.a - c.b) / spread;  // +inf for a deterministic statistic that moved
          if (k > 1 / std::sqrt(report.point_alpha) && !rounding)
            report.changes.push_back({text, b_rows.keys[c.base_row], f.value, c.a, c.b, c.sa, c.sb,
                                      (c.a - c.b) / std::hypot(c.sa, c.sb), false, relative_difference(c.a, c.b),
                                      true, c.a > c.b ? k : -k});
          continue;
        }
        ++report.skipped_heavy_tailed;
        skipped.emplace_back(c.ordinal,
                             SkippedStatistic{text, f.value, SkippedStatistic::Reason::heavy_tailed, trials, needed});
        continue;
      }
    }
    ++report.statistics_compared;
    const double z = (c.a - c.b) / std::hypot(c.sa, c.sb);
    if (std::abs(z) > report.largest_abs_z || report.largest_at.empty()) {
      report.largest_abs_z = std::abs(z);
      report.largest_at = text + ": " + f.value;
    }
    // The rounding floor: a difference within --tolerance of the statistic's own scale is rounding, not evidence,
    // however small the standard errors — where an estimator is deterministic (x + y = 0 for positive features) its
    // "standard error" is itself rounding noise of 1e-19, and another build moves the value by more.
    if (std::abs(z) > report.z_critical && rounding) ++report.within_rounding;
    if (std::abs(z) > report.z_critical && !rounding)
      report.changes.push_back(
          {text, b_rows.keys[c.base_row], f.value, c.a, c.b, c.sa, c.sb, z, false, relative_difference(c.a, c.b)});
  }
  const std::int64_t judged = report.statistics_compared + report.skipped_heavy_tailed + report.skipped_nonfinite;
  report.max_uncompared_fraction = max_uncompared_fraction;
  report.uncompared_fraction =
      judged == 0 ? 0.0
                  : static_cast<double>(report.skipped_heavy_tailed + report.skipped_nonfinite) / static_cast<double>(judged);

  std::stable_sort(report.changes.begin(), report.changes.end(),
                   [](const StatisticChange& x, const StatisticChange& y) {
                     if (x.deterministic != y.deterministic) return x.deterministic;
                     if (x.deterministic) return x.relative_difference > y.relative_difference;
                     return std::abs(x.z) > std::abs(y.z);
                   });
  std::stable_sort(skipped.begin(), skipped.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& entry : skipped) report.skipped.push_back(std::move(entry.second));

  compare_checks(base, fresh, report);
  return report;
}

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
  j["statistics"] = {{"compared", r.statistics_compared},
                     {"absent", r.statistics_absent},
                     {"skipped_heavy_tailed", r.skipped_heavy_tailed},
                     {"skipped_nonfinite", r.skipped_nonfinite},
                     {"within_rounding", r.within_rounding},
                     {"compared_chebyshev", r.compared_chebyshev},
                     {"compared_binomial", r.compared_binomial}};
  j["smallest_binomial_p"] = r.smallest_binomial_at.empty() ? Json(nullptr) : Json(r.smallest_binomial_p);
  j["smallest_binomial_at"] = r.smallest_binomial_at.empty() ? Json(nullptr) : Json(r.smallest_binomial_at);
  j["largest_abs_z"] = r.largest_at.empty() ? Json(nullptr) : number_or_null(r.largest_abs_z);
  j["largest_at"] = r.largest_at.empty() ? Json(nullptr) : Json(r.largest_at);
  j["changes"] = Json::array();
  for (const StatisticChange& c : r.changes)
    j["changes"].push_back({{"row", c.row_key_text},
                            {"key", c.row_key},
                            {"field", c.field},
                            {"baseline", number_or_null(c.base)},
                            {"new", number_or_null(c.fresh)},
                            {"baseline_stderr", number_or_null(c.base_se)},
                            {"new_stderr", number_or_null(c.fresh_se)},
                            {"z", number_or_null(c.z)},
                            {"deterministic", c.deterministic},
                            {"relative_difference", number_or_null(c.relative_difference)},
                            {"chebyshev", c.chebyshev},
                            {"chebyshev_k", c.chebyshev ? number_or_null(c.chebyshev_k) : Json(nullptr)},
                            {"binomial", c.binomial},
                            {"p_value", c.binomial ? Json(c.p_value) : Json(nullptr)}});
  j["exact_mismatches"] = Json::array();
  for (const ExactMismatch& m : r.exact_mismatches)
    j["exact_mismatches"].push_back({{"row", m.row_key_text},
                                     {"key", m.row_key},
                                     {"field", m.field},
                                     {"baseline", m.base},
                                     {"new", m.fresh},
                                     {"relative_difference", number_or_null(m.relative_difference)},
                                     {"gate_field", m.gate_field}});
  j["only_in_baseline"] = r.only_in_base;
  j["only_in_new"] = r.only_in_fresh;
  j["skipped"] = Json::array();
  for (const SkippedStatistic& s : r.skipped) {
    Json e{{"row", s.row_key_text}, {"field", s.field}, {"reason", reason_name(s.reason)}};
    if (s.reason == SkippedStatistic::Reason::heavy_tailed) {
      e["trials"] = s.trials;
      e["trials_needed"] = s.trials_needed == kMaxTrials ? Json(nullptr) : Json(s.trials_needed);
    }
    j["skipped"].push_back(std::move(e));
  }
  auto verdicts = [](const std::vector<VerdictChange>& v) {
    Json a = Json::array();
    for (const VerdictChange& c : v) a.push_back({{"subject", c.subject}, {"baseline", c.base}, {"new", c.fresh}});
    return a;
  };
  j["verdict_changes"] = verdicts(r.verdict_changes);
  j["check_changes"] = verdicts(r.check_changes);
  return j;
}

std::vector<std::string> compare_report_lines(const CompareReport& r, std::size_t max_lines) {
  std::vector<std::string> detail;
  for (const ExactMismatch& m : r.exact_mismatches) {
    std::string line = std::string(m.gate_field ? "gate field " : "exact field ") + m.field + " differs at " + m.row_key_text + ": " + m.base.dump() + " -> " +
                       m.fresh.dump();
    if (std::isfinite(m.relative_difference))
      line += " (relative difference " + format_number(m.relative_difference, 3) + " > tolerance " +
              format_number(r.tolerance, 3) + ")";
    detail.push_back(std::move(line));
  }
  for (const StatisticChange& c : r.changes) {
    if (c.binomial) {
      detail.push_back(c.field + " changed at " + c.row_key_text + ": " + format_number(c.base) + " (" +
                       std::to_string(c.base_successes) + " of " + std::to_string(c.base_trials) + ") -> " +
                       format_number(c.fresh) + " (" + std::to_string(c.fresh_successes) + " of " +
                       std::to_string(c.fresh_trials) + "), exact binomial p = " + format_number(c.p_value, 3) +
                       " (p <= " + format_number(r.point_alpha, 3) + ")");
    } else if (c.chebyshev) {
      detail.push_back(c.field + " changed at " + c.row_key_text + ": " + format_number(c.base) + " -> " +
                       format_number(c.fresh) + ", heavy-tailed: Chebyshev k = " + format_number(c.chebyshev_k, 4) +
                       " closed-form standard deviations (|k| > " +
                       format_number(1 / std::sqrt(r.point_alpha), 4) + ")");
    } else if (c.deterministic) {
      detail.push_back(c.field + " changed at " + c.row_key_text + ": " + format_number(c.base, 10) + " -> " +
                       format_number(c.fresh, 10) + " (standard errors 0; relative difference " +
                       format_number(c.relative_difference, 3) + " > tolerance " + format_number(r.tolerance, 3) + ")");
    } else {
      detail.push_back(c.field + " changed at " + c.row_key_text + ": " + format_number(c.base) + " +- " +
                       format_number(c.base_se, 3) + " -> " + format_number(c.fresh) + " +- " +
                       format_number(c.fresh_se, 3) + ", z = " + format_number(c.z, 4) + " (|z| > " +
                       format_number(r.z_critical, 4) + ")");
    }
  }
  for (const std::string& k : r.only_in_base) detail.push_back("row only in baseline: " + k);
  for (const SkippedStatistic& k : r.skipped)
    detail.push_back(k.field + " not compared at " + k.row_key_text + " (" +
                     (k.reason == SkippedStatistic::Reason::nonfinite
                          ? std::string("non-finite")
                          : "heavy-tailed, no closed-form variance; a z test needs " +
                                (k.trials_needed == kMaxTrials ? std::string("an unknown number of")
                                                               : format_number(static_cast<double>(k.trials_needed), 3)) +
                                " trials, the smaller run has " + std::to_string(k.trials)) +
                     ")");
  for (const std::string& k : r.only_in_fresh) detail.push_back("row only in new: " + k);
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
  if (!r.largest_at.empty()) summary += " (largest |z| " + format_number(r.largest_abs_z, 3) + " at " + r.largest_at + ")";
  if (r.compared_binomial > 0)
    summary += ", " + std::to_string(r.compared_binomial) + " proportions by the exact binomial test (smallest p " +
               format_number(r.smallest_binomial_p, 3) + ")";
  if (r.compared_chebyshev > 0)
    summary += ", " + std::to_string(r.compared_chebyshev) + " of them heavy-tailed, by Chebyshev's inequality";
  summary += ", " + std::to_string(r.skipped_heavy_tailed) + " not compared (heavy-tailed), " +
             std::to_string(r.skipped_nonfinite) + " not compared (non-finite), " +
             std::to_string(r.within_rounding) + " past |z| but within rounding (" +
             format_number(100 * r.uncompared_fraction, 3) + " % not compared, at most " +
             format_number(100 * r.max_uncompared_fraction, 3) + " % allowed); " +
             plural(static_cast<std::int64_t>(r.verdict_changes.size()), "row verdict", "row verdicts") + " and " +
             plural(static_cast<std::int64_t>(r.check_changes.size()), "check verdict", "check verdicts") +
             " changed (informational)";
  lines.push_back(std::move(summary));
  return lines;
}

}  // namespace favorlab
