#include "ledger/ledger.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "io/format_number.hpp"
#include "io/json_file.hpp"
#include "io/wrap_words.hpp"

namespace favorlab {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// kOutOfReach (stats/check.hpp): older result files write it as the number 9223372036854775807, newer ones as
// trials_needed null with an out_of_reach reason; both read as out of reach.

[[noreturn]] void bad_file(const std::string& file, const std::string& what) {
  throw std::invalid_argument(file + ": " + what);
}

// The shared bounded reader (io/json_file.hpp): regular files only, at most kMaxResultFileBytes, nesting and numbers
// bounded.
Json read_result_file(const fs::path& path) { return read_json_file(path, "", kMaxResultFileBytes); }

std::int64_t integer_field(const Json& check, const char* key, const std::string& where) {
  const auto it = check.find(key);
  if (it == check.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
    bad_file(where, std::string("'") + key + "' is not a count");
  return it->get<std::int64_t>();
}

double number_field(const Json& check, const char* key) {
  const auto it = check.find(key);
  return it != check.end() && it->is_number() ? it->get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::string string_field(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One check as read from a file, with its attribution.
struct ReadCheck {
  std::string experiment, claim, method, source;
  ClaimKind kind = ClaimKind::paper;
  const ClaimSource* row = nullptr;
  Check check;
};

ReadCheck read_check(const Json& j, const std::string& experiment, const std::string& where_in_file) {
  if (!j.is_object()) bad_file(where_in_file, "not an object");
  ReadCheck r;
  r.experiment = experiment;
  Check& c = r.check;
  c.claim = string_field(j, "claim");
  if (c.claim.empty()) bad_file(where_in_file, "no claim");
  const std::string status = string_field(j, "status");
  if (status == "holds") c.status = Verdict::holds;
  else if (status == "violated") c.status = Verdict::violated;
  else if (status == "inconclusive") c.status = Verdict::inconclusive;
  else if (status == "measured") c.status = Verdict::measured;
  else bad_file(where_in_file, "status '" + status + "' is not a verdict");
  c.where = string_field(j, "where");
  c.detail = string_field(j, "detail");
  if (c.status == Verdict::measured) {
    c.value = number_field(j, "value");
    c.target = number_field(j, "target");
  } else {
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
    c.power = number_field(j, "power");
    const auto needed = j.find("trials_needed");
    if (needed != j.end() && needed->is_number_integer()) c.trials_needed = needed->get<std::int64_t>();
    const auto reach = j.find("out_of_reach");
    if (reach != j.end() && reach->is_string() && (needed == j.end() || needed->is_null())) {
      c.trials_needed = kOutOfReach;
      c.out_of_reach = reach->get<std::string>();
    }
    const auto worst = j.find("worst");
    if (worst != j.end() && worst->is_object()) c.worst.label = string_field(*worst, "label");
  }
  const ClaimMethod cm = split_claim_method(c.claim);
  r.claim = cm.claim;
  r.method = cm.method;
  r.row = find_claim_source(experiment, c.claim);
  if (r.row != nullptr) {
    r.source = r.row->source;
    r.kind = r.row->kind;
  } else {
    // A claim this build's table does not know (a result of another version): the file's own attribution.
    r.source = string_field(j, "source");
    const std::optional<ClaimKind> kind = parse_claim_kind(string_field(j, "kind"));
    if (r.source.empty() || !kind)
      bad_file(where_in_file, "claim '" + c.claim + "' has no source (favorlab's claims table has none either)");
    r.kind = *kind;
  }
  return r;
}

// The first clause of a check's detail that says why it stays open, if it says so.
std::string open_reason_of(const Check& c) {
  if (c.points_total == 0) return "nothing judged";
  if (!c.out_of_reach.empty()) return c.out_of_reach;
  std::size_t start = 0;
  while (start < c.detail.size()) {
    const std::size_t end = std::min(c.detail.find("; ", start), c.detail.size());
    const std::string clause = c.detail.substr(start, end - start);
    if (clause.find("out of reach") != std::string::npos) return clause;
    start = end + 2;
  }
  return "";
}

void add_to_method(LedgerMethod& m, const Check& c) {
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
  m.held += c.points_held;
  m.violated += c.points_violated;
  m.inconclusive += c.points_inconclusive;
  if (std::isfinite(c.power)) m.power = std::isfinite(m.power) ? std::max(m.power, c.power) : c.power;
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

void decide(LedgerClaim& claim) {
  std::size_t first_violated = claim.methods.size(), first_holds = claim.methods.size();
  bool all_measured = true;
  for (std::size_t i = 0; i < claim.methods.size(); ++i) {
    const Verdict v = claim.methods[i].verdict;
    if (v != Verdict::measured) all_measured = false;
    if (v == Verdict::violated && first_violated == claim.methods.size()) first_violated = i;
    if (v == Verdict::holds && first_holds == claim.methods.size()) first_holds = i;
  }
  if (all_measured) {
    claim.verdict = Verdict::measured;
    claim.deciding = 0;
  } else if (first_violated < claim.methods.size()) {
    claim.verdict = Verdict::violated;
    claim.deciding = first_violated;
    // The counterexample shown: a refuting method that names its worst point, where one does.
    for (std::size_t i = first_violated; i < claim.methods.size(); ++i)
      if (claim.methods[i].verdict == Verdict::violated && !claim.methods[i].worst_label.empty()) {
        claim.deciding = i;
        break;
      }
  } else if (first_holds < claim.methods.size()) {
    claim.verdict = Verdict::holds;
    claim.deciding = first_holds;
  } else {
    claim.verdict = Verdict::inconclusive;
    claim.deciding = 0;
    for (std::size_t i = 0; i < claim.methods.size(); ++i)
      if (claim.methods[i].verdict == Verdict::inconclusive) {
        claim.deciding = i;
        break;
      }
  }
}

// "Performers, Lemma 2" → "Performers"; "FAVOR# (2023)" stays.
std::string paper_of(const std::string& source) { return source.substr(0, source.find(',')); }

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return format_number(100 * fraction, 2) + " %";
}

std::string counts_text(std::int64_t held, std::int64_t violated, std::int64_t inconclusive) {
  return std::to_string(held) + "/" + std::to_string(held + violated + inconclusive) + " held, " +
         std::to_string(violated) + " violated, " + std::to_string(inconclusive) + " inconclusive";
}

std::string method_text(const LedgerMethod& m) {
  std::string s = m.label() + ": ";
  if (m.verdict == Verdict::measured) {
    s += "value " + format_number(m.value, 4);
    if (std::isfinite(m.target)) s += " (target " + format_number(m.target, 4) + ")";
    return s;
  }
  return s + counts_text(m.held, m.violated, m.inconclusive);
}

std::string settle_text(const LedgerMethod& m) {
  if (m.held + m.violated + m.inconclusive == 0) return "nothing judged";
  if (m.trials_needed == kOutOfReach)
    return "out of reach at any trial count" + (m.open_reason.empty() ? std::string() : " (" + m.open_reason + ")");
  if (m.trials_needed > 0)
    return "about " + format_number(static_cast<double>(m.trials_needed), 2) + " trials per point would settle it";
  return m.open_reason.empty() ? "neither confirmed nor refuted; see the check's detail" : m.open_reason;
}

std::string point_text(const LedgerMethod& m) {
  if (m.worst_label.empty()) return m.where;
  return m.worst_label + " (" + m.where + ")";
}

// Markdown table cells: a pipe ends a cell, a newline a row.
std::string cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}
std::string code_cell(const std::string& s) { return "`" + cell(s) + "`"; }

std::string figure_link(const Ledger& ledger, const std::string& figure, const std::string& prefix) {
  if (figure.empty()) return "";
  std::error_code ec;
  if (!fs::exists(ledger.results_dir / "figures" / figure, ec)) return figure;
  return "[" + figure + "](" + prefix + figure + ")";
}

std::string counts_line(const Ledger& ledger) {
  return std::to_string(ledger.claims.size()) + " claims from " + std::to_string(ledger.checks) + " checks in " +
         std::to_string(ledger.files.size()) + " result files: " + std::to_string(ledger.count(Verdict::holds)) +
         " hold, " + std::to_string(ledger.count(Verdict::violated)) + " violated, " +
         std::to_string(ledger.count(Verdict::inconclusive)) + " inconclusive, " +
         std::to_string(ledger.count(Verdict::measured)) + " measured";
}

bool found_false(const LedgerClaim& c) { return c.kind == ClaimKind::paper && c.verdict == Verdict::violated; }

std::string corrected_text(const LedgerClaim& c) {
  if (c.corrected_claim.empty()) return "no corrected statement tested";
  return c.corrected_claim + ": " + (c.corrected_verdict ? verdict_name(*c.corrected_verdict) : "not in these results");
}

Json method_json(const LedgerMethod& m) {
  auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json j{{"experiment", m.experiment},
         {"method", m.method},
         {"verdict", verdict_name(m.verdict)},
         {"checks", m.checks}};
  if (m.verdict == Verdict::measured) {
    j["value"] = num(m.value);
    j["target"] = num(m.target);
  } else {
    j["points_held"] = m.held;
    j["points_violated"] = m.violated;
    j["points_inconclusive"] = m.inconclusive;
    j["power"] = num(m.power);
    j["trials_needed"] = m.trials_needed == kOutOfReach || m.trials_needed == 0 ? Json(nullptr) : Json(m.trials_needed);
    j["out_of_reach"] = m.trials_needed == kOutOfReach;
  }
  j["worst"] = m.worst_label.empty() ? Json(nullptr) : Json(m.worst_label);
  j["where"] = m.where;
  return j;
}

}  // namespace

std::string LedgerMethod::label() const { return method.empty() ? experiment : experiment + ", " + method; }

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

std::int64_t Ledger::count(Verdict v) const {
  return std::count_if(claims.begin(), claims.end(), [v](const LedgerClaim& c) { return c.verdict == v; });
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
  const std::vector<fs::path> paths = result_files(dir);
  if (paths.empty()) throw std::invalid_argument(dir.string() + ": no result files (*.json) there");

  std::vector<ReadCheck> checks;
  std::vector<std::string> quick_files, full_files;
  for (const fs::path& path : paths) {
    const std::string name = path.string();
    const Json doc = read_result_file(path);
    if (!doc.is_object() || string_field(doc, "schema") != "favorlab.result/1")
      bad_file(name, "not a favorlab result file (schema favorlab.result/1)");
    const std::string experiment = string_field(doc, "experiment");
    if (experiment.empty()) bad_file(name, "no experiment name");
    const auto list = doc.find("checks");
    if (list == doc.end() || !list->is_array()) bad_file(name, "no checks array");
    const auto params = doc.find("params");
    const bool quick = params != doc.end() && params->is_object() && params->value("quick", false) == true;
    (quick ? quick_files : full_files).push_back(path.filename().string());
    for (std::size_t i = 0; i < list->size(); ++i)
      checks.push_back(read_check((*list)[i], experiment, name + ": check " + std::to_string(i + 1)));
    ledger.files.push_back(path.filename().string());
  }
  ledger.checks = static_cast<std::int64_t>(checks.size());
  // "quick", "paper-sized", or the majority with the exceptions named (results/ holds the quick runs and
  // peer-speed.json, which scripts/peer-bench.sh writes at its own size).
  auto join = [](const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  if (full_files.empty()) ledger.run_size = "quick runs";
  else if (quick_files.empty()) ledger.run_size = "paper-sized runs";
  else if (quick_files.size() >= full_files.size())
    ledger.run_size = "quick runs (" + join(full_files) + ": paper-sized)";
  else ledger.run_size = "paper-sized runs (" + join(quick_files) + ": quick)";

  // Order: sources by their first row in the table, claims by their row, then by first appearance.
  const auto& rows = claim_sources();
  auto source_rank = [&rows](const std::string& source) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].source == source) return i;
    return rows.size();
  };
  struct Key {
    std::size_t source_rank;
    std::string source;
    std::size_t row;
    std::size_t first_seen;
  };
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (source, claim) → claims[i]
  std::vector<Key> keys;
  for (const ReadCheck& rc : checks) {
    const auto id = std::make_pair(rc.source, rc.claim);
    auto it = index.find(id);
    if (it == index.end()) {
      LedgerClaim claim;
      claim.claim = rc.claim;
      claim.source = rc.source;
      claim.kind = rc.kind;
      if (rc.row != nullptr) {
        claim.corrected_claim = rc.row->corrected_by;
        claim.figure = rc.row->figure;
      }
      if (claim.figure.empty()) {
        const auto& figures = experiment_figures(rc.experiment);
        if (!figures.empty()) claim.figure = figures.front();
      }
      it = index.emplace(id, ledger.claims.size()).first;
      ledger.claims.push_back(std::move(claim));
      const std::size_t row = rc.row != nullptr ? static_cast<std::size_t>(rc.row - rows.data()) : rows.size();
      keys.push_back({source_rank(rc.source), rc.source, row, keys.size()});
    }
    LedgerClaim& claim = ledger.claims[it->second];
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
    add_to_method(*m, rc.check);
  }
  for (LedgerClaim& c : ledger.claims) decide(c);
  for (LedgerClaim& c : ledger.claims) {
    if (c.corrected_claim.empty()) continue;
    for (const LedgerClaim& other : ledger.claims)
      if (other.claim.starts_with(c.corrected_claim)) {
        c.corrected_claim = other.claim;
        c.corrected_verdict = other.verdict;
        break;
      }
  }
  std::vector<std::size_t> order(ledger.claims.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&keys](std::size_t a, std::size_t b) {
    const Key &x = keys[a], &y = keys[b];
    if (x.source_rank != y.source_rank) return x.source_rank < y.source_rank;
    if (x.source != y.source) return x.source < y.source;
    if (x.row != y.row) return x.row < y.row;
    return x.first_seen < y.first_seen;
  });
  std::vector<LedgerClaim> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(ledger.claims[i]));
  ledger.claims = std::move(sorted);
  return ledger;
}

