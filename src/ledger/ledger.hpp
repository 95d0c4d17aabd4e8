#pragma once
// The claims ledger: what favorlab found, read from a directory of result files (`favorlab claims`, and the end of
// `favorlab reproduce`). Every check of every file is attributed to its source (ledger/claim_sources.hpp) and one
// claim gets one line, however many experiments and methods judged it. The rules are in docs/judging.md#the-claims-ledger.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ledger/claim_sources.hpp"
#include "stats/check.hpp"

namespace favorlab {

// One experiment's checks of one claim by one method (several checks where the claim is judged at several settings,
// e.g. one per dimension): their points add up, and the method holds only if every one of them holds.
struct LedgerMethod {
  std::string experiment;
  std::string method;  // "" (the experiment's own), "importance-sampled", "exact values", "Monte Carlo"
  Verdict verdict = Verdict::inconclusive;
  int checks = 0;
  int judged_checks = 0;  // checks with a verdict (not measured)
  std::int64_t held = 0, violated = 0, inconclusive = 0;
  // The weakest judged check's power (the largest relative departure that could have gone unnoticed); NaN: none.
  double power = std::numeric_limits<double>::quiet_NaN();
  // Inconclusive checks: the most trials per point any of them needs; 0: none said; max(): out of reach.
  std::int64_t trials_needed = 0;
  std::string open_reason;  // inconclusive: the check's own words on why (out of reach, nothing judged, ...)
  std::string worst_label;  // the deciding check's worst point (a counterexample when violated)
  std::string where;        // the deciding check's setting
  double value = std::numeric_limits<double>::quiet_NaN();   // measured: the first check's figure and target
  double target = std::numeric_limits<double>::quiet_NaN();

  std::string label() const;  // "mse" or "mse, importance-sampled"
};

struct LedgerClaim {
  std::string claim;  // without the method suffix
  std::string source;
  ClaimKind kind = ClaimKind::paper;
  std::string figure;  // PNG name under figures/; empty: none
  std::vector<LedgerMethod> methods;
  Verdict verdict = Verdict::inconclusive;
  std::size_t deciding = 0;  // the method whose verdict the line shows
  // Paper claims: the corrected statement tested beside it and its verdict (none where no correction is tested).
  std::string corrected_claim;
  std::optional<Verdict> corrected_verdict;

  std::int64_t held() const;
  std::int64_t violated() const;
  std::int64_t inconclusive() const;
};

struct Ledger {
  std::filesystem::path results_dir;
  std::vector<std::string> files;  // result file names read, sorted
  std::int64_t checks = 0;
  std::string run_size;  // "quick", "paper-sized" or "mixed" (from params.quick of the files)
  std::vector<LedgerClaim> claims;

  std::int64_t count(Verdict v) const;  // claims with that verdict
};

// The result files read_ledger reads: every *.json directly in `dir`, sorted. Throws std::invalid_argument when `dir`
// is not a directory or cannot be listed.
std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir);

// Reads every *.json directly in `dir` (sorted by name). Throws std::invalid_argument with one line naming the file
// for a file that is not a favorlab result (schema favorlab.result/1), a check whose status disagrees with its own
// point counts, or a claim neither the table nor the file attributes; and when `dir` holds no result file.
Ledger read_ledger(const std::filesystem::path& dir);

// The ledger for a terminal: "Found false as printed", "Still open", then every claim grouped by source.
std::string ledger_text(const Ledger& ledger);
// The same as Markdown (results/CLAIMS.md); figure links relative to the results directory (figures/NAME.png),
// only for figures that exist there.
std::string ledger_markdown(const Ledger& ledger);
// The README's findings: verdict counts per paper and the claims found false as printed, figure links relative to
// the current directory (RESULTS_DIR/figures/NAME.png).
std::string ledger_findings_markdown(const Ledger& ledger);
// The same for machines: schema favorlab.claims/1.
std::string ledger_json(const Ledger& ledger);
// At most `max_lines` lines for the end of `favorlab reproduce`: verdict counts and the claims found false.
std::string ledger_summary(const Ledger& ledger, std::size_t max_lines);

}  // namespace favorlab
