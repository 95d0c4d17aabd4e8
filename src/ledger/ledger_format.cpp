// The ledger's printed forms: text for a terminal, Markdown (results/CLAIMS.md and the README's findings), JSON, and
// the summary at the end of `favorlab reproduce`. Every sentence says what the data and the checks say, in their words
// where a check gives reasons (docs/judging.md#the-claims-ledger).
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <map>
#include <sstream>

#include "io/format_number.hpp"
#include "io/json_file.hpp"
#include "io/wrap_words.hpp"
#include "ledger/ledger.hpp"

namespace favorlab {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// "Performers, Lemma 2" → "Performers"; "FAVOR# (2023)" stays.
std::string paper_of(const std::string& source) { return source.substr(0, source.find(',')); }

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return format_number(100 * fraction, 2) + " %";
}

// The power of the line: an identity's is rounding's, never a sampled percentage; a check whose every judged point
// is exact to rounding says so instead of a percentage.
std::string power_text(const LedgerClaim& c, const LedgerMethod& m) {
  if (c.identity()) return "identity (rounding)";
  // A closed-forms line that decides: it sees the sampler only through the sampled claims it rests on.
  if (m.closed_forms() && std::isfinite(c.rests_on_power))
    return percent(c.rests_on_power) + " (through the sampled claims its exact values rest on)";
  if (m.power_from_rounding) return "rounding only (every judged point exact to rounding)";
  return percent(m.power);
}

