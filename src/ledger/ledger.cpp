// The ledger's reading and deciding: result files to checks, checks to methods, methods to one verdict per claim
// (docs/judging.md#the-claims-ledger). The printed forms are in ledger_format.cpp.
#include "ledger/ledger.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "io/input_file.hpp"  // printable
#include "io/json_file.hpp"

namespace favorlab {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// kOutOfReach (stats/check.hpp): older result files write it as the number 9223372036854775807, newer ones as
// trials_needed null with an out_of_reach reason; both read as "the check names no trial count".

[[noreturn]] void bad_file(const std::string& file, const std::string& what) {
  throw std::invalid_argument(file + ": " + what);
}

// The shared bounded reader (io/json_file.hpp): regular files only, at most kMaxResultFileBytes, nesting and numbers
// bounded.
Json read_result_file(const fs::path& path) { return read_json_file(path, "", kMaxResultFileBytes); }

// No run judges more points than this; a larger count is not one of favorlab's, and capping it keeps every sum the
// ledger forms (over a check's counts, over the checks of a claim) far from int64's limit.
constexpr std::int64_t kMaxPointCount = 1'000'000'000'000;

std::int64_t integer_field(const Json& check, const char* key, const std::string& where) {
  const auto it = check.find(key);
  const bool count =
      it != check.end() && it->is_number_integer() &&
      (it->is_number_unsigned() ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxPointCount)
                                : it->get<std::int64_t>() >= 0 && it->get<std::int64_t>() <= kMaxPointCount);
  if (!count) bad_file(where, std::string("'") + key + "' is not a count (0 to 1e12)");
  return it->get<std::int64_t>();
}

