#pragma once
// The claims ledger: what favorlab found, read from a directory of result files (`favorlab claims`, and the end of
// `favorlab reproduce`). Every check of every file is attributed to its source (ledger/claim_sources.hpp) and one
// claim gets one line, however many experiments and methods judged it. The rules are in docs/judging.md#the-claims-ledger.
// Reading and deciding live in ledger.cpp, the text, Markdown and JSON forms in ledger_format.cpp.
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
  std::string method;  // "" (the experiment's own), "importance-sampled", "exact values", "Monte Carlo", ...
  Verdict verdict = Verdict::inconclusive;
  int checks = 0;
  int judged_checks = 0;  // checks with a verdict (not measured)
  std::int64_t held = 0, violated = 0, inconclusive = 0;
  // The weakest judged check's power (the largest relative departure that could have gone unnoticed); NaN: none.
  // A check whose power the check itself says comes from points exact to rounding only ("at every judged point")
  // counts only where no check has a sampled power; power_from_rounding then says so.
  double power = std::numeric_limits<double>::quiet_NaN();
  bool power_from_rounding = false;
  // Inconclusive checks: the most trials per point any of them needs; 0: none said; kOutOfReach: some check names
  // no trial count (its reason in open_reason, in the check's own words).
  std::int64_t trials_needed = 0;
  std::string open_reason;  // inconclusive: the check's own words on why it stays open, where it gives them
  std::string worst_label;  // the deciding check's worst point (a counterexample when violated)
  std::string where;        // the deciding check's setting
  double value = std::numeric_limits<double>::quiet_NaN();   // measured: the first check's figure and target
  double target = std::numeric_limits<double>::quiet_NaN();
  // The false-verdict bound: each sampled check has its own family α (its file's params.alpha) and a false verdict of
  // the method needs a false verdict of one of them, so the method's rate is at most their sum. Exact checks (no
  // critical value: arithmetic, exhaustive search) add 0; a "plain or importance-sampled" line adds 0, its false
  // verdicts being false verdicts of the two lines it combines, which are counted themselves.
  double alpha_sum = 0;
  int sampled_checks = 0;
  bool alpha_unknown = false;  // a sampled check whose file states no alpha
  int closed_form_checks = 0;  // judged checks that evaluated closed forms without sampling ("..., exact values")

  std::string label() const;  // "mse" or "mse, importance-sampled"
  bool combined() const;      // the "plain or importance-sampled" line
  // Every judged check evaluated closed forms: the line sees the formulas, not the sampler.
  bool closed_forms() const { return judged_checks > 0 && closed_form_checks == judged_checks; }
};

struct LedgerClaim {
  std::string claim;  // without the method suffix
  std::string source;
  ClaimKind kind = ClaimKind::paper;
  std::string figure;  // PNG name under figures/; empty: none
  // The source's own sentence and where it is printed (claims table); empty where the table quotes none.
  std::string printed, printed_at;
  std::vector<LedgerMethod> methods;
  Verdict verdict = Verdict::inconclusive;
  std::size_t deciding = 0;  // the method whose verdict and power the line shows
  // Experiments whose points some one of their methods confirms throughout (a claim holds only when all do).
  std::vector<std::string> settled_in;
  // Paper claims: the corrected statement tested beside it and its verdict (none where no correction is tested).
  std::string corrected_claim;
  std::optional<Verdict> corrected_verdict;
  // Claims its closed-forms lines take for granted (claims table) and, where one of them does not hold in this
  // ledger, why those lines were set aside ("`Lemma 2: MSE(positive) closed form` is inconclusive here"); empty when
  // every one holds (the lines then decide like any other).
  std::vector<std::string> rests_on;
  std::string rests_on_unconfirmed;
  // Where every one of them holds: the weakest of their deciding powers, which is what a closed-forms line deciding
  // this claim can see of a sampler that departs from the formulas (NaN otherwise).
  double rests_on_power = std::numeric_limits<double>::quiet_NaN();
  // And their false-verdict bounds and sampled checks, added to this claim's own (0 where none holds it up).
  double rests_on_alpha = 0;
  int rests_on_checks = 0;

  std::int64_t held() const;
  std::int64_t violated() const;
  std::int64_t inconclusive() const;
  bool identity() const { return kind == ClaimKind::identity; }
  // Σ α over the claim's sampled checks (0: exact only); NaN where a sampled check's α is unknown.
  double false_verdict_bound() const;
  int sampled_checks() const;
};

struct Ledger {
  std::filesystem::path results_dir;
  std::vector<std::string> files;  // result file names read, sorted
  std::int64_t checks = 0;
  std::string run_size;  // "quick", "paper-sized" or "mixed" (from params.quick of the files)
  std::vector<LedgerClaim> claims;

  // Claims with that verdict; identities (checked to rounding) are counted apart, by identities().
  std::int64_t count(Verdict v) const;
  std::int64_t identities(Verdict v) const;
  std::int64_t identities() const;
};

// A paper's statement, as printed, that the data refute.
bool found_false_as_printed(const LedgerClaim& c);
// favorlab's stronger reading of a printed sentence (a `derived` claim that quotes one) that the data refute: the
// sentence itself is not refuted.
bool stronger_reading_found_false(const LedgerClaim& c);

// The result files read_ledger reads: every *.json directly in `dir`, sorted. Throws std::invalid_argument when `dir`
// is not a directory or cannot be listed.
std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir);

// Reads every *.json directly in `dir` (sorted by name). Throws std::invalid_argument with one line naming the file
// for a file that is not a favorlab result (schema favorlab.result/1), a check whose status disagrees with its own
// point counts, or a claim neither the table nor the file attributes; and when `dir` holds no result file.
Ledger read_ledger(const std::filesystem::path& dir);

// The ledger for a terminal: "Found false as printed", favorlab's stronger readings found false, "Still open", then
// every claim grouped by source.
std::string ledger_text(const Ledger& ledger);
// The same as Markdown (results/CLAIMS.md); figure links relative to the results directory (figures/NAME.png),
// only for figures that exist there.
std::string ledger_markdown(const Ledger& ledger);
// The README's findings: verdict counts per paper (its own statements; favorlab's and the identities apart) and the
// claims found false, figure links relative to the current directory (RESULTS_DIR/figures/NAME.png).
std::string ledger_findings_markdown(const Ledger& ledger);
// The schema of the ledger's JSON form; a file of it beside the results is skipped when a ledger is read.
inline constexpr const char* kClaimsSchema = "favorlab.claims/1";

// The same for machines: schema favorlab.claims/1.
std::string ledger_json(const Ledger& ledger);
// At most `max_lines` lines for the end of `favorlab reproduce`: verdict counts and the claims found false.
std::string ledger_summary(const Ledger& ledger, std::size_t max_lines);

}  // namespace favorlab