// At most the sum of the family α of the claim's sampled checks (docs/judging.md#the-claims-ledger).
std::string bound_text(const LedgerClaim& c) {
  const int n = c.sampled_checks();
  if (n == 0) return "n/a: exact checks only";
  const std::string checks = std::to_string(n) + " sampled check" + (n == 1 ? "" : "s");
  const double bound = c.false_verdict_bound();
  if (!std::isfinite(bound)) return "unknown (" + checks + "; a result file states no alpha)";
  return "<= " + format_number(bound, 3) + " (" + checks + ")";
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

// What a claim's closed-forms lines take for granted, and whether this ledger confirms it.
std::string rests_on_text(const LedgerClaim& c) {
  std::string names;
  for (const std::string& n : c.rests_on) names += (names.empty() ? "`" : ", `") + n + "`";
  if (c.rests_on_unconfirmed.empty()) return "its exact values rest on " + names + ", which hold here";
  return "its exact values rest on " + names + " and are set aside: " + c.rests_on_unconfirmed;
}

std::string methods_text(const LedgerClaim& c) {
  std::string methods;
  for (const LedgerMethod& lm : c.methods) methods += (methods.empty() ? "" : "; ") + method_text(lm);
  if (!c.rests_on.empty()) methods += "; " + rests_on_text(c);
  return methods;
}

// What would settle an open method: the trials the check names, or its own words on why it names none.
std::string settle_text(const LedgerMethod& m) {
  if (m.held + m.violated + m.inconclusive == 0) return "nothing judged";
  if (m.trials_needed == kOutOfReach)
    return "the check names no trial count that would settle it" +
           (m.open_reason.empty() ? std::string() : " (the check: " + m.open_reason + ")");
  if (m.trials_needed > 0)
    return "about " + format_number(static_cast<double>(m.trials_needed), 2) + " trials per point would settle it";
  return m.open_reason.empty() ? "neither confirmed nor refuted; the check names no trial count"
                               : "the check: " + m.open_reason;
}

bool settled_in(const LedgerClaim& c, const std::string& experiment) {
  return std::find(c.settled_in.begin(), c.settled_in.end(), experiment) != c.settled_in.end();
}

// An open claim's methods that leave it open (those of experiments no method settles), then where it holds already.
std::vector<std::string> open_lines(const LedgerClaim& c) {
  std::vector<std::string> lines;
  for (const LedgerMethod& m : c.methods)
    if (m.verdict == Verdict::inconclusive && !settled_in(c, m.experiment))
      lines.push_back(m.label() + ": " + settle_text(m));
  if (!c.rests_on_unconfirmed.empty())
    lines.push_back(rests_on_text(c) + " (confirming those settles the points only the exact values decide)");
  if (!c.settled_in.empty()) {
    std::string where;
    for (const std::string& e : c.settled_in) where += (where.empty() ? "" : ", ") + e;
    lines.push_back("every point confirmed in " + where + " (the claim holds there only)");
  }
  return lines;
}

std::string point_text(const LedgerMethod& m) {
  if (m.worst_label.empty()) return m.where;
  return m.worst_label + " (" + m.where + ")";
}

std::string printed_text(const LedgerClaim& c) {
  if (c.printed.empty()) return "not quoted in the claims table";
  return c.printed_at + ": \"" + c.printed + "\"";
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
  const std::int64_t identities = ledger.identities();
  std::string s = std::to_string(static_cast<std::int64_t>(ledger.claims.size()) - identities) + " claims from " +
                  std::to_string(ledger.checks) + " checks in " + std::to_string(ledger.files.size()) +
                  " result files: " + std::to_string(ledger.count(Verdict::holds)) + " hold, " +
                  std::to_string(ledger.count(Verdict::violated)) + " violated, " +
                  std::to_string(ledger.count(Verdict::inconclusive)) + " inconclusive, " +
                  std::to_string(ledger.count(Verdict::measured)) + " measured";
  if (identities > 0)
    s += "; and " + std::to_string(identities) + " identities checked to rounding (" +
         std::to_string(ledger.identities(Verdict::holds)) + " hold, " +
         std::to_string(ledger.identities(Verdict::violated)) + " violated, " +
         std::to_string(ledger.identities(Verdict::inconclusive)) + " inconclusive)";
  return s;
}

std::string corrected_text(const LedgerClaim& c) {
  if (c.corrected_claim.empty()) return "no corrected statement tested";
  return c.corrected_claim + ": " + (c.corrected_verdict ? verdict_name(*c.corrected_verdict) : "not in these results");
}

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json method_json(const LedgerMethod& m) {
  Json j{{"experiment", m.experiment}, {"method", m.method}, {"verdict", verdict_name(m.verdict)}, {"checks", m.checks}};
  if (m.verdict == Verdict::measured) {
    j["value"] = number_or_null(m.value);
    j["target"] = number_or_null(m.target);
  } else {
    j["points_held"] = m.held;
    j["points_violated"] = m.violated;
    j["points_inconclusive"] = m.inconclusive;
    j["power"] = number_or_null(m.power);
    j["power_from_rounding"] = m.power_from_rounding;
    j["trials_needed"] =
        m.trials_needed == kOutOfReach || m.trials_needed == 0 ? Json(nullptr) : Json(m.trials_needed);
    // true: the check names no trial count that would settle it (open_reason: its words).
    j["out_of_reach"] = m.trials_needed == kOutOfReach;
    j["open_reason"] = m.open_reason.empty() ? Json(nullptr) : Json(m.open_reason);
    j["sampled_checks"] = m.sampled_checks;
    j["alpha_sum"] = m.alpha_unknown ? Json(nullptr) : Json(m.alpha_sum);
  }
  j["worst"] = m.worst_label.empty() ? Json(nullptr) : Json(m.worst_label);
  j["where"] = m.where;
  return j;
}

Json claim_json(const LedgerClaim& c) {
  Json methods = Json::array();
  for (const LedgerMethod& m : c.methods) methods.push_back(method_json(m));
  Json j{{"claim", c.claim},
         {"source", c.source},
         {"kind", claim_kind_name(c.kind)},
         {"verdict", verdict_name(c.verdict)},
         {"found_false_as_printed", found_false_as_printed(c)},
         {"stronger_reading_found_false", stronger_reading_found_false(c)},
         {"printed", c.printed.empty() ? Json(nullptr) : Json(c.printed)},
         {"printed_at", c.printed_at.empty() ? Json(nullptr) : Json(c.printed_at)},
         {"points_held", c.held()},
         {"points_violated", c.violated()},
         {"points_inconclusive", c.inconclusive()},
         {"deciding_method", c.methods[c.deciding].label()},
         {"settled_in", c.settled_in},
         {"sampled_checks", c.sampled_checks()},
         {"false_verdict_bound", number_or_null(c.false_verdict_bound())},
         {"figure", c.figure.empty() ? Json(nullptr) : Json(c.figure)},
         {"methods", methods}};
  if (!c.rests_on.empty()) {
    // The claims its closed-forms lines take for granted; unconfirmed: why those lines were set aside (null: not).
    j["rests_on"] = c.rests_on;
    j["rests_on_unconfirmed"] = c.rests_on_unconfirmed.empty() ? Json(nullptr) : Json(c.rests_on_unconfirmed);
    j["rests_on_power"] = number_or_null(c.rests_on_power);
  }
  if (!c.corrected_claim.empty()) {
    j["corrected_claim"] = c.corrected_claim;
    j["corrected_verdict"] = c.corrected_verdict ? Json(verdict_name(*c.corrected_verdict)) : Json(nullptr);
  }
  return j;
}

void text_found_false(std::ostream& s, const Ledger& ledger) {
  s << "\nFound false as printed\n";
  bool any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (!found_false_as_printed(c)) continue;
    any = true;
    const LedgerMethod& m = c.methods[c.deciding];
    s << "  " << c.source << ": " << c.claim << "\n"
      << "      printed, " << printed_text(c) << "\n"
      << "      counterexample [" << m.label() << "]: " << point_text(m) << "\n"
      << "      corrected: " << corrected_text(c) << "\n";
  }
  if (!any) s << "  none\n";
  any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (!stronger_reading_found_false(c)) continue;
    if (!any) s << "\nfavorlab's stronger readings found false (the printed sentence itself is not refuted)\n";
    any = true;
    const LedgerMethod& m = c.methods[c.deciding];
    s << "  " << c.source << ": " << c.claim << "\n"
      << "      a reading of " << printed_text(c) << "\n"
      << "      counterexample [" << m.label() << "]: " << point_text(m) << "\n";
  }
}

