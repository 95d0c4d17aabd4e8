#include "cli/compare_command.hpp"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/result_compare.hpp"

namespace favorlab {

namespace {

Json read_json(const std::string& path, const char* which) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(std::string(which) + " " + path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return Json::parse(text.str());
  } catch (const Json::parse_error& e) {
    throw std::invalid_argument(std::string(which) + " " + path + ": not JSON (" + e.what() + ")");
  }
}

}  // namespace

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
  const Json base = read_json(o.baseline, "baseline"), fresh = read_json(o.fresh, "new");
  const CompareReport report = compare_results(base, fresh, o.alpha, o.tolerance, o.max_uncompared);
  std::optional<AtomicFileWriter> writer;
  if (!o.out.empty()) writer.emplace(o.out);
  for (const auto& line : compare_report_lines(report, o.max_lines)) std::printf("%s\n", line.c_str());
  if (writer) writer->commit(compare_report_json(report).dump(1) + "\n");
  return report.fails() ? 1 : 0;
}

}  // namespace favorlab
