#include "cli/compare_command.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/input_file.hpp"
#include "io/json_file.hpp"
#include "mc/distribution.hpp"
#include "results/result_compare.hpp"

namespace favorlab {


void add_compare_options(CLI::App& app, CompareOptions& o) {
  app.add_option("baseline", o.baseline, "The reference result file (e.g. committed)")->required();
  app.add_option("new", o.fresh, "The result file to check against it (same experiment)")->required();
  app.add_option("--alpha", o.alpha, "Family-wise false-flag rate (Bonferroni over the compared statistics)")
      ->capture_default_str();
  app.add_option("--tolerance", o.tolerance,
                 "Relative tolerance of exact fields (closed forms), of zero-SE figures, and the rounding floor of "
                 "statistics")
      ->capture_default_str();
  app.add_option("--max-uncompared", o.max_uncompared,
                 "Largest fraction of the statistics that may go uncompared (heavy-tailed without a closed-form "
                 "variance, or non-finite) before the exit status is 1")
      ->capture_default_str();
  app.add_option("--out", o.out, "Also write the report as JSON (schema favorlab.compare/1)");
  app.add_option("--max-lines", o.max_lines, "Change lines printed at most")->capture_default_str();
}

int run_compare(const CompareOptions& o) {
  // Checked before either file is read: the options' ranges, --out names neither input (nor both it and another
  // output stdout), and the output path is writable (--alpha's range is also checked while parsing:
  // cli/option_checks.hpp).
  check_compare_options(o.alpha, o.tolerance, o.max_uncompared);
  check_distinct_paths({{"baseline", o.baseline}, {"new", o.fresh}}, {{"--out", o.out}});
  // Under MPI every rank compares (so every rank exits alike) and rank 0 alone reports.
  const bool reports = process_ranks().rank == 0;
  std::optional<AtomicFileWriter> writer;
  if (!o.out.empty() && reports) writer.emplace(o.out);
  const Json base = read_json_file(o.baseline, "baseline"), fresh = read_json_file(o.fresh, "new");
  CompareReport report;
  try {
    report = compare_results(base, fresh, o.alpha, o.tolerance, o.max_uncompared);
  } catch (const Json::exception& e) {
    // A field of an unexpected type (a string where a number belongs): the document is not a result file.
    throw std::invalid_argument(o.baseline + ", " + o.fresh + ": not comparable result files (" + e.what() + ")");
  }
  if (!reports) return report.fails() ? 1 : 0;
  // With --out - the JSON is standard output's only content; the report lines go to stderr instead.
  std::FILE* lines_to = writer && writer->to_stdout() ? stderr : stdout;
  for (const auto& line : compare_report_lines(report, o.max_lines)) std::fprintf(lines_to, "%s\n", printable(line).c_str());
  if (writer) writer->commit(dump_json(compare_report_json(report), 1));
  return report.fails() ? 1 : 0;
}

}  // namespace favorlab