void text_claim(std::ostream& s, const LedgerClaim& c) {
  const LedgerMethod& m = c.methods[c.deciding];
  s << "  " << verdict_name(c.verdict) << std::string(14 - std::string(verdict_name(c.verdict)).size(), ' ')
    << c.claim << " [" << claim_kind_name(c.kind) << "]\n";
  s << std::string(16, ' ') << methods_text(c) << "\n";
  if (c.verdict != Verdict::measured) {
    s << std::string(16, ' ') << "power " << power_text(c, m) << "; false-verdict rate " << bound_text(c)
      << "; worst: " << point_text(m);
    if (!c.figure.empty()) s << "; figure " << c.figure;
    s << "\n";
  }
}

}  // namespace

std::string ledger_text(const Ledger& ledger) {
  std::ostringstream s;
  s << "favorlab claims: " << counts_line(ledger) << "\n  (" << ledger.results_dir.string() << ": " << ledger.run_size
    << ")\n";
  text_found_false(s, ledger);
  s << "\nStill open\n";
  bool any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (c.verdict != Verdict::inconclusive) continue;
    any = true;
    s << "  " << c.source << ": " << c.claim << "\n";
    for (const std::string& line : open_lines(c)) s << "      " << line << "\n";
  }
  if (!any) s << "  none\n";
  std::string source;
  for (const LedgerClaim& c : ledger.claims) {
    if (c.source != source) {
      source = c.source;
      s << "\n" << source << "\n";
    }
    text_claim(s, c);
  }
  return s.str();
}