std::string ledger_text(const Ledger& ledger) {
  std::ostringstream s;
  s << "favorlab claims: " << counts_line(ledger) << "\n  (" << ledger.results_dir.string() << ": " << ledger.run_size
    << ")\n";
  s << "\nFound false as printed\n";
  bool any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (!found_false(c)) continue;
    any = true;
    const LedgerMethod& m = c.methods[c.deciding];
    s << "  " << c.source << ": " << c.claim << "\n"
      << "      counterexample [" << m.label() << "]: " << point_text(m) << "\n"
      << "      corrected: " << corrected_text(c) << "\n";
  }
  if (!any) s << "  none\n";
  s << "\nStill open\n";
  any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (c.verdict != Verdict::inconclusive) continue;
    any = true;
    s << "  " << c.source << ": " << c.claim << "\n";
    for (const LedgerMethod& m : c.methods)
      if (m.verdict == Verdict::inconclusive) s << "      " << m.label() << ": " << settle_text(m) << "\n";
  }
  if (!any) s << "  none\n";
  std::string source;
  for (const LedgerClaim& c : ledger.claims) {
    if (c.source != source) {
      source = c.source;
      s << "\n" << source << "\n";
    }
    const LedgerMethod& m = c.methods[c.deciding];
    s << "  " << verdict_name(c.verdict) << std::string(14 - std::string(verdict_name(c.verdict)).size(), ' ')
      << c.claim << " [" << claim_kind_name(c.kind) << "]\n";
    std::string methods;
    for (const LedgerMethod& lm : c.methods) methods += (methods.empty() ? "" : "; ") + method_text(lm);
    s << std::string(16, ' ') << methods << "\n";
    if (c.verdict != Verdict::measured) {
      s << std::string(16, ' ') << "power " << percent(m.power) << "; worst: " << point_text(m);
      if (!c.figure.empty()) s << "; figure " << c.figure;
      s << "\n";
    }
  }
  return s.str();
}

