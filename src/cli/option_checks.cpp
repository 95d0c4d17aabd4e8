#include "cli/option_checks.hpp"

#include <omp.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "cli/run_experiment.hpp"
#include "io/input_file.hpp"
#include "io/input_layers.hpp"
#include "runtime/duration.hpp"
#include "runtime/memory_budget.hpp"

namespace favorlab {

namespace {

// The CLI11 type name without a list's decoration ("INT ..." → "INT"), or "" for a non-numeric option.
std::string numeric_kind(const CLI::Option& option) {
  const std::string name = option.get_type_name();
  for (const char* kind : {"UINT", "INT", "FLOAT"})
    if (name.rfind(kind, 0) == 0 && (name.size() == std::string(kind).size() || name[std::string(kind).size()] == ' '))
      return kind;
  return "";
}

// Base 16 for an explicit 0x prefix (after an optional sign), else 10: a leading zero is never octal.
int integer_base(const std::string& text) {
  std::size_t i = text.empty() || (text[0] != '-' && text[0] != '+') ? 0 : 1;
  return text.size() > i + 1 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X') ? 16 : 10;
}

// The option's first name as users write it ("--out"; a positional's own name).
std::string option_name(const CLI::Option& option) {
  if (!option.get_lnames().empty()) return "--" + option.get_lnames().front();
  if (!option.get_snames().empty()) return "-" + option.get_snames().front();
  return option.get_name();
}

const std::set<std::string> kPathOptions = {"--out", "--out-dir", "--q", "--k", "--v", "--w", "--matrix", "--save-w",
                                            "--inputs", "--input-dir", "baseline", "new"};

const std::set<std::string> kCountOptions = {"--groups", "--positions", "--batch", "--heatmap-m"};

// The smallest --alpha: the normal quantile of α/2 (and of α/2 over a Bonferroni count) stays finite far below it.
constexpr double kMinAlpha = 1e-100;

void apply_recursively(CLI::App& app, const std::function<void(CLI::Option&)>& f) {
  for (CLI::Option* option : app.get_options()) f(*option);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) apply_recursively(*sub, f);
}

}  // namespace

std::string strict_number_problem(const std::string& text, const std::string& type) {
  if (text.empty()) return "an empty value is not a number";
  const std::string shown = "'" + printable(text) + "'";
  if (std::isspace(static_cast<unsigned char>(text.front())) || std::isspace(static_cast<unsigned char>(text.back())))
    return shown + " has spaces around the number";
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  if (type == "FLOAT") {
    const double v = std::strtod(begin, &end);
    if (end != begin + text.size()) return shown + " is not a number";
    if (!std::isfinite(v)) return shown + " is not a finite number";
    return "";
  }
  if (type == "UINT") {
    if (text.front() == '-' || text.front() == '+') return shown + " must be a non-negative integer (no sign)";
    (void)std::strtoull(begin, &end, integer_base(text));
  } else {
    (void)std::strtoll(begin, &end, integer_base(text));
  }
  if (end != begin + text.size()) return shown + " is not an integer";
  if (errno == ERANGE) return shown + " is out of range";
  return "";
}

std::string canonical_number(const std::string& text, const std::string& type) {
  if (type == "UINT") return std::to_string(std::strtoull(text.c_str(), nullptr, integer_base(text)));
  if (type == "INT") return std::to_string(std::strtoll(text.c_str(), nullptr, integer_base(text)));
  return text;
}

void add_strict_number_checks(CLI::App& app) {
  apply_recursively(app, [](CLI::Option& option) {
    const std::string kind = numeric_kind(option);
    if (kind.empty()) return;
    // A transform, not a check: the value CLI11 converts is the canonical decimal one.
    option.transform(CLI::Validator(
        [kind](std::string& value) {
          std::string problem = strict_number_problem(value, kind);
          if (problem.empty()) value = canonical_number(value, kind);
          return problem;
        },
        "", "strict " + kind));
  });
}