std::string ledger_markdown(const Ledger& ledger) {
  std::ostringstream s;
  s << "# What favorlab found\n\n"
    << "Generated by `favorlab claims " << ledger.results_dir.string() << " --format md` from the result files of "
    << "the " << ledger.run_size << "; do not edit. " << counts_line(ledger) << ".\n\n"
    << "One line per claim: a claim judged by several experiments or methods is violated if any of them refutes "
    << "it, holds if in every experiment that judged it one method confirms it at every point and none refutes it, "
    << "and is inconclusive otherwise (docs/judging.md, \"The claims ledger\"). Points: held/total, violated, "
    << "inconclusive, summed over methods. The false-verdict rate is at most the sum of the family alpha of the "
    << "claim's sampled checks.\n\n";
  s << "## Found false as printed\n\n";
  s << "| Claim | Source | Printed | Counterexample | Corrected statement |\n|---|---|---|---|---|\n";
  for (const LedgerClaim& c : ledger.claims) {
    if (!found_false_as_printed(c)) continue;
    const LedgerMethod& m = c.methods[c.deciding];
    s << "| " << code_cell(c.claim) << " | " << cell(c.source) << " | " << cell(printed_text(c)) << " | "
      << cell(m.label() + ": " + point_text(m)) << " | " << cell(corrected_text(c)) << " |\n";
  }
  bool any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (!stronger_reading_found_false(c)) continue;
    if (!any)
      s << "\n## favorlab's stronger readings found false\n\n"
        << "favorlab's formalization is stronger than the printed sentence; refuting it does not refute the "
        << "sentence.\n\n| Claim | Source | Reading of | Counterexample |\n|---|---|---|---|\n";
    any = true;
    const LedgerMethod& m = c.methods[c.deciding];
    s << "| " << code_cell(c.claim) << " | " << cell(c.source) << " | " << cell(printed_text(c)) << " | "
      << cell(m.label() + ": " + point_text(m)) << " |\n";
  }
  s << "\n## Still open\n\n| Claim | Source | What would settle it |\n|---|---|---|\n";
  for (const LedgerClaim& c : ledger.claims) {
    if (c.verdict != Verdict::inconclusive) continue;
    std::string why;
    for (const std::string& line : open_lines(c)) why += (why.empty() ? "" : "; ") + line;
    s << "| " << code_cell(c.claim) << " | " << cell(c.source) << " | " << cell(why) << " |\n";
  }
  std::string source;
  for (const LedgerClaim& c : ledger.claims) {
    if (c.source != source) {
      source = c.source;
      s << "\n## " << source << "\n\n| Verdict | Claim | Kind | Methods | Power | False-verdict rate | Worst point | "
        << "Figure |\n|---|---|---|---|---|---|---|---|\n";
    }
    const LedgerMethod& m = c.methods[c.deciding];
    const bool judged = c.verdict != Verdict::measured;
    s << "| **" << verdict_name(c.verdict) << "** | " << code_cell(c.claim) << " | " << claim_kind_name(c.kind)
      << " | " << cell(methods_text(c)) << " | " << (judged ? power_text(c, m) : "") << " | "
      << (judged ? cell(bound_text(c)) : "") << " | " << cell(judged ? point_text(m) : m.where) << " | "
      << figure_link(ledger, c.figure, "figures/") << " |\n";
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
  // Rows: each paper's own statements (kind paper); favorlab's statements (corrections, derivations, controls,
  // baselines, targets, properties, measurements) whatever source they cite; the identities apart.
  const std::string own = "favorlab's own statements", identities = "identities checked to rounding";
  std::vector<std::string> rows;
  std::map<std::string, std::array<std::int64_t, 4>> counts;
  for (const LedgerClaim& c : ledger.claims) {
    const std::string row = c.identity() ? identities : c.kind == ClaimKind::paper ? paper_of(c.source) : own;
    if (!counts.contains(row)) rows.push_back(row);
    ++counts[row][static_cast<std::size_t>(c.verdict)];
  }
  std::stable_partition(rows.begin(), rows.end(), [&](const std::string& r) { return r != own && r != identities; });
  std::stable_partition(rows.begin(), rows.end(), [&](const std::string& r) { return r != identities; });
  s << "| Source | Hold | Violated | Inconclusive | Measured |\n|---|---|---|---|---|\n";
  for (const std::string& p : rows) {
    const auto& n = counts[p];
    s << "| " << cell(p) << " | " << n[0] << " | " << n[1] << " | " << n[2] << " | " << n[3] << " |\n";
  }
  s << "\nFound false as printed (the paper's sentence, where the data refute it, and the corrected statement's "
       "verdict):\n\n";
  for (const LedgerClaim& c : ledger.claims) {
    if (!found_false_as_printed(c)) continue;
    const LedgerMethod& m = c.methods[c.deciding];
    const std::string point = m.worst_label.empty() ? m.where : m.worst_label;
    const std::string corrected =
        c.corrected_claim.empty() ? "none tested"
                                  : (c.corrected_verdict ? verdict_name(*c.corrected_verdict) : "not in these results");
    const std::string figure = figure_link(ledger, c.figure, dir + "/figures/");
    s << wrap_words("- `" + c.claim + "` (" + c.source + "; printed, " + printed_text(c) + "): " + point +
                        "; corrected statement: " + corrected + (figure.empty() ? "." : ". " + figure),
                    120, "  ")
      << "\n";
  }
  bool any = false;
  for (const LedgerClaim& c : ledger.claims) {
    if (!stronger_reading_found_false(c)) continue;
    if (!any) s << "\nfavorlab's stronger readings found false (the printed sentence itself is not refuted):\n\n";
    any = true;
    const LedgerMethod& m = c.methods[c.deciding];
    const std::string point = m.worst_label.empty() ? m.where : m.worst_label;
    s << wrap_words("- `" + c.claim + "` (" + c.source + "; a reading of " + printed_text(c) + "): " + point + ".",
                    120, "  ")
      << "\n";
  }
  return s.str();
}