std::string ledger_markdown(const Ledger& ledger) {
  std::ostringstream s;
  s << "# What favorlab found\n\n"
    << "Generated by `favorlab claims " << ledger.results_dir.string() << " --format md` from the result files of "
    << "the " << ledger.run_size << "; do not edit. " << counts_line(ledger) << ".\n\n"
    << "One line per claim: a claim judged by several experiments or methods is violated if any of them refutes "
    << "it, holds if one of them confirms it at every point and none refutes it, and is inconclusive otherwise "
    << "(docs/judging.md, \"The claims ledger\"). Points: held/total, violated, inconclusive, summed over methods.\n\n";
  s << "## Found false as printed\n\n";
  s << "| Claim | Source | Counterexample | Corrected statement |\n|---|---|---|---|\n";
  for (const LedgerClaim& c : ledger.claims) {
    if (!found_false(c)) continue;
    const LedgerMethod& m = c.methods[c.deciding];
    s << "| " << code_cell(c.claim) << " | " << cell(c.source) << " | " << cell(m.label() + ": " + point_text(m))
      << " | " << cell(corrected_text(c)) << " |\n";
  }
  s << "\n## Still open\n\n| Claim | Source | What would settle it |\n|---|---|---|\n";
  for (const LedgerClaim& c : ledger.claims) {
    if (c.verdict != Verdict::inconclusive) continue;
    std::string why;
    for (const LedgerMethod& m : c.methods)
      if (m.verdict == Verdict::inconclusive) why += (why.empty() ? "" : "; ") + m.label() + ": " + settle_text(m);
    s << "| " << code_cell(c.claim) << " | " << cell(c.source) << " | " << cell(why) << " |\n";
  }
  std::string source;
  for (const LedgerClaim& c : ledger.claims) {
    if (c.source != source) {
      source = c.source;
      s << "\n## " << source << "\n\n| Verdict | Claim | Kind | Methods | Power | Worst point | Figure |\n"
        << "|---|---|---|---|---|---|---|\n";
    }
    const LedgerMethod& m = c.methods[c.deciding];
    std::string methods;
    for (const LedgerMethod& lm : c.methods) methods += (methods.empty() ? "" : "; ") + method_text(lm);
    const bool judged = c.verdict != Verdict::measured;
    s << "| **" << verdict_name(c.verdict) << "** | " << code_cell(c.claim) << " | " << claim_kind_name(c.kind)
      << " | " << cell(methods) << " | " << (judged ? percent(m.power) : "") << " | "
      << cell(judged ? point_text(m) : m.where) << " | " << figure_link(ledger, c.figure, "figures/") << " |\n";
  }
  return s.str();
}