double number_field(const Json& check, const char* key) {
  const auto it = check.find(key);
  return it != check.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::string string_field(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One check as read from a file, with its attribution and its family α (the file's params.alpha; NaN: not stated).
struct ReadCheck {
  std::string experiment, claim, method, source;
  ClaimKind kind = ClaimKind::paper;
  const ClaimSource* row = nullptr;
  double alpha = kNaN;
  Check check;
};

void read_counts(const Json& j, Check& c, const std::string& where_in_file, const std::string& status) {
  // A check that judged nothing may leave its counts out (0 points: inconclusive); present counts must add up.
  const bool counted = j.contains("points_total") || j.contains("points_held") || j.contains("points_violated") ||
                       j.contains("points_inconclusive");
  if (counted) {
    c.points_held = integer_field(j, "points_held", where_in_file);
    c.points_violated = integer_field(j, "points_violated", where_in_file);
    c.points_inconclusive = integer_field(j, "points_inconclusive", where_in_file);
    c.points_total = integer_field(j, "points_total", where_in_file);
    if (c.points_total != c.points_held + c.points_violated + c.points_inconclusive)
      bad_file(where_in_file, "points_total is not the sum of its counts");
  }
  // The verdict is re-derived, not taken on the file's word.
  if (verdict_from_counts(c.points_held, c.points_violated, c.points_inconclusive) != c.status)
    bad_file(where_in_file, "status '" + status + "' disagrees with its own point counts");
}

ReadCheck read_check(const Json& j, const std::string& experiment, double alpha, const std::string& where_in_file) {
  if (!j.is_object()) bad_file(where_in_file, "not an object");
  ReadCheck r;
  r.experiment = experiment;
  r.alpha = alpha;
  Check& c = r.check;
  c.claim = string_field(j, "claim");
  if (c.claim.empty()) bad_file(where_in_file, "no claim");
  // A claim is a name every form of the ledger prints on one line: favorlab never writes a control character in one.
  if (printable(c.claim) != c.claim) bad_file(where_in_file, "claim '" + printable(c.claim) + "' holds a control character");
  const std::string status = string_field(j, "status");
  if (status == "holds") c.status = Verdict::holds;
  else if (status == "violated") c.status = Verdict::violated;
  else if (status == "inconclusive") c.status = Verdict::inconclusive;
  else if (status == "measured") c.status = Verdict::measured;
  else bad_file(where_in_file, "status '" + status + "' is not a verdict");
  c.where = printable(string_field(j, "where"));  // settings and labels: one line wherever they are shown
  c.detail = printable(string_field(j, "detail"));
  if (c.status == Verdict::measured) {
    c.value = number_field(j, "value");
    c.target = number_field(j, "target");
  } else {
    read_counts(j, c, where_in_file, status);
    c.power = number_field(j, "power");
    c.critical = number_field(j, "critical");
    const auto needed = j.find("trials_needed");
    if (needed != j.end() && needed->is_number_integer()) c.trials_needed = needed->get<std::int64_t>();
    const auto reach = j.find("out_of_reach");
    if (reach != j.end() && reach->is_string() && (needed == j.end() || needed->is_null())) {
      c.trials_needed = kOutOfReach;
      c.out_of_reach = printable(reach->get<std::string>());
    }
    const auto worst = j.find("worst");
    if (worst != j.end() && worst->is_object()) c.worst.label = printable(string_field(*worst, "label"));
  }
  const ClaimMethod cm = split_claim_method(c.claim);
  r.claim = cm.claim;
  r.method = cm.method;
  r.row = find_claim_source(experiment, c.claim);
  if (r.row != nullptr) {
    r.source = r.row->source;
    r.kind = r.row->kind;
  } else {
    // A claim the table knows from other experiments only: the file is relabelled (or a hybrid), and crediting its
    // claim to the experiment it names would put the evidence under the wrong experiment.
    for (const ClaimSource& row : claim_sources())
      if (row.experiment != experiment && c.claim.starts_with(row.claim_prefix))
        bad_file(where_in_file, "claim '" + c.claim + "' is one " + std::string(row.experiment) +
                                    " makes, not " + experiment + " (the file says experiment " + experiment + ")");
    // A claim this build's table does not know (a result of another version): the file's own attribution.
    r.source = printable(string_field(j, "source"));
    const std::optional<ClaimKind> kind = parse_claim_kind(string_field(j, "kind"));
    if (r.source.empty() || !kind)
      bad_file(where_in_file, "claim '" + c.claim + "' has no source (favorlab's claims table has none either)");
    r.kind = *kind;
  }
  return r;
}

// The clauses of a check's detail: "; " or the end of a sentence (". ") apart, outside brackets (an interval may
// open with one kind and close with the other: "(1.9, inf]").
std::vector<std::string> clauses(const std::string& detail) {
  std::vector<std::string> out;
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i < detail.size(); ++i) {
    if (detail[i] == '(' || detail[i] == '[') ++depth;
    else if ((detail[i] == ')' || detail[i] == ']') && depth > 0) --depth;
    else if (depth == 0 && (detail.compare(i, 2, "; ") == 0 || detail.compare(i, 2, ". ") == 0)) {
      out.push_back(detail.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  if (start < detail.size()) out.push_back(detail.substr(start));
  return out;
}

// Why an open check stays open, in its own words: nothing judged; its out_of_reach reason; else the clause of its
// detail that says so (out of reach, non-finite figures), or, where it names no trial count, its first clause.
std::string open_reason_of(const Check& c) {
  if (c.points_total == 0) return "nothing judged";
  if (!c.out_of_reach.empty()) return c.out_of_reach;
  const std::vector<std::string> parts = clauses(c.detail);
  for (const std::string& clause : parts)
    if (clause.find("out of reach") != std::string::npos || clause.find("non-finite") != std::string::npos)
      return clause;
  return c.trials_needed == 0 && !parts.empty() ? parts.front() : "";
}

// The check says its power comes from points exact to rounding alone (ClaimCheck, EitherCheck: "caught ... at every
// judged point", where a sampled power says "at every sampled point"), or it sampled nothing at all (closed forms
// evaluated: "exact values (no sampling, ..."), whose stated "power" is its rounding allowance.
bool evaluated_closed_forms(const Check& c) { return c.detail.find(kClosedFormsPhrase) != std::string::npos; }
bool power_from_rounding(const Check& c) {
  return c.detail.find(kRoundingPowerPhrase) != std::string::npos || evaluated_closed_forms(c);
}

void add_power(LedgerMethod& m, const Check& c) {
  if (!std::isfinite(c.power)) return;
  const bool rounding = power_from_rounding(c);
  // A sampled power replaces rounding-only ones; rounding-only powers count only while no sampled one is known.
  if (rounding && std::isfinite(m.power) && !m.power_from_rounding) return;
  if (!rounding && m.power_from_rounding) m.power = kNaN;
  m.power = std::isfinite(m.power) ? std::max(m.power, c.power) : c.power;
  m.power_from_rounding = rounding;
}

void add_to_method(LedgerMethod& m, const ReadCheck& rc) {
  const Check& c = rc.check;
  ++m.checks;
  if (c.status == Verdict::measured) {
    if (m.checks == 1) {
      m.value = c.value;
      m.target = c.target;
      m.where = c.where;
    }
    if (m.judged_checks == 0) m.verdict = Verdict::measured;
    return;
  }
  ++m.judged_checks;
  if (evaluated_closed_forms(c)) ++m.closed_form_checks;
  m.held += c.points_held;
  m.violated += c.points_violated;
  m.inconclusive += c.points_inconclusive;
  add_power(m, c);
  if (std::isfinite(c.critical) && !m.combined()) {
    ++m.sampled_checks;
    if (std::isfinite(rc.alpha)) m.alpha_sum += rc.alpha;
    else m.alpha_unknown = true;
  }
  if (c.status == Verdict::inconclusive) {
    m.trials_needed = std::max(m.trials_needed, c.trials_needed);
    if (m.open_reason.empty()) m.open_reason = open_reason_of(c);
  }
  // The method's verdict: violated if any of its checks is, holds only if every one holds. The check shown is the
  // first violated one, else the first inconclusive one, else the first.
  const Verdict before = m.judged_checks == 1 ? Verdict::measured : m.verdict;
  Verdict now = before;
  if (before == Verdict::measured) now = c.status;
  else if (c.status == Verdict::violated) now = Verdict::violated;
  else if (before == Verdict::holds && c.status == Verdict::inconclusive) now = Verdict::inconclusive;
  if (before == Verdict::measured || now != before) {
    m.worst_label = c.worst.label;
    m.where = c.where;
  }
  m.verdict = now;
}

// The weaker of two powers for the line shown: a larger one (NaN: none stated, the weakest of all).
bool weaker(const LedgerMethod& a, const LedgerMethod& b) {
  if (!std::isfinite(a.power)) return std::isfinite(b.power);
  return std::isfinite(b.power) && a.power > b.power;
}

// Whether a method takes part in the claim's verdict: a closed-forms line only while what it rests on holds.
bool counts(const LedgerClaim& claim, const LedgerMethod& m) {
  return !(m.closed_forms() && !claim.rests_on_unconfirmed.empty());
}

// Holds: per experiment, the strongest method that confirms every one of its points; the claim holds only when each
// experiment that judged it has one (its points settled by some method of its own), and shows the weakest of these.
void decide_unrefuted(LedgerClaim& claim) {
  const std::size_t n = claim.methods.size();
  std::vector<std::string> experiments;
  for (const LedgerMethod& m : claim.methods)
    if (m.verdict != Verdict::measured && counts(claim, m) &&
        std::find(experiments.begin(), experiments.end(), m.experiment) == experiments.end())
      experiments.push_back(m.experiment);
  std::size_t weakest = n, first_open = n;
  claim.settled_in.clear();
  for (const std::string& e : experiments) {
    std::size_t best = n;
    for (std::size_t i = 0; i < n; ++i) {
      const LedgerMethod& m = claim.methods[i];
      if (m.experiment != e || !counts(claim, m)) continue;
      if (m.verdict == Verdict::holds && (best == n || weaker(claim.methods[best], m))) best = i;
      if (m.verdict == Verdict::inconclusive && first_open == n) first_open = i;
    }
    if (best == n) continue;
    claim.settled_in.push_back(e);
    if (weakest == n || weaker(claim.methods[best], claim.methods[weakest])) weakest = best;
  }
  if (!experiments.empty() && claim.settled_in.size() == experiments.size()) {
    claim.verdict = Verdict::holds;
    claim.deciding = weakest;
    return;
  }
  claim.verdict = Verdict::inconclusive;
  claim.deciding = first_open < n ? first_open : 0;
  // The first open method of an experiment no method settles.
  for (std::size_t i = 0; i < n; ++i) {
    const LedgerMethod& m = claim.methods[i];
    if (m.verdict == Verdict::inconclusive && counts(claim, m) &&
        std::find(claim.settled_in.begin(), claim.settled_in.end(), m.experiment) == claim.settled_in.end()) {
      claim.deciding = i;
      break;
    }
  }
}

void decide(LedgerClaim& claim) {
  const std::size_t n = claim.methods.size();
  std::size_t first_violated = n;
  bool all_measured = true, any_counted = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!counts(claim, claim.methods[i])) continue;
    any_counted = true;
    const Verdict v = claim.methods[i].verdict;
    if (v != Verdict::measured) all_measured = false;
    if (v == Verdict::violated && first_violated == n) first_violated = i;
  }
  if (!any_counted) {  // only closed-forms lines, all set aside
    claim.verdict = Verdict::inconclusive;
    claim.deciding = 0;
    claim.settled_in.clear();
  } else if (all_measured) {
    claim.verdict = Verdict::measured;
    claim.deciding = 0;
  } else if (first_violated < n) {
    claim.verdict = Verdict::violated;
    claim.deciding = first_violated;
    // The counterexample shown: a refuting method that names its worst point, where one does.
    for (std::size_t i = first_violated; i < n; ++i)
      if (claim.methods[i].verdict == Verdict::violated && counts(claim, claim.methods[i]) &&
          !claim.methods[i].worst_label.empty()) {
        claim.deciding = i;
        break;
      }
  } else {
    decide_unrefuted(claim);
  }
}

std::string run_size_of(const std::vector<std::string>& quick_files, const std::vector<std::string>& full_files) {
  // "quick", "paper-sized", or the majority with the exceptions named (results/ holds the quick runs and
  // peer-speed.json, which scripts/peer-bench.sh writes at its own size).
  auto join = [](const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  if (full_files.empty()) return "quick runs";
  if (quick_files.empty()) return "paper-sized runs";
  if (quick_files.size() >= full_files.size()) return "quick runs (" + join(full_files) + ": paper-sized)";
  return "paper-sized runs (" + join(quick_files) + ": quick)";
}

// Every check of every file in `dir`, in file order.
std::vector<ReadCheck> read_checks(const fs::path& dir, Ledger& ledger) {
  const std::vector<fs::path> paths = result_files(dir);
  if (paths.empty()) throw std::invalid_argument(dir.string() + ": no result files (*.json) there");
  std::vector<ReadCheck> checks;
  std::vector<std::string> quick_files, full_files;
  std::map<std::string, std::string> file_of_experiment;
  for (const fs::path& path : paths) {
    const std::string name = path.string();
    const Json doc = read_result_file(path);
    // A ledger favorlab claims wrote there (--format json) is derived from the results, not one of them.
    if (doc.is_object() && string_field(doc, "schema") == kClaimsSchema) continue;
    if (!doc.is_object() || string_field(doc, "schema") != "favorlab.result/1")
      bad_file(name, "not a favorlab result file (schema favorlab.result/1)");
    const std::string experiment = string_field(doc, "experiment");
    if (experiment.empty()) bad_file(name, "no experiment name");
    // Two results of one experiment would count its points twice, and a stale copy could decide a claim.
    if (const auto [it, fresh] = file_of_experiment.emplace(experiment, path.filename().string()); !fresh)
      bad_file(name, "a second result of " + experiment + " (the first is " + it->second +
                         "); keep one result per experiment in the directory");
    const auto list = doc.find("checks");
    if (list == doc.end() || !list->is_array()) bad_file(name, "no checks array");
    const auto params = doc.find("params");
    const bool has_params = params != doc.end() && params->is_object();
    const auto quick_field = has_params ? params->find("quick") : doc.end();
    if (has_params && quick_field != params->end() && !quick_field->is_boolean())
      bad_file(name, "params.quick is not true or false");
    const bool quick = has_params && quick_field != params->end() && quick_field->get<bool>();
    const double alpha = has_params ? number_field(*params, "alpha") : kNaN;
    (quick ? quick_files : full_files).push_back(path.filename().string());
    for (std::size_t i = 0; i < list->size(); ++i)
      checks.push_back(read_check((*list)[i], experiment, alpha, name + ": check " + std::to_string(i + 1)));
    ledger.files.push_back(path.filename().string());
  }
  if (ledger.files.empty()) throw std::invalid_argument(dir.string() + ": no result files (*.json) there");
  ledger.checks = static_cast<std::int64_t>(checks.size());
  ledger.run_size = run_size_of(quick_files, full_files);
  return checks;
}

LedgerClaim new_claim(const ReadCheck& rc) {
  LedgerClaim claim;
  claim.claim = rc.claim;
  claim.source = rc.source;
  claim.kind = rc.kind;
  if (rc.row != nullptr) {
    claim.corrected_claim = rc.row->corrected_by;
    claim.figure = rc.row->figure;
    claim.printed = rc.row->printed;
    claim.printed_at = rc.row->printed_at;
    for (std::string_view name : rc.row->rests_on) claim.rests_on.emplace_back(name);
  }
  if (claim.figure.empty()) {
    const auto& figures = experiment_figures(rc.experiment);
    if (!figures.empty()) claim.figure = figures.front();
  }
  return claim;
}

// Sources by their first row in the table, claims by their row, then by first appearance.
void sort_claims(Ledger& ledger, const std::vector<std::size_t>& rows) {
  const auto& table = claim_sources();
  auto source_rank = [&table](const std::string& source) {
    for (std::size_t i = 0; i < table.size(); ++i)
      if (table[i].source == source) return i;
    return table.size();
  };
  std::vector<std::size_t> order(ledger.claims.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key = [&](std::size_t i) {
    return std::make_tuple(source_rank(ledger.claims[i].source), ledger.claims[i].source, rows[i], i);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  std::vector<LedgerClaim> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(ledger.claims[i]));
  ledger.claims = std::move(sorted);
}

}  // namespace

std::string LedgerMethod::label() const { return method.empty() ? experiment : experiment + ", " + method; }
bool LedgerMethod::combined() const { return method == "plain or importance-sampled"; }

std::int64_t LedgerClaim::held() const {
  std::int64_t n = 0;
  for (const auto& m : methods) n += m.held;
  return n;
}
std::int64_t LedgerClaim::violated() const {
  std::int64_t n = 0;
  for (const auto& m : methods) n += m.violated;
  return n;
}
std::int64_t LedgerClaim::inconclusive() const {
  std::int64_t n = 0;
  for (const auto& m : methods) n += m.inconclusive;
  return n;
}
double LedgerClaim::false_verdict_bound() const {
  double sum = rests_on_alpha;  // NaN where a claim it rests on has an unknown α
  for (const auto& m : methods) {
    if (m.alpha_unknown) return kNaN;
    sum += m.alpha_sum;
  }
  return sum;
}
int LedgerClaim::sampled_checks() const {
  int n = rests_on_checks;
  for (const auto& m : methods) n += m.sampled_checks;
  return n;
}

std::int64_t Ledger::count(Verdict v) const {
  return std::count_if(claims.begin(), claims.end(),
                       [v](const LedgerClaim& c) { return !c.identity() && c.verdict == v; });
}
std::int64_t Ledger::identities(Verdict v) const {
  return std::count_if(claims.begin(), claims.end(),
                       [v](const LedgerClaim& c) { return c.identity() && c.verdict == v; });
}
std::int64_t Ledger::identities() const {
  return std::count_if(claims.begin(), claims.end(), [](const LedgerClaim& c) { return c.identity(); });
}

bool found_false_as_printed(const LedgerClaim& c) {
  return c.kind == ClaimKind::paper && c.verdict == Verdict::violated;
}
bool stronger_reading_found_false(const LedgerClaim& c) {
  return c.kind == ClaimKind::derived && !c.printed.empty() && c.verdict == Verdict::violated;
}

std::vector<fs::path> result_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::invalid_argument(dir.string() + ": not a directory");
  std::vector<fs::path> paths;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") paths.push_back(it->path());
  if (ec) throw std::invalid_argument(dir.string() + ": cannot list (" + ec.message() + ")");
  std::sort(paths.begin(), paths.end());
  return paths;
}

Ledger read_ledger(const fs::path& dir) {
  Ledger ledger;
  ledger.results_dir = dir;
  const std::vector<ReadCheck> checks = read_checks(dir, ledger);
  const auto& table = claim_sources();
  // One line per (source, claim); an identity is its own line whatever its words, so that a check of an algebraic
  // identity never decides a claim about a sampler, a coupling or a control.
  std::map<std::tuple<std::string, std::string, bool>, std::size_t> index;
  std::vector<std::size_t> rows;  // per claim: its table row (table.size(): none)
  std::vector<bool> named_figure;  // per claim: its figure is named by a table row (not an experiment's first)
  for (const ReadCheck& rc : checks) {
    const auto id = std::make_tuple(rc.source, rc.claim, rc.kind == ClaimKind::identity);
    const bool names_figure = rc.row != nullptr && !rc.row->figure.empty();
    auto it = index.find(id);
    if (it == index.end()) {
      it = index.emplace(id, ledger.claims.size()).first;
      ledger.claims.push_back(new_claim(rc));
      rows.push_back(rc.row != nullptr ? static_cast<std::size_t>(rc.row - table.data()) : table.size());
      named_figure.push_back(names_figure);
    }
    LedgerClaim& claim = ledger.claims[it->second];
    if (names_figure && !named_figure[it->second]) {  // a figure drawn for the claim beats an experiment's first
      claim.figure = rc.row->figure;
      named_figure[it->second] = true;
    }
    auto m = std::find_if(claim.methods.begin(), claim.methods.end(), [&rc](const LedgerMethod& lm) {
      return lm.experiment == rc.experiment && lm.method == rc.method;
    });
    if (m == claim.methods.end()) {
      LedgerMethod method;
      method.experiment = rc.experiment;
      method.method = rc.method;
      claim.methods.push_back(std::move(method));
      m = claim.methods.end() - 1;
    }
    add_to_method(*m, rc);
  }
  for (LedgerClaim& c : ledger.claims) decide(c);
  // A closed-forms line decides only where the formulas it takes for granted are confirmed by this ledger's own data.
  for (LedgerClaim& c : ledger.claims) {
    if (c.rests_on.empty()) continue;
    for (const std::string& name : c.rests_on) {
      const auto other = std::find_if(ledger.claims.begin(), ledger.claims.end(), [&name](const LedgerClaim& o) {
        return !o.identity() && o.claim == name;
      });
      const std::string state = other == ledger.claims.end() ? "not in these results"
                                                               : std::string(verdict_name(other->verdict)) + " here";
      if (other == ledger.claims.end() || other->verdict != Verdict::holds)
        c.rests_on_unconfirmed += (c.rests_on_unconfirmed.empty() ? "" : ", ") + ("`" + name + "` is " + state);
      else {
        // A wrong sampler reaches the exact values only through these claims, so their weakest power is the line's;
        // a false verdict of one of them can make this claim hold falsely, so their α counts here too.
        const double power = other->methods[other->deciding].power;
        c.rests_on_power = std::isfinite(c.rests_on_power) ? std::max(c.rests_on_power, power) : power;
        c.rests_on_alpha += other->false_verdict_bound();
        c.rests_on_checks += other->sampled_checks();
      }
    }
    if (!c.rests_on_unconfirmed.empty()) {  // the closed-forms lines are set aside: decided again without them
      c.rests_on_power = kNaN;
      c.rests_on_alpha = 0;
      c.rests_on_checks = 0;
      decide(c);
    }
  }
  for (LedgerClaim& c : ledger.claims) {
    if (c.corrected_claim.empty()) continue;
    for (const LedgerClaim& other : ledger.claims)
      if (!other.identity() && other.claim.starts_with(c.corrected_claim)) {
        c.corrected_claim = other.claim;
        c.corrected_verdict = other.verdict;
        break;
      }
  }
  sort_claims(ledger, rows);
  return ledger;
}

}  // namespace favorlab