std::string ledger_json(const Ledger& ledger) {
  Json j{{"schema", kClaimsSchema},
         {"results_dir", ledger.results_dir.string()},
         {"run_size", ledger.run_size},
         {"files", ledger.files},
         {"checks", ledger.checks}};
  Json counts = Json::object(), identities = Json::object();
  for (Verdict v : {Verdict::holds, Verdict::violated, Verdict::inconclusive, Verdict::measured}) {
    counts[verdict_name(v)] = ledger.count(v);
    identities[verdict_name(v)] = ledger.identities(v);
  }
  j["counts"] = counts;
  j["identities"] = identities;  // identity claims, counted apart from `counts`
  Json claims = Json::array();
  for (const LedgerClaim& c : ledger.claims) claims.push_back(claim_json(c));
  j["claims"] = claims;
  return dump_json(j, 1);
}

std::string ledger_summary(const Ledger& ledger, std::size_t max_lines) {
  std::vector<std::string> lines;
  lines.push_back("favorlab: " + counts_line(ledger));
  std::vector<const LedgerClaim*> refuted;
  std::size_t readings = 0;
  for (const LedgerClaim& c : ledger.claims) {
    if (found_false_as_printed(c)) refuted.push_back(&c);
    if (stronger_reading_found_false(c)) ++readings;
  }
  lines.push_back("found false as printed: " + std::to_string(refuted.size()) + (refuted.empty() ? "" : ":"));
  // Lines stay for the readings (where any), the open count and where the ledger is; the rest may list refuted claims.
  const std::size_t reserved = lines.size() + 2 + (readings > 0 ? 1 : 0);
  const std::size_t room = max_lines > reserved ? max_lines - reserved : 0;
  for (std::size_t i = 0; i < refuted.size() && i < room; ++i) {
    if (i + 1 == room && refuted.size() > room) {
      lines.push_back("  ... and " + std::to_string(refuted.size() - i) + " more");
      break;
    }
    lines.push_back("  " + refuted[i]->source + ": " + refuted[i]->claim);
  }
  if (readings > 0)
    lines.push_back("favorlab's stronger readings found false: " + std::to_string(readings) +
                    " (the printed sentences themselves are not refuted)");
  lines.push_back("still open: " + std::to_string(ledger.count(Verdict::inconclusive)) +
                  " claims (each with what would settle it in the ledger)");
  while (lines.size() > max_lines) lines.pop_back();
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

}  // namespace favorlab