std::string ledger_findings_markdown(const Ledger& ledger) {
  // Wrapped at 120 columns (the README's limit): a paragraph or list item per entry, never a wide table row.
  std::ostringstream s;
  const std::string dir = ledger.results_dir.string();
  s << wrap_words("From the result files in `" + dir + "/` of the " + ledger.run_size + " (`favorlab claims " + dir +
                      " --format md --findings`): " + counts_line(ledger) + ".",
                  120, "")
    << "\n\n";
  std::vector<std::string> papers;
  std::map<std::string, std::array<std::int64_t, 4>> counts;
  for (const LedgerClaim& c : ledger.claims) {
    const std::string paper = paper_of(c.source);
    if (!counts.contains(paper)) papers.push_back(paper);
    ++counts[paper][static_cast<std::size_t>(c.verdict)];
  }
  s << "| Source | Hold | Violated | Inconclusive | Measured |\n|---|---|---|---|---|\n";
  for (const std::string& p : papers) {
    const auto& n = counts[p];
    s << "| " << cell(p) << " | " << n[0] << " | " << n[1] << " | " << n[2] << " | " << n[3] << " |\n";
  }
  s << "\nFound false as printed (the claim, where the data refute it, and the corrected statement's verdict):\n\n";
  for (const LedgerClaim& c : ledger.claims) {
    if (!found_false(c)) continue;
    const LedgerMethod& m = c.methods[c.deciding];
    const std::string point = m.worst_label.empty() ? m.where : m.worst_label;
    const std::string corrected =
        c.corrected_claim.empty() ? "none tested"
                                  : (c.corrected_verdict ? verdict_name(*c.corrected_verdict) : "not in these results");
    const std::string figure = figure_link(ledger, c.figure, dir + "/figures/");
    s << wrap_words("- `" + c.claim + "` (" + c.source + "): " + point + "; corrected statement: " + corrected +
                        (figure.empty() ? "." : ". " + figure),
                    120, "  ")
      << "\n";
  }
  return s.str();
}

