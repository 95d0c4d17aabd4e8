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
#include "stats/two_sample_bounds.hpp"

namespace favorlab {

const char* statistic_test_name(StatisticTest test) {
  switch (test) {
    case StatisticTest::z: return "z";
    case StatisticTest::chebyshev: return "chebyshev";
    case StatisticTest::hoeffding: return "hoeffding";
    case StatisticTest::bernstein: return "bernstein";
    case StatisticTest::sampled_chebyshev: return "sampled_chebyshev";
    case StatisticTest::deterministic: return "deterministic";
    case StatisticTest::binomial: return "binomial";
    case StatisticTest::rounding: return "rounding";
    case StatisticTest::none: return "none";
  }
  return "none";
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

struct StatisticFields {
  std::string value, stderr_field, count, skewness;  // skewness empty: none declared
  bool skewness_sampled = false;                      // a sampled gate figure: the baseline's, never compared
  std::string variance;                               // closed-form variance of one draw; empty: none declared
  std::string variance_bound;                         // a closed-form upper bound on it; empty: none declared
  std::string range;                                  // length of an interval holding every draw; empty: none
  std::string defined;                                // boolean row field: false where the statistic has no mean
  std::string rounding_scale;                         // exact field rounding is relative to; empty: the value's own
  int rounding_power = 1;                             // the statistic's units are those of rounding_scale^power
  bool binomial = false;                              // kind "binomial": a proportion successes/count, no stderr
  std::string successes;                              // binomial: the field counting successes
  std::vector<std::string> count_params;              // params members the count comes from; empty: unchecked
  std::string count_look, count_dropped;              // row fields: the look, the draws left out as non-finite
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

// "count_param": a field name or an array of them.
std::vector<std::string> count_params(const Json& item, const std::string& at) {
  const Json* j = member(item, "count_param");
  if (j == nullptr || j->is_null()) return {};
  if (j->is_string()) return {field_name(*j, at + ".count_param")};
  std::vector<std::string> names = field_names(j, at + ".count_param", true);
  if (names.empty()) fail(at + ".count_param must name at least one params member");
  return names;
}

// The members every statistic may have, whatever its kind: how its count is checked.
void parse_count_members(const Json& item, const std::string& at, StatisticFields& f) {
  f.count_params = count_params(item, at);
  f.count_look = optional_field_name(item, "count_look", at);
  f.count_dropped = optional_field_name(item, "count_dropped", at);
  if ((!f.count_look.empty() || !f.count_dropped.empty()) && f.count_params.empty())
    fail(at + " " + item.dump() + ": 'count_look' and 'count_dropped' need a 'count_param'");
}

StatisticFields parse_binomial(const Json& item, const std::string& at) {
  // A proportion is judged on its counts: no standard error, and no gate (the exact test holds at any n).
  for (const char* required : {"value", "successes", "count"})
    if (member(item, required) == nullptr) fail(at + " " + item.dump() + " lacks '" + required + "'");
  for (const char* refused : {"stderr", "skewness", "skewness_sampled", "variance", "variance_bound", "range",
                              "defined", "rounding_scale", "rounding_power"})
    if (member(item, refused) != nullptr)
      fail(at + " " + item.dump() + ": a binomial statistic takes no '" + refused + "'");
  StatisticFields f;
  f.binomial = true;
  f.value = field_name(item["value"], at + ".value");
  f.successes = field_name(item["successes"], at + ".successes");
  f.count = field_name(item["count"], at + ".count");
  parse_count_members(item, at, f);
  return f;
}

StatisticFields parse_mean(const Json& item, const std::string& at) {
  if (member(item, "successes") != nullptr)
    fail(at + " " + item.dump() + ": 'successes' belongs to a statistic of kind \"binomial\"");
  for (const char* required : {"value", "stderr", "count"})
    if (member(item, required) == nullptr) fail(at + " " + item.dump() + " lacks '" + required + "'");
  StatisticFields f;
  f.value = field_name(item["value"], at + ".value");
  f.stderr_field = field_name(item["stderr"], at + ".stderr");
  f.count = field_name(item["count"], at + ".count");
  f.skewness = optional_field_name(item, "skewness", at);
  if (const Json* sampled = member(item, "skewness_sampled"); sampled != nullptr && !sampled->is_null()) {
    if (!sampled->is_boolean()) fail(at + ".skewness_sampled must be true or false, got " + sampled->dump());
    f.skewness_sampled = sampled->get<bool>();
  }
  f.variance = optional_field_name(item, "variance", at);
  f.variance_bound = optional_field_name(item, "variance_bound", at);
  f.range = optional_field_name(item, "range", at);
  f.defined = optional_field_name(item, "defined", at);
  f.rounding_scale = optional_field_name(item, "rounding_scale", at);
  if (const Json* power = member(item, "rounding_power"); power != nullptr && !power->is_null()) {
    if (!power->is_number_integer() || (power->get<int>() != 1 && power->get<int>() != 2))
      fail(at + ".rounding_power must be 1 or 2, got " + power->dump());
    f.rounding_power = power->get<int>();
  }
  parse_count_members(item, at, f);
  return f;
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
      const std::string kind = optional_field_name(item, "kind", at);
      if (!kind.empty() && kind != "mean" && kind != "binomial")
        fail(at + ".kind must be \"mean\" or \"binomial\", got \"" + kind + "\"");
      s.statistics.push_back(kind == "binomial" ? parse_binomial(item, at) : parse_mean(item, at));
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

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A statistic's count in one row: a whole number of at least 2 draws, and where the schema says which params it comes
// from, exactly what they say (param·2^look, less the draws left out as non-finite): no file lowers the count its
// own test is scaled to by editing its rows. Returns {count, dropped}.
// A null count (the caller's to settle) is returned as NaN.
std::pair<double, double> checked_count(const Json& row, const StatisticFields& f, const Json& params,
                                        const char* file, std::size_t index) {
  const double n = count_field(row, f.count, file, index);
  if (std::isnan(n)) return {kNaN, 0};
  if (n < 2)
    fail(row_at(file, index, f.count) + " is " + format_number(n, 17) + ": a statistic needs at least 2 draws");
  double dropped = 0;
  if (!f.count_dropped.empty()) {
    const double d = count_field(row, f.count_dropped, file, index);
    if (!std::isnan(d)) dropped = d;
  }
  if (f.count_params.empty()) return {n, dropped};
  int look = 0;
  if (!f.count_look.empty()) {
    const double k = number_field(row, f.count_look, file, index);
    if (!std::isnan(k)) {
      if (k < 0 || k > 62 || k != std::trunc(k))
        fail(row_at(file, index, f.count_look) + " is not a look in [0, 62]: " + format_number(k, 17));
      look = static_cast<int>(k);
    }
  }
  std::string said;
  for (const std::string& name : f.count_params) {
    const Json* v = member(params, name);
    if (v == nullptr || !v->is_number()) continue;
    const double drawn = std::ldexp(v->get<double>(), look);
    if (drawn == n + dropped) return {n, dropped};
    said += (said.empty() ? "" : ", ") + name + " = " + v->dump();
  }
  fail(row_at(file, index, f.count) + " is " + format_number(n, 17) +
       (dropped > 0 ? " (and " + format_number(dropped, 17) + " non-finite draws)" : std::string()) +
       " but its params say " + (said.empty() ? "nothing (no " + join(f.count_params) + ")" : said) +
       (look > 0 ? " times 2^" + std::to_string(look) + " (look " + std::to_string(look) + ")" : std::string()));
}

// A pair of rows' statistic, held until the Bonferroni split over all of them is known.
struct Candidate {
  std::size_t ordinal;  // row position × statistics + statistic, for the order of the lists
  std::size_t base_row;
  std::size_t statistic;
  double a, b, sa, sb;
  double floor;         // the rounding floor of |a − b| (the statistic's own scale, never another field's)
  double floor_scale;   // its part that does not scale with the values: (tolerance·R)^p
  double na, nb;
  double skewness;      // |γ| from the baseline only; NaN: unknown; unused without a declared skewness
  double variance, variance_bound, range;  // from the baseline only; NaN: none
  std::int64_t ka = 0, kb = 0;  // binomial: the successes (a, b are the proportions, na, nb the trials)
};

// Where a statistic is in one file and not the other: a change, never "not compared" (a new file that nulls a
// figure hides nothing by it).
StatisticChange missing_change(const std::string& text, const Json& key, const std::string& field, double a, double b,
                               const std::string& what) {
  StatisticChange c;
  c.row_key_text = text;
  c.row_key = key;
  c.field = field;
  c.kind = StatisticChange::Kind::missing;
  c.missing_field = what;
  c.base = a;
  c.fresh = b;
  c.excess = kInf;
  c.z = kInf;
  c.relative_difference = kInf;  // first among the first: nothing moved by less
  return c;
}

struct RowPair {
  const Json& rb;
  const Json& rf;
  std::size_t i, j;             // row indices in the baseline and the new file
  const std::string& text;
  const Json& key;
  const Json& params_base;
  const Json& params_fresh;
};

// A binomial statistic of one paired row: settles the absent and missing pairs, refuses inconsistent counts, and
// collects the rest as candidates of the exact conditional test (pass 2).
void binomial_pass1(const RowPair& p, const StatisticFields& f, std::size_t ordinal, std::size_t statistic,
                    CompareReport& report, std::vector<Candidate>& candidates) {
  const double a = number_field(p.rb, f.value, "baseline", p.i), b = number_field(p.rf, f.value, "new", p.j);
  const double ka = count_field(p.rb, f.successes, "baseline", p.i), kb = count_field(p.rf, f.successes, "new", p.j);
  const bool in_base = !std::isnan(a) || !std::isnan(ka), in_fresh = !std::isnan(b) || !std::isnan(kb);
  if (!in_base && !in_fresh) {
    ++report.statistics_absent;
    return;
  }
  if (std::isnan(a) || std::isnan(ka) || std::isnan(b) || std::isnan(kb)) {
    const bool base_whole = !std::isnan(a) && !std::isnan(ka);
    report.changes.push_back(missing_change(p.text, p.key, f.value, a, b,
                                            base_whole ? "in the new file" : "in the baseline"));
    return;
  }
  const double na = checked_count(p.rb, f, p.params_base, "baseline", p.i).first;
  const double nb = checked_count(p.rf, f, p.params_fresh, "new", p.j).first;
  if (std::isnan(na) || std::isnan(nb)) {
    report.changes.push_back(missing_change(p.text, p.key, f.value, a, b,
                                            std::string("its count '") + f.count + "' in the " +
                                                (std::isnan(na) ? "baseline" : "new file")));
    return;
  }
  // The proportion must be what the counts say: the test reads the counts, the report shows the value.
  auto consistent = [&](double value, double k, double n, const char* file, std::size_t index) {
    if (k > n)
      fail(row_at(file, index, f.successes) + " counts " + format_number(k, 17) + " successes in " +
           format_number(n, 17) + " trials ('" + f.count + "')");
    if (std::abs(value - k / n) > 1e-12 * (k / n))
      fail(row_at(file, index, f.value) + " is " + format_number(value, 15) + " but " + f.successes + "/" + f.count +
           " = " + format_number(k / n, 15));
  };
  consistent(a, ka, na, "baseline", p.i);
  consistent(b, kb, nb, "new", p.j);
  candidates.push_back({ordinal, p.i, statistic, a, b, 0, 0, 0, 0, na, nb, kNaN, kNaN, kNaN, kNaN,
                        static_cast<std::int64_t>(ka), static_cast<std::int64_t>(kb)});
}

// A mean-kind statistic of one paired row: the absent, missing and baseline-incomplete pairs are settled here, the
// rest become candidates. Every figure that decides the test comes from the baseline; the new file gives its value,
// its count (checked against its params) and its standard error (for the spread test only).
void mean_pass1(const RowPair& p, const StatisticFields& f, std::size_t ordinal, std::size_t statistic,
                double tolerance, CompareReport& report,
                std::vector<std::pair<std::size_t, SkippedStatistic>>& skipped, std::vector<Candidate>& candidates) {
  // A statistic the baseline's row declares undefined (a sample mean of a law with no mean) estimates nothing, in
  // either file: it does not apply. The field is a gate field, so a new file that flips it is changed.
  if (!f.defined.empty()) {
    const Json* defined = member(p.rb, f.defined);
    if (defined != nullptr && !defined->is_null() && !defined->is_boolean())
      fail(row_at("baseline", p.i, f.defined) + " must be true or false, got " + defined->dump());
    if (defined != nullptr && defined->is_boolean() && !defined->get<bool>()) {
      ++report.statistics_absent;
      return;
    }
  }
  const double a = number_field(p.rb, f.value, "baseline", p.i), b = number_field(p.rf, f.value, "new", p.j);
  if (std::isnan(a) && std::isnan(b)) {
    ++report.statistics_absent;
    return;
  }
  if (std::isnan(a) != std::isnan(b)) {
    report.changes.push_back(
        missing_change(p.text, p.key, f.value, a, b, std::isnan(b) ? "in the new file" : "in the baseline"));
    return;
  }
  const auto [na, dropped_a] = checked_count(p.rb, f, p.params_base, "baseline", p.i);
  const auto [nb, dropped_b] = checked_count(p.rf, f, p.params_fresh, "new", p.j);
  const double sa = stderr_field(p.rb, f.stderr_field, "baseline", p.i);
  const double sb = stderr_field(p.rf, f.stderr_field, "new", p.j);
  if (std::isnan(sa) || std::isnan(na) || dropped_a > 0) {  // the baseline cannot judge this figure
    ++report.skipped_nonfinite;
    skipped.emplace_back(ordinal, SkippedStatistic{p.text, f.value, SkippedStatistic::Reason::nonfinite, 0, 0});
    return;
  }
  if (std::isnan(sb) || std::isnan(nb) || dropped_b > 0) {
    const std::string what = std::isnan(sb)   ? "its standard error '" + f.stderr_field + "' in the new file"
                             : std::isnan(nb) ? "its count '" + f.count + "' in the new file"
                                              : "finite draws: the new file drops " + format_number(dropped_b, 17) +
                                                    " as non-finite";
    report.changes.push_back(missing_change(p.text, p.key, f.value, a, b, what));
    return;
  }
  const double skew = f.skewness.empty() ? kNaN : std::abs(number_field(p.rb, f.skewness, "baseline", p.i));
  auto gate_number = [&](const std::string& field, const char* what) {
    if (field.empty()) return kNaN;
    const double v = number_field(p.rb, field, "baseline", p.i);
    if (!std::isnan(v) && v < 0)
      fail(row_at("baseline", p.i, field) + " is a negative " + what + ": " + format_number(v));
    return v;
  };
  const double variance = gate_number(f.variance, "variance");
  const double bound = gate_number(f.variance_bound, "variance bound");
  const double range = gate_number(f.range, "range");
  // Rounding moves a statistic by a fraction of its own size, or, where the schema names one, of its own closed
  // form's scale to the statistic's power (an MSE near 0 is a mean of squared rounding errors of the truth).
  double floor_scale = 0;
  if (!f.rounding_scale.empty()) {
    const double r = number_field(p.rb, f.rounding_scale, "baseline", p.i);  // the baseline's, like the gate's
    if (std::isfinite(r)) floor_scale = std::pow(tolerance * std::abs(r), f.rounding_power);
  }
  const double floor = tolerance * std::max(std::abs(a), std::abs(b)) + floor_scale;
  candidates.push_back({ordinal, p.i, statistic, a, b, sa, sb, floor, floor_scale, na, nb, skew, variance, bound,
                        range, 0, 0});
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


// How one candidate is tested, decided from the baseline's figures and the two counts before a − b is looked at.
struct Judgement {
  StatisticTest test = StatisticTest::none;
  double threshold = kInf;   // |a − b| beyond which the pair is changed (the rounding floor aside)
  double sigma = kNaN;       // the spread of one draw the test is scaled to (for z and Chebyshev's k)
  double spread_reference = kNaN;  // what the new file's spread of one draw is held to; NaN: no spread test
  bool spread_exact = false;       // that reference is a closed form or bound (Markov), not the baseline's sample
  std::int64_t trials_needed = 0;  // past the gate: what the z test would need
};

Judgement judge_mean(const Candidate& c, const StatisticFields& f, double point_alpha, double z_critical) {
  Judgement j;
  const double sampled = c.sa * std::sqrt(c.na);
  // A closed-form variance of 0 beside a baseline whose own spread is beyond rounding has underflowed (a variance of
  // 1e-357 is 0 in double): it is no closed form then.
  const bool exact_usable = std::isfinite(c.variance) && (c.variance > 0 || c.sa <= c.floor);
  const double exact_sd = exact_usable ? std::sqrt(c.variance) : kNaN;
  const double range = std::isfinite(c.range) && (c.range > 0 || c.sa <= c.floor) ? c.range : kNaN;
  // What a distribution-free test may scale to: the closed-form spread, else its bound; and Popoviciu's σ ≤ R/2 for
  // draws in an interval of length R. Spreads, never squared: a spread of 1e-172 has no double square.
  const double declared_sd = exact_usable                                            ? exact_sd
                             : std::isfinite(c.variance_bound) && c.variance_bound > 0 ? std::sqrt(c.variance_bound)
                                                                                       : kNaN;
  const double popoviciu = range / 2;
  const double free_sd = std::fmin(declared_sd, popoviciu);  // fmin: NaN only when both are
  const double sigma_z = std::isnan(exact_sd) ? sampled : exact_sd;
  if (sigma_z == 0) {  // an exact figure (a closed form of 0, or a baseline whose draws all agreed)
    j.test = StatisticTest::deterministic;
    j.threshold = 0;
    j.sigma = 0;
    j.spread_reference = 0;
    j.spread_exact = true;
    return j;
  }
  const double n_min = std::min(c.na, c.nb), spread = std::sqrt(1 / c.na + 1 / c.nb);
  bool reliable = f.skewness.empty();
  if (!reliable) {
    j.trials_needed = std::isfinite(c.skewness) ? trials_for_reliable_z_test(c.skewness, z_critical, point_alpha)
                                                : kTrialsOutOfReach;
    reliable = static_cast<double>(j.trials_needed) <= n_min;
  }
  j.spread_exact = std::isfinite(free_sd);
  j.spread_reference = j.spread_exact ? free_sd : sampled;
  if (reliable) {
    j.test = StatisticTest::z;
    j.sigma = sigma_z;
    j.threshold = z_critical * sigma_z * spread;
    return j;
  }
  // Past the gate: the smallest distribution-free bound the baseline's closed forms allow.
  auto consider = [&](StatisticTest test, double threshold) {
    if (std::isfinite(threshold) && threshold < j.threshold) {
      j.test = test;
      j.threshold = threshold;
    }
  };
  if (std::isfinite(declared_sd))
    consider(StatisticTest::chebyshev, chebyshev_threshold(declared_sd, c.na, c.nb, point_alpha));
  if (std::isfinite(range)) {
    consider(StatisticTest::hoeffding, hoeffding_threshold(range, c.na, c.nb, point_alpha));
    consider(StatisticTest::bernstein, bernstein_threshold(free_sd, range, c.na, c.nb, point_alpha));
  }
  if (j.test != StatisticTest::none) {
    j.sigma = free_sd;
    return j;
  }
  // None declared: the baseline's own spread in σ's place, where the mean is not too skewed (its level simulated).
  if (std::isfinite(c.skewness) && c.skewness / std::sqrt(n_min) <= kSampledSkewnessLimit && c.sa > 0) {
    j.test = StatisticTest::sampled_chebyshev;
    j.sigma = sampled;
    j.threshold = chebyshev_threshold(sampled, c.na, c.nb, point_alpha);
    return j;
  }
  j.spread_reference = kNaN;  // nothing to hold the new spread to either
  return j;
}

// The normal z with the same two-sided level as a distribution-free test's excess over its threshold, for the
// worst-first order of the changes: excess 1 is z_crit.
double ordering_z(double excess, double z_critical) { return excess * z_critical; }

// The new file's spread of one draw against the baseline's: Markov's inequality for a closed form or bound, a gross
// check for the baseline's sample. A standard error within the rounding floor is rounding noise, never tested.
void spread_test(const Candidate& c, const Judgement& j, const StatisticFields& f, const std::string& text,
                 const Json& key, CompareReport& report) {
  if (std::isnan(j.spread_reference) || !(c.sb > c.floor)) return;
  const double fresh_spread = c.sb * std::sqrt(c.nb), limit = j.spread_reference / std::sqrt(report.point_alpha);
  if (!(fresh_spread > limit)) return;
  StatisticChange change;
  change.row_key_text = text;
  change.row_key = key;
  change.field = f.value;
  change.kind = StatisticChange::Kind::spread;
  change.test = j.test;
  change.base = c.a;
  change.fresh = c.b;
  change.base_se = c.sa;
  change.fresh_se = c.sb;
  change.threshold = limit;
  change.excess = limit > 0 ? fresh_spread / limit : kInf;
  change.z = ordering_z(change.excess, report.z_critical);
  change.deterministic = j.test == StatisticTest::deterministic;
  change.relative_difference = relative_difference(c.a, c.b);
  change.chebyshev = j.spread_exact;  // Markov on a closed form, not the gross check
  report.changes.push_back(std::move(change));
}

void record_judged(const Candidate& c, StatisticTest test, double threshold, const std::string& text,
                   const StatisticFields& f, CompareReport& report) {
  JudgedStatistic s;
  s.row_key_text = text;
  s.field = f.value;
  s.test = test;
  s.base = c.a;
  s.threshold = threshold;
  s.floor_scale = c.floor_scale;
  if (f.binomial) {
    s.base_successes = c.ka;
    s.base_trials = static_cast<std::int64_t>(c.na);
    s.fresh_trials = static_cast<std::int64_t>(c.nb);
  }
  report.judged.push_back(std::move(s));
}

// Pass 2 for a mean-kind candidate: its test, its spread test, and whether it changed.
void judge_mean_candidate(const Candidate& c, const StatisticFields& f, const std::string& text, const Json& key,
                          std::vector<std::pair<std::size_t, SkippedStatistic>>& skipped, CompareReport& report) {
  const Judgement j = judge_mean(c, f, report.point_alpha, report.z_critical);
  const double diff = std::abs(c.a - c.b);
  if (j.test == StatisticTest::none) {
    if (diff <= c.floor) {  // identical to rounding: unchanged whatever the tails
      ++report.statistics_compared;
      record_judged(c, StatisticTest::rounding, kInf, text, f, report);
      return;
    }
    ++report.skipped_heavy_tailed;
    skipped.emplace_back(c.ordinal, SkippedStatistic{text, f.value, SkippedStatistic::Reason::heavy_tailed,
                                                     static_cast<std::int64_t>(std::min(c.na, c.nb)),
                                                     j.trials_needed});
    record_judged(c, StatisticTest::none, kInf, text, f, report);
    return;
  }
  ++report.statistics_compared;
  if (j.test != StatisticTest::z && j.test != StatisticTest::deterministic) ++report.compared_chebyshev;
  record_judged(c, j.test, j.threshold, text, f, report);
  const double spread = std::sqrt(1 / c.na + 1 / c.nb);
  const double k = j.sigma > 0 ? (c.a - c.b) / (j.sigma * spread) : (c.a == c.b ? 0.0 : std::copysign(kInf, c.a - c.b));
  if (j.test == StatisticTest::z && (std::abs(k) > report.largest_abs_z || report.largest_at.empty())) {
    report.largest_abs_z = std::abs(k);
    report.largest_at = text + ": " + f.value;
  }
  spread_test(c, j, f, text, key, report);
  if (!(diff > j.threshold)) return;
  // The rounding floor: a difference within --tolerance of the statistic's own scale is rounding, not evidence,
  // however small the standard errors — where an estimator is deterministic (x + y = 0 for positive features) its
  // "standard error" is itself rounding noise of 1e-19, and another build moves the value by more.
  if (diff <= c.floor) {
    ++report.within_rounding;
    return;
  }
  StatisticChange change;
  change.row_key_text = text;
  change.row_key = key;
  change.field = f.value;
  change.test = j.test;
  change.base = c.a;
  change.fresh = c.b;
  change.base_se = c.sa;
  change.fresh_se = c.sb;
  change.threshold = j.threshold;
  change.excess = j.threshold > 0 ? diff / j.threshold : kInf;
  change.deterministic = j.test == StatisticTest::deterministic;
  change.z = j.test == StatisticTest::z || change.deterministic ? k : std::copysign(ordering_z(change.excess,
                                                                                                report.z_critical),
                                                                                    c.a - c.b);
  change.relative_difference = relative_difference(c.a, c.b);
  change.chebyshev = !change.deterministic && j.test != StatisticTest::z;
  change.chebyshev_k = change.chebyshev ? k : 0;
  report.changes.push_back(std::move(change));
}

void judge_binomial_candidate(const Candidate& c, const StatisticFields& f, const std::string& text, const Json& key,
                              CompareReport& report) {
  // The exact conditional test: no normal approximation, so no skewness gate and no rounding floor (counts).
  ++report.statistics_compared;
  ++report.compared_binomial;
  record_judged(c, StatisticTest::binomial, 0, text, f, report);
  const double pv = binomial_two_sample_p(c.ka, static_cast<std::int64_t>(c.na), c.kb, static_cast<std::int64_t>(c.nb));
  if (pv < report.smallest_binomial_p) {
    report.smallest_binomial_p = pv;
    report.smallest_binomial_at = text + ": " + f.value;
  }
  if (pv > report.point_alpha) return;
  StatisticChange change;
  change.row_key_text = text;
  change.row_key = key;
  change.field = f.value;
  change.test = StatisticTest::binomial;
  change.base = c.a;
  change.fresh = c.b;
  change.relative_difference = relative_difference(c.a, c.b);
  change.binomial = true;
  change.p_value = pv;
  change.base_successes = c.ka;
  change.fresh_successes = c.kb;
  change.base_trials = static_cast<std::int64_t>(c.na);
  change.fresh_trials = static_cast<std::int64_t>(c.nb);
  // The normal z with the same two-sided p, for the worst-first order of the changes.
  const double zeq = two_sided_critical_z(std::max(pv, 1e-300));
  change.z = c.a >= c.b ? zeq : -zeq;
  change.excess = zeq / report.z_critical;
  change.threshold = report.point_alpha;
  report.changes.push_back(std::move(change));
}

// Would a new value of factor × the baseline's (a proportion: its successes × factor, within its trials) be flagged
// by the test this statistic got? The rounding floor at the planted value included.
bool planted_is_flagged(const JudgedStatistic& s, double factor, double tolerance, double point_alpha) {
  switch (s.test) {
    case StatisticTest::binomial: {
      const double scaled = factor * static_cast<double>(s.base_successes) * static_cast<double>(s.fresh_trials) /
                            static_cast<double>(s.base_trials);
      const auto kb = std::min<std::int64_t>(s.fresh_trials, std::llround(scaled));
      return binomial_two_sample_p(s.base_successes, s.base_trials, kb, s.fresh_trials) <= point_alpha;
    }
    case StatisticTest::rounding:
    case StatisticTest::none:
      return false;
    default: {
      const double diff = std::abs(factor - 1) * std::abs(s.base);
      const double floor = tolerance * std::max(1.0, factor) * std::abs(s.base) + s.floor_scale;
      return diff > s.threshold && diff > floor;
    }
  }
}

void add_power(CompareReport& report) {
  for (const double factor : kPlantedFactors) {
    PlantedPower p;
    p.factor = factor;
    std::map<StatisticTest, std::pair<std::int64_t, std::int64_t>> by_test;
    for (const JudgedStatistic& s : report.judged) {
      const bool flagged = planted_is_flagged(s, factor, report.tolerance, report.point_alpha);
      auto& entry = by_test[s.test];
      entry.first += flagged ? 1 : 0;
      ++entry.second;
      p.flagged += flagged ? 1 : 0;
      ++p.judged;
    }
    p.by_test.assign(by_test.begin(), by_test.end());
    report.power.push_back(std::move(p));
  }
}

// Params that differ between the runs, for information: seed and threads are expected to, the row_schema is
// compared on its own.
std::vector<ParamDifference> param_differences(const Json& base, const Json& fresh) {
  const Json* pb = member(base, "params");
  const Json* pf = member(fresh, "params");
  const Json empty = Json::object();
  const Json& b = pb != nullptr && pb->is_object() ? *pb : empty;
  const Json& f = pf != nullptr && pf->is_object() ? *pf : empty;
  std::map<std::string, bool> names;
  for (auto it = b.begin(); it != b.end(); ++it) names[it.key()] = true;
  for (auto it = f.begin(); it != f.end(); ++it) names[it.key()] = true;
  std::vector<ParamDifference> out;
  for (const auto& [name, unused] : names) {
    if (name == "seed" || name == "threads" || name == "row_schema") continue;
    const Json vb = value_or_null(b, name), vf = value_or_null(f, name);
    if (vb != vf) out.push_back({name, vb, vf});
  }
  return out;
}

const Json& params_of(const Json& doc) {
  static const Json empty = Json::object();
  const Json* p = member(doc, "params");
  return p != nullptr && p->is_object() ? *p : empty;
}

// The fields that decide how a statistic is tested and are closed forms: compared like exact fields, so a new file
// whose closed forms moved is changed. A sampled gate figure (skewness_sampled) is the baseline's alone.
std::vector<std::string> gate_fields_of(const RowSchema& schema) {
  std::vector<std::string> gate_fields;
  for (const StatisticFields& f : schema.statistics) {
    const std::string skewness = f.skewness_sampled ? std::string() : f.skewness;
    for (const std::string* g : {&skewness, &f.variance, &f.variance_bound, &f.range, &f.defined, &f.rounding_scale})
      if (!g->empty() && std::find(gate_fields.begin(), gate_fields.end(), *g) == gate_fields.end() &&
          std::find(schema.exact.begin(), schema.exact.end(), *g) == schema.exact.end())
        gate_fields.push_back(*g);
  }
  return gate_fields;
}

void compare_exact_fields(const RowPair& p, const RowSchema& schema, const std::vector<std::string>& gate_fields,
                          double tolerance, CompareReport& report) {
  auto compare_exact = [&](const std::string& field, bool gate) {
    const Json vb = value_or_null(p.rb, field), vf = value_or_null(p.rf, field);
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
    if (!agree) report.exact_mismatches.push_back({p.text, p.key, field, vb, vf, rel, gate});
  };
  for (const std::string& field : schema.exact) compare_exact(field, false);
  for (const std::string& field : gate_fields) compare_exact(field, true);
  if (!schema.verdict.empty()) {
    const std::string vb = verdict_text(member(p.rb, schema.verdict)), vf = verdict_text(member(p.rf, schema.verdict));
    if (vb != vf) report.verdict_changes.push_back({p.text, vb, vf});
  }
}

// Reads both documents' schema and experiment: the row schema they share, or bad input.
RowSchema shared_schema(const Json& base, const Json& fresh, std::string& experiment) {
  if (!base.is_object()) fail("baseline is not a favorlab result document (a JSON object)");
  if (!fresh.is_object()) fail("new is not a favorlab result document (a JSON object)");
  const std::string base_schema = document_string(base, "schema", "baseline");
  const std::string fresh_schema = document_string(fresh, "schema", "new");
  if (base_schema != fresh_schema)
    fail("schema differs: baseline " + base_schema + ", new " + fresh_schema + "; compare needs the same schema");
  experiment = document_string(base, "experiment", "baseline");
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
  return schema;
}

// Worst first: figures missing from one file and exact figures that moved, then by excess over the threshold.
void sort_changes(std::vector<StatisticChange>& changes) {
  auto first_class = [](const StatisticChange& c) {
    return c.kind == StatisticChange::Kind::missing || (c.deterministic && c.kind == StatisticChange::Kind::value);
  };
  std::stable_sort(changes.begin(), changes.end(), [&](const StatisticChange& x, const StatisticChange& y) {
    if (first_class(x) != first_class(y)) return first_class(x);
    if (first_class(x)) return x.relative_difference > y.relative_difference;
    return x.excess > y.excess;
  });
}

}  // namespace

void check_compare_options(double alpha, double tolerance, double max_uncompared_fraction) {
  if (!(alpha > 0 && alpha < 1)) fail("compare: alpha must lie in (0, 1), got " + format_number(alpha));
  if (!(max_uncompared_fraction >= 0 && max_uncompared_fraction <= 1))
    fail("compare: the largest uncompared fraction must lie in [0, 1], got " + format_number(max_uncompared_fraction));
  if (!(tolerance >= 0 && std::isfinite(tolerance)))
    fail("compare: tolerance must be finite and non-negative, got " + format_number(tolerance));
}

CompareReport compare_results(const Json& base, const Json& fresh, double alpha, double tolerance,
                              double max_uncompared_fraction) {
  check_compare_options(alpha, tolerance, max_uncompared_fraction);
  CompareReport report;
  const RowSchema schema = shared_schema(base, fresh, report.experiment);
  const IndexedRows b_rows = index_rows(base, schema, "baseline");
  const IndexedRows f_rows = index_rows(fresh, schema, "new");
  const Json& b_json = base["rows"];
  const Json& f_json = fresh["rows"];
  const Json& params_base = params_of(base);
  const Json& params_fresh = params_of(fresh);
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
  const std::vector<std::string> gate_fields = gate_fields_of(schema);

  // Pass 1: read every declared field of every paired row; settle the absent, missing and baseline-incomplete
  // figures, exact fields and verdicts, and collect the candidates.
  const std::size_t n_stats = schema.statistics.size();
  std::vector<std::pair<std::size_t, SkippedStatistic>> skipped;
  std::vector<Candidate> candidates;
  for (std::size_t q = 0; q < pairs.size(); ++q) {
    const std::size_t i = pairs[q].first, j = pairs[q].second;
    const RowPair p{b_json[i], f_json[j], i, j, b_rows.texts[i], b_rows.keys[i], params_base, params_fresh};
    for (std::size_t s = 0; s < n_stats; ++s) {
      const StatisticFields& f = schema.statistics[s];
      if (f.binomial) binomial_pass1(p, f, q * n_stats + s, s, report, candidates);
      else mean_pass1(p, f, q * n_stats + s, s, tolerance, report, skipped, candidates);
    }
    compare_exact_fields(p, schema, gate_fields, tolerance, report);
  }

  // Pass 2: the Bonferroni split — a location and a spread test per mean statistic, one test per proportion — then
  // each candidate's test.
  std::size_t tests = 0;
  for (const Candidate& c : candidates) tests += schema.statistics[c.statistic].binomial ? 1 : 2;
  report.bonferroni_tests = static_cast<std::int64_t>(tests);
  report.point_alpha = bonferroni_alpha(alpha, tests);
  report.z_critical = two_sided_critical_z(report.point_alpha);
  for (const Candidate& c : candidates) {
    const StatisticFields& f = schema.statistics[c.statistic];
    if (f.binomial) judge_binomial_candidate(c, f, b_rows.texts[c.base_row], b_rows.keys[c.base_row], report);
    else judge_mean_candidate(c, f, b_rows.texts[c.base_row], b_rows.keys[c.base_row], skipped, report);
  }
  const std::int64_t judged = report.statistics_compared + report.skipped_heavy_tailed + report.skipped_nonfinite;
  report.max_uncompared_fraction = max_uncompared_fraction;
  const auto uncompared = static_cast<double>(report.skipped_heavy_tailed + report.skipped_nonfinite);
  report.uncompared_fraction = judged == 0 ? 0.0 : uncompared / static_cast<double>(judged);
  std::map<StatisticTest, std::int64_t> by_test;
  for (const JudgedStatistic& s : report.judged)
    if (s.test != StatisticTest::none) ++by_test[s.test];
  report.compared_by.assign(by_test.begin(), by_test.end());
  add_power(report);

  sort_changes(report.changes);
  std::stable_sort(skipped.begin(), skipped.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& entry : skipped) report.skipped.push_back(std::move(entry.second));
  report.param_differences = param_differences(base, fresh);
  compare_checks(base, fresh, report);
  return report;
}

}  // namespace favorlab