void add_named_option_checks(CLI::App& app) {
  apply_recursively(app, [](CLI::Option& option) {
    const std::string name = option_name(option);
    // CLI11 puts "NAME: " before the message; a message that starts with the name itself drops it.
    const auto check = [&](std::function<std::string(const std::string&)> f) {
      option.check(CLI::Validator(
          [f, name](std::string& value) {
            std::string problem = f(value);
            if (problem.rfind(name + " ", 0) == 0) problem.erase(0, name.size() + 1);
            return problem;
          },
          "", "named " + name));
    };
    if (kPathOptions.count(name))
      check([](const std::string& v) { return v.empty() ? std::string("an empty path names no file") : ""; });
    if (name == "--alpha")
      check([](const std::string& v) {
        const double a = std::strtod(v.c_str(), nullptr);
        return a >= kMinAlpha && a < 1 ? std::string() : "must lie in [1e-100, 1), got " + printable(v);
      });
    // A value its own parser accepts (runtime/memory_budget.hpp, runtime/duration.hpp); else the parser's message.
    const auto parses = [&](double (*parse)(const std::string&, const std::string&)) {
      check([parse, name](const std::string& v) {
        try {
          (void)parse(v, name);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      });
    };
    if (name == "--max-memory") parses(parse_memory_size);
    if (name == "--budget") parses(parse_duration_seconds);
    if (name == "--max-looks")
      check([](const std::string& v) {
        const long long k = std::strtoll(v.c_str(), nullptr, 10);
        return k >= 1 && k <= kMaxLooks ? std::string()
                                        : "must lie in [1, " + std::to_string(kMaxLooks) + "], got " + printable(v);
      });
    if (name == "--thread-counts")
      check([](const std::string& v) {
        const long long t = std::strtoll(v.c_str(), nullptr, 10);
        const int most = kMaxThreadsPerProcessor * omp_get_num_procs();
        return t >= 1 && t <= most ? std::string()
                                   : "must lie in [1, " + std::to_string(most) + "] (" +
                                         std::to_string(kMaxThreadsPerProcessor) + " per processor, as --threads), got " +
                                         printable(v);
      });
    // Options whose unset value 0 stands for "the experiment's default": given, they must be at least 1.
    if (kCountOptions.count(name))
      check([](const std::string& v) {
        return std::strtoll(v.c_str(), nullptr, 10) >= 1 ? std::string()
                                                        : "must be at least 1, got " + printable(v) +
                                                              " (leave the option out for the default)";
      });
    if (name == "--trials")
      check([](const std::string& v) {
        const long long t = std::strtoll(v.c_str(), nullptr, 10);
        return t >= 2 && t <= kMaxTrials ? std::string() : "must be between 2 and 1e15, got " + printable(v);
      });
  });
}

void check_list_duplicates(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() < 2 || option->get_items_expected_max() < 2) continue;
    const std::string name = option_name(*option);
    if (name == "--inputs") {
      // Counted before any path is examined: an oversized list is refused at once, not after checking every path
      // (docs/performance.md#tried-and-dropped).
      if (option->results().size() > 3 * kMaxInputLayers)
        throw std::invalid_argument("--inputs: " + std::to_string(option->results().size()) + " paths, more than the " +
                                    std::to_string(3 * kMaxInputLayers) + " (" + std::to_string(kMaxInputLayers) +
                                    " layers) allowed");
      continue;  // one file may serve as Q and K
    }
    const std::string kind = numeric_kind(*option);
    std::set<std::string> seen;
    std::set<double> seen_numbers;
    for (const std::string& value : option->results()) {
      const bool fresh = kind == "FLOAT" ? seen_numbers.insert(std::strtod(value.c_str(), nullptr)).second
                                         : seen.insert(value).second;
      if (!fresh)
        throw std::invalid_argument(name + ": " + printable(value) + " is given twice (each value of a list once)");
    }
  }
  for (const CLI::App* sub : app.get_subcommands()) check_list_duplicates(*sub);
}

}  // namespace favorlab
