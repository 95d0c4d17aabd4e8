#include "cli/claims_command.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "ledger/ledger.hpp"

namespace favorlab {

void add_claims_options(CLI::App& app, ClaimsOptions& o) {
  app.add_option("results_dir", o.results_dir, "Directory of result files (every *.json in it)")->capture_default_str();
  app.add_option("--format", o.format, "text, md (Markdown, as results/CLAIMS.md) or json")->capture_default_str();
  app.add_flag("--findings", o.findings, "Markdown: only the verdict counts per paper and the claims found false");
  app.add_option("--out", o.out, "Write to this file (atomically); - is stdout")->capture_default_str();
}

int run_claims(const ClaimsOptions& o) {
  if (o.format != "text" && o.format != "md" && o.format != "json")
    throw std::invalid_argument("--format must be text, md or json, got '" + o.format + "'");
  if (o.findings && o.format != "md") throw std::invalid_argument("--findings needs --format md");
  if (o.results_dir.empty()) throw std::invalid_argument("the results directory is an empty path");
  if (o.out.empty()) throw std::invalid_argument("--out is an empty path (- is stdout)");
  std::vector<NamedPath> inputs;
  for (const auto& path : result_files(o.results_dir)) inputs.push_back({"result file", path.string()});
  check_distinct_paths(inputs, {{"--out", o.out}});  // --out may not replace a result file it reads
  std::optional<AtomicFileWriter> writer;
  if (o.out != "-") writer.emplace(o.out);  // before reading: an unwritable path fails at once
  else require_standard_output("the ledger");
  const Ledger ledger = read_ledger(o.results_dir);
  const std::string text = o.format == "json" ? ledger_json(ledger)
                           : o.format == "md" ? (o.findings ? ledger_findings_markdown(ledger) : ledger_markdown(ledger))
                                              : ledger_text(ledger);
  if (writer) writer->commit(text);
  else std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace favorlab