std::string ledger_json(const Ledger& ledger) {
  Json j{{"schema", "favorlab.claims/1"},
         {"results_dir", ledger.results_dir.string()},
         {"run_size", ledger.run_size},
         {"files", ledger.files},
         {"checks", ledger.checks}};
  Json counts = Json::object();
  for (Verdict v : {Verdict::holds, Verdict::violated, Verdict::inconclusive, Verdict::measured})
    counts[verdict_name(v)] = ledger.count(v);
  j["counts"] = counts;
  Json claims = Json::array();
  for (const LedgerClaim& c : ledger.claims) {
    Json methods = Json::array();
    for (const LedgerMethod& m : c.methods) methods.push_back(method_json(m));
    Json cj{{"claim", c.claim},
            {"source", c.source},
            {"kind", claim_kind_name(c.kind)},
            {"verdict", verdict_name(c.verdict)},
            {"found_false_as_printed", found_false(c)},
            {"points_held", c.held()},
            {"points_violated", c.violated()},
            {"points_inconclusive", c.inconclusive()},
            {"deciding_method", c.methods[c.deciding].label()},
            {"figure", c.figure.empty() ? Json(nullptr) : Json(c.figure)},
            {"methods", methods}};
    if (!c.corrected_claim.empty()) {
      cj["corrected_claim"] = c.corrected_claim;
      cj["corrected_verdict"] = c.corrected_verdict ? Json(verdict_name(*c.corrected_verdict)) : Json(nullptr);
    }
    claims.push_back(cj);
  }
  j["claims"] = claims;
  return j.dump(1) + "\n";
}

std::string ledger_summary(const Ledger& ledger, std::size_t max_lines) {
  std::vector<std::string> lines;
  lines.push_back("favorlab: " + counts_line(ledger));
  std::vector<const LedgerClaim*> refuted;
  for (const LedgerClaim& c : ledger.claims)
    if (found_false(c)) refuted.push_back(&c);
  lines.push_back("found false as printed: " + std::to_string(refuted.size()) + (refuted.empty() ? "" : ":"));
  // Two lines stay for the open count and where the ledger is; the rest may list refuted claims.
  const std::size_t room = max_lines > lines.size() + 2 ? max_lines - lines.size() - 2 : 0;
  for (std::size_t i = 0; i < refuted.size() && i < room; ++i) {
    if (i + 1 == room && refuted.size() > room) {
      lines.push_back("  ... and " + std::to_string(refuted.size() - i) + " more");
      break;
    }
    lines.push_back("  " + refuted[i]->source + ": " + refuted[i]->claim);
  }
  lines.push_back("still open: " + std::to_string(ledger.count(Verdict::inconclusive)) +
                  " claims (each with what would settle it in the ledger)");
  while (lines.size() > max_lines) lines.pop_back();
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

}  // namespace favorlab
